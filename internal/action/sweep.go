package action

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file is the scheduled sweep (SW1, SW2) and the API budgets the
// loop reads (B7).

// LiveLabel marks a PR whose loop is live (loop.LiveLabel, SW1). A label
// was chosen over searching for the status comment's marker because the
// search API does not index HTML comments and costs a request of its own
// per page; a label is read with the observation (no extra request).
const LiveLabel = loop.LiveLabel

// livePRs is the sweep's read: the open PRs carrying LiveLabel, oldest
// first, and the default branch to dispatch on.
func (r *runner) livePRs(ctx context.Context, w event.Wake) ([]int, string, error) {
	refs, def, err := r.gh.ListLabeledPullRequests(ctx, w.Owner, w.Repo, LiveLabel)
	if err != nil {
		return nil, "", fmt.Errorf("listing the live loops for the sweep: %w", err)
	}
	out := make([]int, 0, len(refs))
	for _, p := range refs {
		out = append(out, p.Number)
	}
	slices.Sort(out)
	return out, def, nil
}

// sweep advances every live loop: in dispatch mode one workflow run per
// loop (W5's re-dispatch, with `pr`), each in its own concurrency group and
// drawing nothing from this job; inline (or when this workflow cannot be
// dispatched) at most sweepBudget loops are cycled here, one after another.
func (r *runner) sweep(ctx context.Context, wake event.Wake) ([]int, []PRResult, error) {
	prs, def, err := r.livePRs(ctx, wake)
	if err != nil {
		return nil, nil, err
	}
	file := workflowFile(r.cfg.WorkflowRef)
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

// rateBudgets are the client's last known budgets, for the loop (B7).
func rateBudgets(gh *github.Client) (core, gql *github.RateBudget) {
	if b, ok := gh.RateLimit("core"); ok {
		core = &b
	}
	if b, ok := gh.RateLimit("graphql"); ok {
		gql = &b
	}
	return core, gql
}

// loopBudgets passes the API budgets GitHub last reported into the loop's
// observation (B7); unknown budgets stay nil and never defer a cycle.
func loopBudgets(gh *github.Client) (core, gql *loop.Budget) {
	conv := func(b *github.RateBudget) *loop.Budget {
		if b == nil {
			return nil
		}
		return &loop.Budget{Resource: b.Resource, Limit: b.Limit, Remaining: b.Remaining, ResetAt: b.Reset}
	}
	c, g := rateBudgets(gh)
	return conv(c), conv(g)
}

// readBudget reads the REST API budget for the loop's decision (B7) when
// no REST response of this run carried it yet, from GET /rate_limit,
// which GitHub does not count against any budget; the GraphQL one comes
// with the observation. A failed read leaves it unknown. A cycle reads it
// once, before it decides.
func (c *prCycle) readBudget(ctx context.Context) {
	if _, ok := c.gh.RateLimit("core"); ok {
		return
	}
	if err := c.gh.ReadRateLimits(ctx); err != nil {
		c.Log.Warn("reading the API budget", "err", err)
	}
}
