package action

import (
	"strings"
	"testing"
)

// The default branch's workflow files come with every observation, so an
// engine whose adapter reads them (Claude) has them in every cycle, at no
// extra request: named explicitly on a repository with no Claude workflow,
// it is reported not installed instead of being waited for (IN2), and the
// same files carry its traps (no --comment, J3).
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
	// One repository query is IN2's read of the recent pull requests, for
	// evidence of an engine named but not seen; the workflow files are
	// never read separately.
	n := 0
	for _, r := range w.fake.Requests() {
		if r.GraphQL == "repository" && r.Operation == "query" {
			n++
		}
	}
	if n > 1 {
		t.Errorf("%d repository queries, want at most the one of the recent pull requests", n)
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
