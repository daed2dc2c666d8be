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

// sweep advances every live loop as loop.PlanSweep says: it dispatches
// one workflow run per loop (with `pr`), or returns the loops to cycle in
// this job; a dispatch GitHub refuses sends the rest to this job.
func (r *runner) sweep(ctx context.Context, wake event.Wake) ([]int, []PRResult, error) {
	prs, def, err := observe.LivePRs(ctx, r.gh, wake.Owner, wake.Repo)
	if err != nil {
		return nil, nil, err
	}
	file := r.cfg.WorkflowFile()
	plan := loop.PlanSweep(prs, r.cfg.SweepFanout == config.SweepDispatch, file, r.cfg.DryRun, sweepBudget)
	if plan.Dispatch == nil {
		return r.inlineCap(prs), nil, nil
	}
	var done []PRResult
	for i, n := range plan.Dispatch {
		err := r.gh.DispatchWorkflow(ctx, wake.Owner, wake.Repo, file, def, map[string]any{"pr": strconv.Itoa(n)})
		if err != nil {
			r.gha.Warningf("review-loop: the sweep could not dispatch %s for PR #%d (%v): give the workflow a workflow_dispatch trigger with a `pr` input and `actions: write` (W5); cycling the live loops in this job instead", file, n, err)
			return r.inlineCap(plan.Dispatch[i:]), done, nil
		}
		done = append(done, PRResult{PR: n, Dispatched: true, Skipped: "dispatched its own run"})
	}
	r.gha.Noticef("review-loop: the sweep dispatched %d live loop(s), one run each", len(done))
	return nil, done, nil
}

// inlineCap are the live loops prs a sweep cycles in this job (SW2); it
// says when the budget leaves some for the next sweep.
func (r *runner) inlineCap(prs []int) []int {
	plan := loop.PlanSweep(prs, false, "", false, sweepBudget)
	if len(plan.Later) > 0 {
		r.gha.Noticef("review-loop: sweep budget of %d PRs reached; the rest wait for the next sweep", sweepBudget)
	}
	return plan.Inline
}
