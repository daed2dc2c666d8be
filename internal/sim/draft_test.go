package sim

import (
	"context"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/internal/loop"
)

// IN3: the loop marks the draft ready while Claude's draft-time run is
// still going. The ready_for_review run is a workflow run, and a check run,
// of its own: the draft-time run neither absorbs it nor overwrites its
// check run when it completes empty.
func TestClaudeReadyForReviewWhileTheDraftRunIsGoingIsANewRun(t *testing.T) {
	t.Parallel()
	sc := botScenario(t, Claude, "      - clean: true\n")
	sc.PR.Draft = true
	w, gh, user := newWorld(t, sc)
	w.Advance(time.Minute)
	obs := observe(t, w, gh)
	if err := user.MarkReadyForReview(context.Background(), obs.NodeID); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	runs := 0
	for _, cr := range w.Fake.PR(w.Owner, w.Repo, w.Number).CheckRuns {
		if cr.Name == ClaudeJob {
			runs++
		}
	}
	if runs != 2 {
		t.Fatalf("%d Claude check runs, want the draft-time run and the ready_for_review run", runs)
	}
	c := claude.New(claude.Options{})
	w.Advance(time.Minute) // the draft-time run completes, posting nothing
	if v := c.Observe(observe(t, w, gh), claudeEnv(w)); v.Signal == loop.SignalDone {
		t.Fatalf("read the draft-time run: %s %s %q", v.Signal, v.Material, v.MaterialNote)
	}
	w.Advance(time.Minute)
	if v := c.Observe(observe(t, w, gh), claudeEnv(w)); v.Signal != loop.SignalDone || v.Material != loop.MaterialOK {
		t.Fatalf("view %s %s %q", v.Signal, v.Material, v.MaterialNote)
	}
}
