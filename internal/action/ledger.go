package action

import (
	"context"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file reads what the cost ledger (CL1) counts of a cycle: the
// requests its clients sent and the clock. The arithmetic is
// loop.LedgerCost's.

// ledgered is what the ledger needs of a cycle's requests: the count at
// its start, what the ledger already holds of it, and the requests the
// plan still makes from the status comment's write on (loop.RequestsAhead),
// counted with that write.
type ledgered struct {
	// runsRead: this cycle read its wakes' runs (once, C5).
	runsRead bool
	base     loop.Requests
	counted  loop.CycleCost
	ahead    github.Counts
}

// requests is what this run's clients have sent so far.
func (c *prCycle) requests() loop.Requests {
	n := c.gh.Requests()
	if c.trigger != nil {
		t := c.trigger.Requests()
		n.Reads, n.Writes = n.Reads+t.Reads, n.Writes+t.Writes
	}
	// The push path's own client (TB13).
	n.Reads, n.Writes = n.Reads+c.pushRequests.Reads, n.Writes+c.pushRequests.Writes
	return loop.Requests{Reads: n.Reads, Writes: n.Writes}
}

// startLedger takes the request counts at the cycle's start.
func (c *prCycle) startLedger() {
	if c.gh != nil {
		c.ledger.base = c.requests()
	}
}

// ledgerCycle brings the cost ledger up to this cycle's cost so far (CL1).
func (c *prCycle) ledgerCycle() {
	if c.gh == nil {
		return
	}
	ahead := loop.Requests{Reads: c.ledger.ahead.Reads, Writes: c.ledger.ahead.Writes}
	cost := loop.CostSoFar(c.Now().Sub(c.started), c.ledger.base, c.requests(), ahead)
	if c.prepared != nil {
		// C5: the publish job carries out a cycle the prepare job
		// started: both jobs are the wake's.
		cost = cost.WithJob(c.prepared.PrepareTime())
	}
	c.st, c.ledger.counted = loop.LedgerCost(c.st, c.ledger.counted, cost)
}

// idleRunsLookback is how long before its job started a cycle's own run
// may have been queued: the window of the loop's first read of its runs.
const idleRunsLookback = time.Hour

// readIdleRuns counts into the ledger the wakes of this PR that wrote
// nothing since its last write (C5): one request per writing cycle, the
// runs of the loop's own workflow created since then (loop.LedgerIdleRuns
// decides which count). Outside a workflow run there are none; a token
// that may not read Actions (`actions: read`) leaves them uncounted, and
// the ledger says so.
func (c *prCycle) readIdleRuns(ctx context.Context) {
	if c.ledger.runsRead || c.gh == nil || c.st.Status == "" {
		return
	}
	c.ledger.runsRead = true
	file := c.cfg.WorkflowFile()
	if file == "" || c.cfg.RunID == 0 {
		return
	}
	runs, total, err := c.gh.ListOwnRuns(ctx, c.owner, c.repo, file, loop.IdleRunsSince(c.st, c.started, idleRunsLookback))
	switch {
	case github.IsPermission(err) || github.IsNotFound(err):
		c.st = loop.LedgerIdleUnread(c.st, "the token cannot read Actions (`actions: read`)")
		return
	case err != nil:
		c.Log.Warn("cost ledger: the workflow's runs could not be read; idle wakes wait for the next write", "pr", c.number, "err", err)
		return
	}
	seen := make([]loop.RunSeen, 0, len(runs))
	for _, r := range runs {
		seen = append(seen, loop.RunSeen{ID: r.ID, Title: r.DisplayTitle, PRs: r.PRs, Completed: r.Status == "completed", Conclusion: r.Conclusion,
			Created: r.CreatedAt, Started: r.RunStartedAt, Updated: r.UpdatedAt})
	}
	if total > len(runs) {
		// More runs of the workflow (all PRs') since the last write than
		// one page: the oldest are not read, and not counted
		// (docs/costs.md says so); the request stays one.
		c.Log.Info("cost ledger: more runs since the last write than one page; the oldest are not counted", "pr", c.number, "runs", total, "read", len(runs))
	}
	c.st = loop.LedgerIdleRuns(c.st, c.number, c.cfg.RunID, seen)
}
