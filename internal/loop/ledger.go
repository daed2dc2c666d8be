package loop

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// The cost ledger (CL1) counts what the loop caused: the reviews it asked
// for, the reviews its pushes made engines run by themselves, its own
// Actions minutes and API requests.

func ledgerOf(s *state.State) *state.Ledger {
	if s.Ledger == nil {
		s.Ledger = &state.Ledger{}
	}
	l := s.Ledger
	if l.Requested == nil {
		l.Requested = map[string]int{}
	}
	if l.Automatic == nil {
		l.Automatic = map[string]int{}
	}
	if l.AskedSHA == nil {
		l.AskedSHA = map[string]string{}
	}
	if l.AutoSHA == nil {
		l.AutoSHA = map[string]string{}
	}
	return l
}

// LedgerRequested counts the reviews the loop asked for: engines whose
// trigger for sha was sent (not skipped as a duplicate, not refused, not
// unavailable). Each engine and head is counted once.
func LedgerRequested(st state.State, engines []string, sha string) state.State {
	if len(engines) == 0 {
		return st
	}
	s := st.Clone()
	l := ledgerOf(&s)
	for _, e := range engines {
		if l.AskedSHA[e] == sha {
			continue
		}
		l.Requested[e]++
		l.AskedSHA[e] = sha
	}
	return s
}

// LedgerAutomatic counts the automatic reviews the loop's pushes caused:
// on a head the loop pushed (st.LastPushSHA), an engine the loop did not
// ask for a review of that head shows a review signal there (a check run
// or a review), as Bugbot and CodeRabbit do on every push and Copilot
// does under the "review new pushes" ruleset. Each engine and head is
// counted once; a review of a head someone else pushed is not the loop's.
func LedgerAutomatic(st state.State, views []EngineView, head string) state.State {
	if head == "" || head != st.LastPushSHA {
		return st
	}
	var due []string
	for _, v := range sortedViews(views) {
		if v.Signal == SignalNone || !v.Installed {
			continue
		}
		if st.Ledger != nil && (st.Ledger.AskedSHA[v.Engine] == head || st.Ledger.AutoSHA[v.Engine] == head) {
			continue
		}
		due = append(due, v.Engine)
	}
	if len(due) == 0 {
		return st
	}
	s := st.Clone()
	l := ledgerOf(&s)
	for _, e := range due {
		l.Automatic[e]++
		l.AutoSHA[e] = head
	}
	return s
}

// JobMinutes is what GitHub bills for one job of wall time d: whole
// minutes, rounded up, at least one.
func JobMinutes(d time.Duration) int {
	if d <= 0 {
		return 1
	}
	m := int(d / time.Minute)
	if d%time.Minute != 0 {
		m++
	}
	return m
}

// LedgerCycle adds to the ledger a cycle's job minutes (JobMinutes of its
// wall time; a cycle that writes twice adds the difference), a new cycle
// when cycle is set, and its API requests.
func LedgerCycle(st state.State, minutes int, cycle bool, reads, writes int64) state.State {
	s := st.Clone()
	l := ledgerOf(&s)
	l.JobMinutes += max(minutes, 0)
	if cycle {
		l.Cycles++
	}
	l.APIReads += max(reads, 0)
	l.APIWrites += max(writes, 0)
	return s
}

// RequestsAhead are the API requests a cycle still makes from effects[0]
// on, when effects[0] is the status comment's write: the write itself (a
// checked write reads the comment before and after it; a new comment is
// created, then written again with its own id, SC4) and the single
// writes planned after it (label, re-dispatch). The ledger written with
// the comment counts them (CL1), since no later write of the cycle may
// count them; effects of unknown cost after it are not counted.
func RequestsAhead(effects []Effect, newComment bool) (reads, writes int64) {
	for i, e := range effects {
		switch e.Kind {
		case EffectSave, EffectClaim:
			if i > 0 {
				return reads, writes // a later write counts what comes after it
			}
			switch {
			case newComment:
				writes += 2
			case e.Checked:
				reads, writes = reads+2, writes+1
			default:
				writes++
			}
		case EffectLabel, EffectRedispatch:
			writes++
		}
	}
	return reads, writes
}

// Requests are API requests (CL1): reads (GET, HEAD, GraphQL queries) and
// writes (everything else).
type Requests struct{ Reads, Writes int64 }

// CycleCost is what a cycle has cost so far (CL1): its jobs (C5: the
// job running it, and in hardened mode the prepare job before it) and
// their billed minutes, and its API requests.
type CycleCost struct {
	Minutes int
	Jobs    int
	Requests
}

// WithJob is c with one more job of wall time d: the hardened prepare
// job whose cycle the publish job carries out (C5). Each job is billed
// on its own, rounded up to a whole minute.
func (c CycleCost) WithJob(d time.Duration) CycleCost {
	c.Jobs++
	c.Minutes += JobMinutes(d)
	return c
}

// CostSoFar is the cost of a cycle that has run for d, whose clients had
// sent start requests when it began and have sent sent now: its one job,
// that job's minutes (JobMinutes) and the requests it sent, with ahead
// (RequestsAhead) counted as sent, since the write that records them
// comes before them.
func CostSoFar(d time.Duration, start, sent, ahead Requests) CycleCost {
	return CycleCost{Minutes: JobMinutes(d), Jobs: 1, Requests: Requests{Reads: sent.Reads - start.Reads + ahead.Reads, Writes: sent.Writes - start.Writes + ahead.Writes}}
}

