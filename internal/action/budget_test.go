package action

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// B7 on the fake: with the repository's REST budget under the floor (50 of
// 1,000 left, floor 10%), a cycle that would only wait defers itself to the
// budget's reset and says so on the status comment; the cycle that has a
// finding to fix still fixes and pushes.
func TestRule_B7_UnderTheFloorAWaitingCycleDefersAndAFixCycleStillRuns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	w.fake.SetRateRemaining("github-actions", ghfake.ResourceCore, 50)
	reset := w.fake.RateLimit("github-actions", ghfake.ResourceCore).Reset

	// Copilot has not reviewed yet: a waiting cycle.
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), in)
	if err != nil {
		t.Fatal(err)
	}
	p := res.PRs[0].Plan
	if p.Action != loop.ActionWait || !p.WakeAt.Equal(reset) || !strings.Contains(p.Why, "B7") {
		t.Fatalf("plan %s wake %v (%s), want a wait deferred to the reset %v", p.Action, p.WakeAt, p.Why, reset)
	}
	if _, body := statusState(t, w.fake); !strings.Contains(body, "deferred to its reset") || !strings.Contains(body, "next wake planned at "+reset.UTC().Format(time.RFC3339)) {
		t.Fatalf("the status comment does not say the cycle deferred:\n%s", body)
	}

	// Copilot's review with a suggestion arrives: the fix cycle runs.
	w.now = w.now.Add(2 * time.Minute)
	head := w.fake.HeadSHA("octo", "app", 1)
	rid, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated 1 comment.", CommitSHA: head})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
		Body: "Add subtracts instead of adding.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	res, err = w.cycle("workflow_dispatch", dispatchPayload(1), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.PRs[0].Pushed == "" {
		t.Fatalf("the fix cycle did not run under the floor: plan %s (%s)", res.PRs[0].Plan.Action, res.PRs[0].Plan.Why)
	}
	if rl := w.fake.RateLimit("github-actions", ghfake.ResourceCore); rl.Remaining >= 50 {
		t.Fatalf("remaining %d: the fake's budget did not decrement", rl.Remaining)
	}
}
