package action

import (
	"context"
	"strconv"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
)

// This file is the scheduled sweep (SW1, SW2).

// LiveLabel marks a PR whose loop is live (loop.LiveLabel, SW1); the
// sweep finds the live loops by it (observe.LivePRs).
const LiveLabel = loop.LiveLabel

// sweep advances every live loop: in dispatch mode one workflow run per
// loop (W5's re-dispatch, with `pr`), each in its own concurrency group and
// drawing nothing from this job; inline (or when this workflow cannot be
// dispatched) at most sweepBudget loops are cycled here, one after another.
func (r *runner) sweep(ctx context.Context, wake event.Wake) ([]int, []PRResult, error) {
	prs, def, err := observe.LivePRs(ctx, r.gh, wake.Owner, wake.Repo)
	if err != nil {
		return nil, nil, err
	}
	file := r.cfg.WorkflowFile()
	if r.cfg.SweepFanout != config.SweepDispatch || file == "" || r.cfg.DryRun {
		return r.inlineCap(prs), nil, nil
	}
	var done []PRResult
	for i, n := range prs {
		err := r.gh.DispatchWorkflow(ctx, wake.Owner, wake.Repo, file, def, map[string]any{"pr": strconv.Itoa(n)})
		if err != nil {
			r.gha.Warningf("review-loop: the sweep could not dispatch %s for PR #%d (%v): give the workflow a workflow_dispatch trigger with a `pr` input and `actions: write` (W5); cycling the live loops in this job instead", file, n, err)
			return r.inlineCap(prs[i:]), done, nil
		}
		done = append(done, PRResult{PR: n, Dispatched: true, Skipped: "dispatched its own run"})
	}
	r.gha.Noticef("review-loop: the sweep dispatched %d live loop(s), one run each", len(done))
	return nil, done, nil
}

// inlineCap is sweep-fanout inline's bound, as before fan-out existed.
func (r *runner) inlineCap(prs []int) []int {
	if len(prs) > sweepBudget {
		r.gha.Noticef("review-loop: sweep budget of %d PRs reached; the rest wait for the next sweep", sweepBudget)
		prs = prs[:sweepBudget]
	}
	return prs
}
