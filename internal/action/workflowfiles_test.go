package action

import (
	"strings"
	"testing"
)

// An engine whose adapter reads .github/workflows (Claude) gets them in
// every cycle it is selected, not only when the loop picks the default
// set: named explicitly on a repository with no Claude workflow, it is
// reported not installed instead of being waited for (IN2), and the same
// files carry its traps (no --comment, J3).
func TestRule_IN2_ExplicitClaudeIsReadAgainstTheWorkflowFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "claude", "trigger-token": "ghp_maintainer"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PRs) != 1 {
		t.Fatalf("results %+v", res.PRs)
	}
	for _, e := range res.PRs[0].Plan.Engines {
		if e.Engine == "claude" {
			if !strings.Contains(e.Note, "not installed") {
				t.Fatalf("claude %+v, want it reported not installed", e)
			}
			return
		}
	}
	t.Fatalf("no claude in %+v", res.PRs[0].Plan.Engines)
}