// LedgerCost brings the ledger up to a cycle's cost so far (CL1): it adds
// what came since counted (what the ledger already holds of this cycle,
// zero before its first write), and the cycle itself on its first write;
// it returns the state and what the ledger then holds of the cycle. A PR
// with no loop (no status yet) has no ledger: nothing is counted.
func LedgerCost(st state.State, counted, cost CycleCost) (state.State, CycleCost) {
	if st.Status == "" {
		return st, counted
	}
	st = LedgerCycle(st, cost.Minutes-counted.Minutes, counted.Minutes == 0, cost.Reads-counted.Reads, cost.Writes-counted.Writes)
	if jobs := cost.Jobs - counted.Jobs; jobs > 0 {
		st.Ledger.Jobs += jobs
	}
	return st, cost
}

// LedgerTriggers counts the reviews the loop asked for (LedgerRequested):
// the triggers it sent, not those skipped as duplicates (T5), refused for
// a quota (T8), failed (T6) or unavailable. Heads are counted in order.
func LedgerTriggers(st state.State, results []TriggerResult) state.State {
	bySHA := map[string][]string{}
	for _, r := range results {
		if r.Skipped || r.Unavailable || r.Quota != nil || r.Err != "" {
			continue
		}
		bySHA[r.SHA] = append(bySHA[r.SHA], r.Engine)
	}
	for _, sha := range slices.Sorted(maps.Keys(bySHA)) {
		st = LedgerRequested(st, bySHA[sha], sha)
	}
	return st
}

// RunSeen is one run of the loop's own workflow as the ledger reads it
// (C5): its id, its display title (the run-name the example workflows
// give, RunTitle), the PRs GitHub attached to it, whether it completed
// and how, and its times.
type RunSeen struct {
	ID         int64
	Title      string
	PRs        []int
	Completed  bool
	Conclusion string
	Created    time.Time
	Started    time.Time
	Updated    time.Time
}

// RunTitle is the run-name the example workflows give a wake of PR n:
// what ties a run to its PR whatever its event (an issue comment's or a
// check run's run hangs off the default branch and names no PR).
func RunTitle(n int) string { return "review-loop #" + strconv.Itoa(n) }

// maxWrote bounds the runs above the cursor remembered as having written
// the ledger themselves (R1): runs in flight at once, a handful.
const maxWrote = 32

// IdleRunsSince is when the runs a writing cycle reads begin (C5): the
// creation of the newest run the ledger settled, or, on the loop's first
// write, lookback before the cycle started, so that the cycle's own run,
// queued before its job started, is among them.
func IdleRunsSince(st state.State, started time.Time, lookback time.Duration) time.Time {
	if st.Ledger != nil && !st.Ledger.RunsSince.IsZero() {
		return st.Ledger.RunsSince
	}
	return started.Add(-lookback).Truncate(time.Second)
}

// LedgerIdleRuns counts into the ledger the jobs of this PR's wakes that
// wrote nothing (C5, C2): of the runs of the loop's own workflow newer
// than the ledger's cursor, a completed run of PR pr (titled RunTitle(pr)
// or attached to it) that is not self (this cycle's run, counted by its
// own write) and did not write the ledger itself (Wrote) started one job
// — the single job, or in hardened mode prepare, since publish starts
// only when there is something to write — billed for its wall time; a
// run GitHub skipped or cancelled before it started started none. The
// cursor moves over every run settled in id order and stops before the
// first run of this PR still in flight, which the next write reads
// again. self is then remembered as having written. The first read only
// sets the cursor at self: earlier runs were no loop's. A PR with no loop
// has no ledger: nothing is counted.
func LedgerIdleRuns(st state.State, pr int, self int64, runs []RunSeen) state.State {
	if st.Status == "" {
		return st
	}
	s := st.Clone()
	l := ledgerOf(&s)
	l.IdleUncounted = ""
	if l.RunsAfter == 0 {
		// The ledger's first read: the runs before this one are not the
		// loop's (a wake of a PR with no loop writes no ledger), so the
		// count starts after it.
		l.RunsAfter = self
		if i := slices.IndexFunc(runs, func(r RunSeen) bool { return r.ID == self }); i >= 0 {
			l.RunsSince = runs[i].Created
		}
		return remember(s, self)
	}
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(a, b RunSeen) int { return cmp.Compare(a.ID, b.ID) })
	for _, r := range sorted {
		if r.ID <= l.RunsAfter {
			continue
		}
		ours := r.Title == RunTitle(pr) || slices.Contains(r.PRs, pr)
		switch {
		case r.ID == self || slices.Contains(l.Wrote, r.ID) || !ours:
		case !r.Completed:
			return remember(s, self)
		case r.Conclusion != "skipped" && r.Conclusion != "cancelled" && !r.Started.IsZero():
			l.Jobs++
			l.IdleJobs++
			l.JobMinutes += JobMinutes(r.Updated.Sub(r.Started))
		}
		l.RunsAfter, l.RunsSince = r.ID, r.Created
	}
	return remember(s, self)
}

// remember notes self among the runs that wrote the ledger and drops
// those the cursor passed.
func remember(s state.State, self int64) state.State {
	l := s.Ledger
	if self > l.RunsAfter && !slices.Contains(l.Wrote, self) {
		l.Wrote = append(l.Wrote, self)
	}
	l.Wrote = slices.DeleteFunc(l.Wrote, func(id int64) bool { return id <= l.RunsAfter })
	if len(l.Wrote) > maxWrote {
		l.Wrote = l.Wrote[len(l.Wrote)-maxWrote:]
	}
	return s
}

// LedgerIdleUnread records why this write could not read the idle wakes
// (C5): the ledger then says they are not counted.
func LedgerIdleUnread(st state.State, why string) state.State {
	if st.Status == "" {
		return st
	}
	s := st.Clone()
	ledgerOf(&s).IdleUncounted = why
	return s
}
