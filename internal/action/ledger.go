package action

import (
	"maps"
	"slices"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file counts a cycle's cost for the ledger (CL1): job minutes,
// API requests and the reviews the loop asked for.

// ledgered is what this cycle already added to the cost ledger, so that a
// cycle writing its status comment twice counts its minutes and requests
// once.
type ledgered struct {
	minutes       int
	reads, writes int64
	base          github.Counts
	baseSet       bool
	// ahead are the requests the plan still makes from the status
	// comment's write on (loop.RequestsAhead), counted with that write.
	ahead github.Counts
}

// requests is what this run's clients have sent so far.
func (c *prCycle) requests() github.Counts {
	n := c.gh.Requests()
	if c.trigger != nil {
		t := c.trigger.Requests()
		n.Reads, n.Writes, n.Total = n.Reads+t.Reads, n.Writes+t.Writes, n.Total+t.Total
	}
	return n
}

// startLedger takes the request counts at the cycle's start.
func (c *prCycle) startLedger() {
	if c.gh != nil {
		c.ledger.base, c.ledger.baseSet = c.requests(), true
	}
}

// ledgerCycle adds this cycle's job minutes and API requests to the cost
// ledger (CL1): its wall time so far, rounded up to a whole minute as
// GitHub bills a job, and the requests sent so far; a second write in the
// same cycle adds only what came since the first. The write itself and
// the single writes the plan makes after it (label, re-dispatch) are
// counted with it, from the plan (loop.RequestsAhead).
func (c *prCycle) ledgerCycle() {
	if c.st.Status == "" || !c.ledger.baseSet {
		return
	}
	n := c.requests()
	minutes := loop.JobMinutes(c.Now().Sub(c.started))
	reads := n.Reads - c.ledger.base.Reads + c.ledger.ahead.Reads
	writes := n.Writes - c.ledger.base.Writes + c.ledger.ahead.Writes
	c.st = loop.LedgerCycle(c.st, minutes-c.ledger.minutes, c.ledger.minutes == 0, reads-c.ledger.reads, writes-c.ledger.writes)
	c.ledger.minutes, c.ledger.reads, c.ledger.writes = minutes, reads, writes
}

// ledgerTriggers counts the reviews the loop asked for: triggers sent,
// not skipped, refused or unavailable.
func (c *prCycle) ledgerTriggers(results []loop.TriggerResult) {
	bySHA := map[string][]string{}
	for _, r := range results {
		if r.Skipped || r.Unavailable || r.Quota != nil || r.Err != "" {
			continue
		}
		bySHA[r.SHA] = append(bySHA[r.SHA], r.Engine)
	}
	for _, sha := range slices.Sorted(maps.Keys(bySHA)) {
		c.st = loop.LedgerRequested(c.st, bySHA[sha], sha)
	}
}
