package github_test

import (
	"context"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// S8: the observation reads whether each review is hidden (minimized), as
// Bugbot hides its own earlier reviews on rerun (ENGINES.md round 3).
func TestRule_S8_ObserveReadsWhetherAReviewIsHidden(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	e.f.AddUser("cursor", 206951365, true)
	hidden, err := e.f.AddReview("o", "r", e.pr, ghfake.ReviewOptions{Author: "cursor", Body: "✅ Bugbot reviewed your changes and found no new issues!"})
	if err != nil {
		t.Fatal(err)
	}
	shown, err := e.f.AddReview("o", "r", e.pr, ghfake.ReviewOptions{Author: "cursor", Body: "✅ Bugbot reviewed your changes and found no new issues!"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.f.MinimizeReview("o", "r", e.pr, hidden, "OUTDATED"); err != nil {
		t.Fatal(err)
	}
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]bool{}
	for _, r := range o.Reviews {
		got[r.DatabaseID] = r.IsMinimized
	}
	if len(got) != 2 || !got[hidden] || got[shown] {
		t.Errorf("isMinimized read as %v; want review %d hidden and %d shown", got, hidden, shown)
	}
}
