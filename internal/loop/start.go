package loop

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
