package cli

import (
	_ "embed"
	"fmt"
	"io"
)

// This file prints the inputs and environment help of `review-loop
// cycle --help`.

//go:generate go run ../actionyml/genhelp -o help_inputs.txt

// inputsHelp is the inputs table generated from action.yml; a test fails
// when it is not current.
//
//go:embed help_inputs.txt
var inputsHelp string

// envHelp lists the environment variables review-loop reads besides the
// inputs.
const envHelp = `environment:
  INPUT_<NAME>          each input above, upper case, dashes kept (INPUT_GITHUB-TOKEN);
                        action.yml maps them
  GITHUB_TOKEN          token when github-token is empty (status, plan, doctor: after GH_TOKEN)
  GH_TOKEN              token for review-loop status, plan and doctor
  GITHUB_EVENT_NAME, GITHUB_EVENT_PATH
                        the event that woke the cycle
  GITHUB_REPOSITORY     owner/name
  GITHUB_API_URL, GITHUB_GRAPHQL_URL, GITHUB_SERVER_URL
                        GitHub endpoints (GHES); default github.com; the
                        server is where a run with no checkout clones from
  GITHUB_WORKSPACE      the checkout; with no .git there, a cycle that needs
                        the tree clones the PR head under RUNNER_TEMP
  GITHUB_RUN_ID, GITHUB_WORKFLOW, GITHUB_WORKFLOW_REF, GITHUB_ACTOR
                        the run, for links, re-dispatch and permission checks
  GITHUB_ACTIONS        "true" on a runner
  GITHUB_OUTPUT, GITHUB_STEP_SUMMARY
                        where outputs and the job summary go
  RUNNER_TEMP           scratch files (report JSON, prepared cycle, the clone)
  RUNNER_DEBUG, REVIEW_LOOP_DEBUG
                        "1" turns on debug logging
`

// writeInputsHelp prints the inputs and the environment.
func writeInputsHelp(w io.Writer) {
	fmt.Fprintf(w, "\ninputs (action.yml; on the command line as INPUT_<NAME> variables):\n%s\n%s", inputsHelp, envHelp)
}
