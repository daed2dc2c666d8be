package action

import (
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
	base    loop.Requests
	counted loop.CycleCost
	ahead   github.Counts
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
