package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/report"
)

// errNoEventPath: inside Actions the runner always sets GITHUB_EVENT_PATH;
// without it the run cannot know what woke it, and guessing would act on
// the wrong thing.
var errNoEventName = errors.New("GITHUB_EVENT_NAME is not set: review-loop runs as a step of a workflow, where the runner sets it to the name of the event that started the run")

var errNoEventPath = errors.New("GITHUB_EVENT_PATH is not set: inside GitHub Actions the runner sets it to the event payload; do not override it in the workflow's env")

// prError names the PR an error is about, unless the error names it
// already: each context is named once.
func prError(n int, err error) error {
	if strings.Contains(err.Error(), fmt.Sprintf("#%d:", n)) || strings.Contains(err.Error(), fmt.Sprintf("#%d ", n)) {
		return err
	}
	return fmt.Errorf("PR #%d: %w", n, err)
}

// finishError sets the outputs and writes the job summary of a cycle that
// failed (H9): they report the loop as the saved state has it, and the
// summary says what failed.
func (c *prCycle) finishError(err error) {
	if c.obs == nil {
		c.obs = &github.Observation{}
	}
	c.notices = append(c.notices, "this cycle failed: "+err.Error())
	c.finish()
}

// Outputs of a run that failed before it reached a pull request's loop,
// and of a wake on a pull request that has no loop and may not start one.
const (
	verdictErrored              = report.VerdictErrored
	phaseError     report.Phase = "error"
	phaseNone      report.Phase = "none"
)

// noLoopOutputs sets every output and writes the job summary of a run
// that acted on no loop: a wake on a PR without one, an event that wakes
// nothing, a sweep that found nothing to cycle. The phase is none, the
// verdict pending, no commits and no findings (H9); nothing is written to
// GitHub.
func noLoopOutputs(gha *githubactions.Action, getenv func(string) string, title, why string) map[string]string {
	out := map[string]string{
		report.OutputVerdict: string(report.VerdictPending), report.OutputReason: "", report.OutputPhase: string(phaseNone),
		report.OutputCommits: "0", report.OutputActiveFindings: "0",
	}
	if getenv("GITHUB_OUTPUT") != "" {
		for _, k := range sortedKeys(out) {
			gha.SetOutput(k, out[k])
		}
	}
	if getenv("GITHUB_STEP_SUMMARY") != "" {
		gha.AddStepSummary("### review-loop — " + title + "\n\n" + report.Escape(why, 2000) + "\n")
	}
	return out
}

// FailOutputs sets every output and writes the job summary for a run that
// failed before it could read a loop (bad inputs, no event): verdict
// errored, reason error, phase error (H9).
func FailOutputs(gha *githubactions.Action, getenv func(string) string, err error) {
	if getenv("GITHUB_OUTPUT") != "" {
		for _, kv := range [][2]string{
			{report.OutputVerdict, string(verdictErrored)}, {report.OutputReason, "error"}, {report.OutputPhase, string(phaseError)},
			{report.OutputCommits, "0"}, {report.OutputActiveFindings, "0"},
		} {
			gha.SetOutput(kv[0], kv[1])
		}
	}
	if getenv("GITHUB_STEP_SUMMARY") != "" {
		gha.AddStepSummary("### ❌ review-loop — the run failed\n\n" + report.Escape(err.Error(), 2000) + "\n")
	}
}
