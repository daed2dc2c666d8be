package action

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// threadsWorld is a PR with n review threads from three engines that
// finished their reviews, each a finding, one in three with a suggestion
// block.
func threadsWorld(t *testing.T, n int) (*world, map[string]string) {
	t.Helper()
	w := newWorld(t, nil)
	head := w.fake.HeadSHA("octo", "app", 1)
	for i, a := range []string{"cursor", "copilot-pull-request-reviewer", "coderabbitai"} {
		rid, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: a, Body: "review", CommitSHA: head})
		if err != nil {
			t.Fatal(err)
		}
		commenter := a
		if a == "copilot-pull-request-reviewer" {
			commenter = "Copilot"
		}
		for j := i; j < n; j += 3 {
			body := fmt.Sprintf("**Finding %d**: the value is read before it is checked.", j)
			if j%3 == 0 {
				body += fmt.Sprintf("\n\n```suggestion\n\treturn %d\n```\n", j)
			}
			if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: commenter, ReviewID: rid,
				Path: fmt.Sprintf("calc/f%d.go", j/50), Line: 1 + j%20, CommitSHA: head, Body: body}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, cr := range []ghfake.CheckRunOptions{{Name: "Cursor Bugbot", AppSlug: "cursor"}, {Name: "CodeRabbit", AppSlug: "coderabbitai"}} {
		cr.HeadSHA, cr.Status, cr.Conclusion = head, "COMPLETED", "NEUTRAL"
		if _, err := w.fake.SetCheckRun("octo", "app", 1, cr); err != nil {
			t.Fatal(err)
		}
	}
	// A dry run decides on every finding (DD1, triage's input) and writes
	// nothing, so each cycle is the same.
	return w, map[string]string{"engines": "bugbot,copilot,coderabbit", "dry-run": "true"}
}

// C1: one cycle's cost on a PR with a busy PR's threads (150) and ten
// times as many: the requests grow by the observation's pages only (100
// threads a page), the allocations (observe, the engines' parsers, Decide,
// DD1, the report) linearly. Not parallel: AllocsPerRun counts the whole
// process.
func TestRule_C1_ACycleCostGrowsLinearlyInThreads(t *testing.T) {
	const busy = 150
	cost := func(n int) (requests int, allocs float64) {
		w, in := threadsWorld(t, n)
		var plan loop.Action
		allocs = testing.AllocsPerRun(1, func() {
			w.fake.ResetRequests()
			res, err := w.cycle("workflow_dispatch", dispatchPayload(1), in)
			if err != nil {
				t.Fatal(err)
			}
			plan = res.PRs[0].Plan.Action
		})
		if plan != loop.ActionFix {
			t.Fatalf("plan %s at %d threads", plan, n)
		}
		return actionRequests(w.fake), allocs
	}
	rs, as := cost(busy)
	rl, al := cost(10 * busy)
	t.Logf("%d threads: %d requests, %.0f allocations; %d threads: %d requests, %.0f allocations", busy, rs, as, 10*busy, rl, al)
	if pages := (10*busy + 99) / 100; rl > rs+pages {
		t.Errorf("requests: %d at %d threads, %d at %d: more than one per further page of 100 threads", rs, busy, rl, 10*busy)
	}
	if al > 13*as {
		t.Errorf("allocations grow faster than linearly: %.0f at %d threads, %.0f at %d (%.1f×, want ≤ 13×)", as, busy, al, 10*busy, al/as)
	}
	if per := al / float64(10*busy); per > 1000 {
		t.Errorf("allocations: %.0f per thread at %d threads, ceiling 1000", per, 10*busy)
	}
}

// C1: the scheduled sweep's requests do not grow with the open PRs: one
// read of the live loops (the PRs carrying the live label) and one
// dispatch per live loop, with 2 open PRs and ten times as many (each PR
// of the fake is a git commit: 20 keep the test short;
// TestRule_SW2_SweepDispatchesOneRunPerLiveLoopAndObservesNoPR counts 30).
func TestRule_C1_TheSweepCostIsFlatInOpenPRs(t *testing.T) {
	t.Parallel()
	cost := func(open int) int {
		w := newWorld(t, nil)
		w.busy(open, 1, open)
		w.fake.ResetRequests()
		if _, err := w.cycle("schedule", schedulePayload, nil); err != nil {
			t.Fatal(err)
		}
		if got := dispatchedPRs(w.fake); len(got) != 2 {
			t.Fatalf("%d open PRs: dispatched %v, want the 2 live loops", open, got)
		}
		return actionRequests(w.fake)
	}
	small, large := cost(2), cost(20)
	if large != small {
		t.Errorf("the sweep made %d requests with 2 open PRs and %d with 20, want the same", small, large)
	}
}
