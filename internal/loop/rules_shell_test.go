package loop

import (
	"fmt"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// CL1: a cycle that writes its status comment twice counts its job
// minutes, its requests and itself once: the second write adds only what
// came since the first.
func TestRule_CL1_aSecondWriteAddsOnlyWhatCameSince(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	var counted CycleCost
	start := Requests{Reads: 4, Writes: 1}
	first := CostSoFar(90*time.Second, start, Requests{Reads: 14, Writes: 4}, Requests{Writes: 2})
	st, counted = LedgerCost(st, counted, first)
	if l := st.Ledger; l.JobMinutes != 2 || l.Cycles != 1 || l.APIReads != 10 || l.APIWrites != 5 {
		t.Fatalf("after the first write: ledger %+v, want 2 minutes, 1 cycle, 10 reads, 5 writes", *l)
	}
	second := CostSoFar(150*time.Second, start, Requests{Reads: 18, Writes: 7}, Requests{})
	st, counted = LedgerCost(st, counted, second)
	if l := st.Ledger; l.JobMinutes != 3 || l.Cycles != 1 || l.APIReads != 14 || l.APIWrites != 6 {
		t.Errorf("after the second write: ledger %+v, want 3 minutes, still 1 cycle, 14 reads, 6 writes", *l)
	}
	if counted != second {
		t.Errorf("counted %+v, want %+v", counted, second)
	}
	// The next cycle (counted nothing yet) is a cycle of its own.
	st, _ = LedgerCost(st, CycleCost{}, CostSoFar(time.Second, Requests{}, Requests{Reads: 1}, Requests{}))
	if l := st.Ledger; l.Cycles != 2 || l.JobMinutes != 4 {
		t.Errorf("the next cycle: ledger %+v, want 2 cycles, 4 minutes", *l)
	}
}

// CL1: a PR with no loop (no status yet) has no ledger to count in.
func TestRule_CL1_noLedgerWithoutALoop(t *testing.T) {
	t.Parallel()
	st, counted := LedgerCost(state.New(), CycleCost{}, CostSoFar(time.Minute, Requests{}, Requests{Reads: 3}, Requests{}))
	if st.Ledger != nil || counted != (CycleCost{}) {
		t.Errorf("ledger %+v counted %+v on a PR with no loop", st.Ledger, counted)
	}
}

// CL1: the reviews the loop asked for are the triggers it sent: not one
// skipped as a duplicate (T5), refused for a quota (T8), failed (T6) or
// unavailable (the engine reviews pushes by itself).
func TestRule_CL1_onlySentTriggersAreAskedForReviews(t *testing.T) {
	t.Parallel()
	st := LedgerTriggers(active(sha1, "bugbot"), []TriggerResult{
		{Engine: "bugbot", SHA: sha1, SignalID: 7},
		{Engine: "copilot", SHA: sha1},
		{Engine: "claude", SHA: sha1, Skipped: true, SignalID: 3},
		{Engine: "gemini", SHA: sha1, Quota: &QuotaNotice{At: t0, Text: "quota"}},
		{Engine: "coderabbit", SHA: sha1, Err: "HTTP 502"},
		{Engine: "cursor", SHA: sha1, Unavailable: true},
		{Engine: "copilot", SHA: sha2},
	})
	l := st.Ledger
	if l == nil {
		t.Fatal("no ledger")
	}
	want := map[string]int{"bugbot": 1, "copilot": 2}
	if len(l.Requested) != len(want) || l.Requested["bugbot"] != 1 || l.Requested["copilot"] != 2 {
		t.Errorf("requested %v, want %v", l.Requested, want)
	}
	if l.AskedSHA["copilot"] != sha2 {
		t.Errorf("copilot asked for %q, want the later head %s", l.AskedSHA["copilot"], sha2)
	}
	if got := LedgerTriggers(st, nil); got.Ledger.Requested["bugbot"] != 1 {
		t.Errorf("no triggers changed the ledger: %v", got.Ledger.Requested)
	}
}

// T5: the duplicate check looks at the PR's last comment. A trigger the
// loop posts as itself is a duplicate only of its own login's comment; one
// posted with the user token (whose login the loop does not know) is a
// duplicate of an identical recent comment by anyone.
func TestRule_T5_whoseCommentCountsAsOurTrigger(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	req := TriggerRequest{Engine: "bugbot", SHA: sha1}
	mine := Comment{ID: 41, Author: "review-loop[bot]", Body: "bugbot run", CreatedAt: t0}
	theirs := Comment{ID: 42, Author: "octocat", Body: "bugbot run", CreatedAt: t0}
	now, window := t0.Add(time.Minute), 10*time.Minute
	for _, tc := range []struct {
		name   string
		last   Comment
		login  string
		asUser bool
		body   string
		skip   bool
	}{
		{"our own identical recent trigger", mine, "review-loop", false, "bugbot run", true},
		{"someone else's identical comment, posting as ourselves", theirs, "review-loop", false, "bugbot run", false},
		{"someone else's identical comment, posting with the user token", theirs, "review-loop", true, "bugbot run", true},
		{"any identical comment when our login is unknown", theirs, "", false, "bugbot run", true},
		{"no comment on the PR", Comment{}, "review-loop", true, "bugbot run", false},
		{"an engine with no trigger comment", Comment{ID: 5, Author: "review-loop", CreatedAt: t0}, "review-loop", false, "", false},
		{"another body", mine, "review-loop", false, "@claude review", false},
	} {
		id, skip := SkipTrigger(st, req, tc.last, tc.login, tc.asUser, tc.body, now, window)
		if skip != tc.skip {
			t.Errorf("%s: skip %v, want %v", tc.name, skip, tc.skip)
		}
		if skip && id != tc.last.ID {
			t.Errorf("%s: skipped for comment %d, want %d", tc.name, id, tc.last.ID)
		}
	}
}

// B2: an in-job wait watches the head and, per engine, its signal, its
// latest review and its findings; anything else changing wakes nothing.
func TestRule_B2_theWaitWatchesHeadSignalReviewAndFindings(t *testing.T) {
	t.Parallel()
	base := []EngineView{{Engine: "bugbot", Signal: SignalRunning, SignalID: 4}, {Engine: "copilot", Signal: SignalNone}}
	before := WaitFingerprint(sha1, base)
	change := func(f func(v []EngineView)) []EngineView {
		vs := []EngineView{base[0], base[1]}
		f(vs)
		return vs
	}
	if got := WaitFingerprint(sha1, change(func(v []EngineView) { v[0].SignalStartedAt = t0; v[1].Installed = true })); got != before {
		t.Errorf("a field the wait does not watch changed the fingerprint: %q vs %q", got, before)
	}
	for name, views := range map[string][]EngineView{
		"signal":         change(func(v []EngineView) { v[0].Signal = SignalDone }),
		"signal id":      change(func(v []EngineView) { v[0].SignalID = 5 }),
		"latest review":  change(func(v []EngineView) { v[1].LatestReviewID = 9 }),
		"findings":       change(func(v []EngineView) { v[1].Findings = []Finding{{ID: "f1"}} }),
		"another engine": append(change(func([]EngineView) {}), EngineView{Engine: "claude"}),
	} {
		if WaitFingerprint(sha1, views) == before {
			t.Errorf("a change of %s left the fingerprint as it was", name)
		}
	}
	if WaitFingerprint(sha2, base) == before {
		t.Error("a new head left the fingerprint as it was")
	}
}

// B2: the wait polls every interval within its budget, and not at all
// when either is unset or the plan's next wake comes after the budget.
func TestRule_B2_howOftenTheWaitPolls(t *testing.T) {
	t.Parallel()
	now := t0
	for _, tc := range []struct {
		name             string
		wake             time.Time
		budget, interval time.Duration
		want             int
	}{
		{"every interval within the budget", time.Time{}, 5 * time.Minute, time.Minute, 5},
		{"a budget that is no multiple of the interval", time.Time{}, 150 * time.Second, time.Minute, 2},
		{"no budget", time.Time{}, 0, time.Minute, 0},
		{"no interval", time.Time{}, 5 * time.Minute, 0, 0},
		{"a wake within the budget", now.Add(3 * time.Minute), 5 * time.Minute, time.Minute, 5},
		{"a wake after the budget (T8 cooldown)", now.Add(time.Hour), 5 * time.Minute, time.Minute, 0},
	} {
		if got := WaitPolls(Plan{WakeAt: tc.wake}, now, tc.budget, tc.interval); got != tc.want {
			t.Errorf("%s: %d polls, want %d", tc.name, got, tc.want)
		}
	}
}

// SW2: the sweep gives each live loop a workflow run of its own when it
// fans out by dispatch and the workflow is known (not in a dry run, which
// dispatches nothing); otherwise it cycles at most budget loops in its own
// job, oldest first, and leaves the rest to the next sweep.
func TestRule_SW2_howTheSweepAdvancesTheLiveLoops(t *testing.T) {
	t.Parallel()
	prs := []int{3, 5, 8, 13}
	for _, tc := range []struct {
		name     string
		dispatch bool
		workflow string
		dryRun   bool
		budget   int
		want     Sweep
	}{
		{"dispatch", true, "review-loop.yml", false, 2, Sweep{Dispatch: prs}},
		{"dispatch without a known workflow", true, "", false, 2, Sweep{Inline: []int{3, 5}, Later: []int{8, 13}}},
		{"dispatch in a dry run", true, "review-loop.yml", true, 10, Sweep{Inline: prs}},
		{"inline within the budget", false, "review-loop.yml", false, 10, Sweep{Inline: prs}},
		{"inline over the budget", false, "review-loop.yml", false, 3, Sweep{Inline: []int{3, 5, 8}, Later: []int{13}}},
	} {
		got := PlanSweep(prs, tc.dispatch, tc.workflow, tc.dryRun, tc.budget)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if got := PlanSweep(nil, true, "review-loop.yml", false, 2); got.Dispatch == nil {
		t.Error("a sweep fanning out with no live loop does not say it dispatches")
	}
}

// C5: the ledger counts every job a wake starts. A single-job cycle is
// one job; in hardened mode the publish job's cycle counts the prepare
// job that prepared it too, with that job's own billed minutes; a second
// write of the same cycle counts no job again.
func TestRule_C5_LedgerCountsEveryJobAWakeStarts(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	st, _ = LedgerCost(st, CycleCost{}, CostSoFar(30*time.Second, Requests{}, Requests{Reads: 2}, Requests{}))
	if l := st.Ledger; l.Jobs != 1 || l.JobMinutes != 1 || l.Cycles != 1 {
		t.Fatalf("a single-job cycle: ledger %+v, want 1 job, 1 minute, 1 cycle", *l)
	}
	var counted CycleCost
	publish := CostSoFar(90*time.Second, Requests{}, Requests{Reads: 3, Writes: 2}, Requests{}).WithJob(150 * time.Second)
	st, counted = LedgerCost(st, counted, publish)
	if l := st.Ledger; l.Jobs != 3 || l.JobMinutes != 1+2+3 || l.Cycles != 2 {
		t.Fatalf("after a prepare and publish cycle: ledger %+v, want 3 jobs, 6 minutes (1, then 2 for publish and 3 for prepare), 2 cycles", *l)
	}
	again := CostSoFar(100*time.Second, Requests{}, Requests{Reads: 4, Writes: 3}, Requests{}).WithJob(150 * time.Second)
	st, _ = LedgerCost(st, counted, again)
	if l := st.Ledger; l.Jobs != 3 || l.Cycles != 2 {
		t.Errorf("a second write of the same cycle: ledger %+v, want still 3 jobs and 2 cycles", *l)
	}
}
