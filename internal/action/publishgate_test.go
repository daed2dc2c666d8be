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

// C5: the ledger counts every job a wake starts. In hardened mode a wake
// that publishes is two jobs, prepare and publish, and the publish job's
// write counts both, each job's minutes rounded up on its own; an idle
// wake's prepare job starts no publish job and writes nothing.
func TestRule_C5_HardenedLedgerCountsThePrepareAndThePublishJob(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	both := func() {
		t.Helper()
		for _, mode := range []string{config.ModePrepare, config.ModePublish} {
			if _, _, err := h.job(mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	both()
	st, _ := statusState(t, h.fake)
	if l := st.Ledger; l == nil || l.Jobs != 2 || l.Cycles != 1 || l.JobMinutes != 2 {
		t.Fatalf("after the first wake (prepare, publish): ledger %+v, want 2 jobs, 2 job minutes, 1 cycle", st.Ledger)
	}
	h.now = h.now.Add(3 * time.Minute)
	both()
	st, _ = statusState(t, h.fake)
	if l := st.Ledger; l.Jobs != 4 || l.Cycles != 2 || l.JobMinutes != 4 {
		t.Errorf("after the second wake: ledger %+v, want 4 jobs, 4 job minutes, 2 cycles", *l)
	}
}
