package action

import (
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
	c.ledgerCycle()
}

// gateHead is the head the gate is for: the commit this cycle pushed, else
// the observed head.
func (c *prCycle) gateHead() string {
	if c.res.Pushed != "" {
		return c.res.Pushed
	}
	return c.obs.HeadSHA
}

// publishGate writes review-loop's own check run on the head (MG1): one
// write at most, and only when what the gate shows changes. Failure to
// write it never fails the cycle: a token without `checks: write` gets a
// set-up notice once.
func (c *prCycle) publishGate(ctx context.Context) {
	head := c.gateHead()
	want := loop.GateFor(c.st, c.obs.IsFork)
	title, summary := report.GateSummary(c.reportInput(), want)
	digest := loop.GateDigest(summary)
	w := github.CheckRunWrite{Name: loop.GateName, HeadSHA: head, Status: want.Status, Conclusion: want.Conclusion,
		Title: title, Summary: summary, DetailsURL: c.runURL(), At: c.Now()}
	switch loop.PlanGate(c.st.Gate, head, want, digest) {
	case loop.GateCreate:
		c.supersedeGate(ctx, head)
		id, err := c.gh.CreateCheckRun(ctx, c.owner, c.repo, w)
		if err != nil {
			c.gateFailed(head, err)
			return
		}
		c.st = loop.RecordGate(c.st, head, id, want, digest)
	case loop.GateUpdate:
		if err := c.gh.UpdateCheckRun(ctx, c.owner, c.repo, c.st.Gate.ID, w); err != nil {
			c.gateFailed(head, err)
			return
		}
		c.st = loop.RecordGate(c.st, head, c.st.Gate.ID, want, digest)
	}
}

// supersedeGate concludes the gate left in progress on an old head as
// neutral, "superseded by <head>" (MG2): never left in progress, since a
// required check on a commit that is no longer the head would otherwise
// spin forever. A failure is logged; the new head's gate is written anyway.
func (c *prCycle) supersedeGate(ctx context.Context, head string) {
	old := c.st.Gate
	v, ok := loop.SupersededGate(old, head)
	if !ok {
		return
	}
	w := github.CheckRunWrite{Name: loop.GateName, HeadSHA: old.SHA, Status: v.Status, Conclusion: v.Conclusion,
		Title: loop.SupersededTitle(head), Summary: report.SupersededSummary(head), DetailsURL: c.runURL(), At: c.Now()}
	if err := c.gh.UpdateCheckRun(ctx, c.owner, c.repo, old.ID, w); err != nil {
		c.Log.Warn("concluding the merge gate of the old head", "pr", c.number, "sha", old.SHA, "err", err)
	}
}

func (c *prCycle) gateFailed(head string, err error) {
	if !github.IsPermission(err) {
		c.Log.Warn("writing the merge gate check run", "pr", c.number, "err", err)
		return
	}
	st, isNew := loop.RecordGateUnavailable(c.st, head)
	c.warnOnce(st, isNew, report.GateUnavailable(err), true)
}
