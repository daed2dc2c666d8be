package loop

import "fmt"

// StartPolicy says which wakes may start a loop on a PR that has none
// (the `start-on` input). A running loop keeps waking on engine events
// whatever the policy; a finished one is restarted only by a command (H8).
type StartPolicy string

// Start policies.
const (
	// StartOnCommand starts a loop only when asked: a maintainer's
	// `start` command, the review-loop label, or a workflow_dispatch.
	StartOnCommand StartPolicy = "command"
	// StartOnAuto starts a loop on any wake of an open PR (an engine
	// event, a push).
	StartOnAuto StartPolicy = "auto"
)

// MayStartLoop reports whether a wake may start a loop on a PR with no
// loop; asked is true for a start command, the label and a dispatch.
// Anything but auto is taken as command: paid engines are triggered and
// fixes pushed only where someone asked.
func MayStartLoop(p StartPolicy, asked bool) bool {
	return asked || p == StartOnAuto
}

// FailClosed is rule SC3: a loop whose state is lost (lost says how; ""
// when the state was found or there never was one) is never silently
// replaced by a new one. Only a `reset` command goes on, with a notice
// for the status comment; every other wake stops without acting, with a
// refusal naming the way out.
func FailClosed(lost string, reset bool, pr int, phrase string) (notice, refusal string) {
	switch {
	case lost == "":
		return "", ""
	case reset:
		return "reset: " + lost + "; a new loop starts", ""
	}
	return "", fmt.Sprintf("PR #%d: %s: this cycle stops without acting rather than start a new loop over it; comment `%s reset` to start over (SC3)", pr, lost, phrase)
}
