package loop

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// C5: a write counts each run of its PR that wrote nothing once: runs it
// wrote itself are remembered, a run in flight stops the cursor until
// the next write, and another PR's run or a skipped one is no job.
func TestRule_C5_LedgerIdleRunsCountsEachIdleRunOnce(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(id int64, pr int, done bool, conclusion string, d time.Duration) RunSeen {
		at := t0.Add(time.Duration(id) * time.Minute)
		r := RunSeen{ID: id, Title: RunTitle(pr), Completed: done, Conclusion: conclusion, Created: at, Started: at}
		if done {
			r.Updated = at.Add(d)
		}
		return r
	}
	st := state.New()
	st.Status = state.StatusActive
	// The first write: the runs before it were no loop's (a wake of a PR
	// with no loop, 9, that ran a job all the same) and are not counted.
	st = LedgerIdleRuns(st, 1, 10, []RunSeen{run(9, 1, true, "success", time.Minute), run(10, 1, false, "", 0)})
	if l := st.Ledger; l.Jobs != 0 || l.RunsAfter != 10 {
		t.Fatalf("first write: jobs %d, cursor %d; want 0 and 10", l.Jobs, l.RunsAfter)
	}
	// The next write (run 15) sees: 10 done (itself, counted by its write),
	// 11 idle (90 s: 2 minutes), 12 another PR's, 13 skipped, 14 in flight
	// (a wake of this PR still running), 15 itself, 16 idle after it.
	runs := []RunSeen{run(10, 1, true, "success", time.Minute), run(11, 1, true, "success", 90*time.Second), run(12, 2, true, "success", time.Minute),
		run(13, 1, true, "skipped", 0), run(14, 1, false, "", 0), run(15, 1, false, "", 0), run(16, 1, true, "success", time.Minute)}
	st = LedgerIdleRuns(st, 1, 15, runs)
	l := st.Ledger
	if l.Jobs != 1 || l.IdleJobs != 1 || l.JobMinutes != 2 || l.RunsAfter != 13 {
		t.Fatalf("second write: jobs %d, idle %d, minutes %d, cursor %d; want 1, 1, 2, 13 (stopped before 14, in flight)", l.Jobs, l.IdleJobs, l.JobMinutes, l.RunsAfter)
	}
	// The third write (run 17): 14 ended idle, 15 wrote (remembered), 16 idle.
	runs[4] = run(14, 1, true, "success", time.Minute)
	runs[5] = run(15, 1, true, "success", time.Minute)
	runs = append(runs, run(17, 1, false, "", 0))
	st = LedgerIdleRuns(st, 1, 17, runs)
	l = st.Ledger
	if l.Jobs != 3 || l.IdleJobs != 3 || l.RunsAfter != 17 || len(l.Wrote) != 0 {
		t.Fatalf("third write: jobs %d, idle %d, cursor %d, wrote %v; want 3, 3, 17, none", l.Jobs, l.IdleJobs, l.RunsAfter, l.Wrote)
	}
	// The same runs read again count nothing more.
	again := LedgerIdleRuns(st, 1, 17, runs)
	if again.Ledger.Jobs != 3 {
		t.Fatalf("read again: jobs %d, want 3", again.Ledger.Jobs)
	}
	// A PR with no loop has no ledger.
	if s := LedgerIdleRuns(state.New(), 1, 17, runs); s.Ledger != nil {
		t.Fatalf("a PR with no loop got a ledger")
	}
}
