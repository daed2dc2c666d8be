package action

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/config"
)

// C3: the prepare job says whether its publish job has anything to
// write. It has on a loop's first cycle (the status comment, the
// trigger) and on a fix; it has not on a wake of a PR with no loop, nor
// on an idle wake, even while the next wake is planned — then the
// hardened workflow starts no publish job (and builds no second binary).
func TestRule_C3_PrepareStartsNoPublishJobForAWakeThatWritesNothing(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	publish := func(what string, want bool) {
		t.Helper()
		res, reqs, err := h.job(config.ModePrepare)
		if err != nil {
			t.Fatal(err)
		}
		noWrites(t, reqs)
		if res.Publish != want {
			t.Errorf("%s: prepare says publish = %v, want %v", what, res.Publish, want)
		}
		if want {
			if _, _, err := h.job(config.ModePublish); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish("the loop's first cycle", true)
	// The engine is reviewing: the first wait is noted once...
	h.now = h.now.Add(3 * time.Minute)
	publish("the first wait", true)
	// ...and the wakes after it are idle.
	for range 2 {
		h.now = h.now.Add(4 * time.Minute)
		publish("an idle wake", false)
	}
	h.copilotSuggestion(t)
	publish("a fix", true)
}
