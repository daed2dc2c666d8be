package action

import (
	"cmp"
	"context"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
)

// This file writes review-loop's own check run, the merge gate (MG1,
// MG2), as loop.GateFor and loop.PlanGate decide it.

// beforeWrite brings the merge gate and the cost ledger up to date just
// before the status comment (and so the state) is written.
func (c *prCycle) beforeWrite(ctx context.Context) {
	if c.readOnly || c.cfg.DryRun || c.obs == nil {
		return
	}
	c.publishGate(ctx)
	c.readIdleRuns(ctx)
	c.ledgerCycle()
}

// publishGate writes review-loop's own check run on the head (MG1): the
// commit this cycle pushed, else the observed head; one write at most,
// and only when what the gate shows changes. Failure to write it never
// fails the cycle: a token without `checks: write` gets a set-up notice
// once.
func (c *prCycle) publishGate(ctx context.Context) {
	head := cmp.Or(c.res.Pushed, c.obs.HeadSHA)
	want := loop.GateFor(c.st, c.obs.IsFork)
	title, summary := report.GateSummary(c.reportInput(), want)
	digest := loop.GateDigest(summary)
	w := c.gateWrite(head, want, title, summary)
	var id int64
	var err error
	switch loop.PlanGate(c.st.Gate, head, want, digest) {
	case loop.GateCreate:
		c.supersedeGate(ctx, head)
		id, err = c.gh.CreateCheckRun(ctx, c.owner, c.repo, w)
	case loop.GateUpdate:
		id, err = c.st.Gate.ID, c.gh.UpdateCheckRun(ctx, c.owner, c.repo, c.st.Gate.ID, w)
	default:
		return
	}
	switch {
	case err == nil:
		c.st = loop.RecordGate(c.st, head, id, want, digest)
	case github.IsPermission(err):
		st, isNew := loop.RecordGateUnavailable(c.st, head)
		c.warnOnce(st, isNew, report.GateUnavailable(err), true)
	default:
		c.Log.Warn("writing the merge gate check run", "pr", c.number, "err", err)
	}
}

// gateWrite is the merge gate's check run on sha, showing v.
func (c *prCycle) gateWrite(sha string, v loop.GateView, title, summary string) github.CheckRunWrite {
	return github.CheckRunWrite{Name: loop.GateName, HeadSHA: sha, Status: v.Status, Conclusion: v.Conclusion,
		Title: title, Summary: summary, DetailsURL: c.runURL(), At: c.Now()}
}

// supersedeGate concludes the gate left in progress on an old head as
// neutral, "superseded by <head>" (MG2): never left in progress, since a
// required check on a commit that is no longer the head would otherwise
// spin forever. A failure is logged; the new head's gate is written anyway.
func (c *prCycle) supersedeGate(ctx context.Context, head string) {
	old := c.st.Gate
	if v, ok := loop.SupersededGate(old, head); ok {
		w := c.gateWrite(old.SHA, v, loop.SupersededTitle(head), report.SupersededSummary(head))
		c.logIf(c.gh.UpdateCheckRun(ctx, c.owner, c.repo, old.ID, w), "concluding the merge gate of the old head", "pr", c.number, "sha", old.SHA)
	}
}
