package action

import (
	"context"
	"fmt"
	"slices"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/secret"
)

// This file carries out a cycle's effects (loop.Effect), one after
// another, in the order the plan gives them. It decides nothing: what to
// write, to whom and with which rule is in the plan. An effect whose
// result changes what follows goes back through the core (loop.AfterFix,
// loop.Closing). A write GitHub refuses for permission makes the run
// report-only (degradeReadOnly): the effects after it are not carried out.

// execute carries out effects in order and stops at the first error.
func (c *prCycle) execute(ctx context.Context, effects []loop.Effect) error {
	for i, e := range effects {
		if c.readOnly {
			return nil
		}
		if c.withheld && e.Kind != loop.EffectSave && e.Kind != loop.EffectClaim {
			continue // TB14: after a refused write only the hand-back is written
		}
		c.Log.Info("effect", "pr", c.number, "do", e.String())
		c.res.Effects = append(c.res.Effects, e)
		if c.OnEffect != nil {
			c.OnEffect(c.number, e)
		}
		if e.Kind == loop.EffectSave || e.Kind == loop.EffectClaim {
			r, w := loop.RequestsAhead(effects[i:], c.comment == nil)
			c.ledger.ahead = github.Counts{Reads: r, Writes: w}
			// The state says what this cycle did and still does.
			c.st.LastCycle = effectLines(append(slices.Clone(c.res.Effects), effects[i+1:]...))
		}
		err := c.do(ctx, e)
		c.ledger.ahead = github.Counts{}
		if c.sealRefused() {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// do carries out one effect.
func (c *prCycle) do(ctx context.Context, e loop.Effect) error {
	switch e.Kind {
	case loop.EffectReact:
		if e.Reaction == "confused" && e.Why != "" {
			c.gha.Warningf("review-loop: %s", e.Why)
		}
		c.react(ctx, e.Reaction)
	case loop.EffectRefuse:
		c.refuse(ctx, e.Text)
	case loop.EffectResolveStale:
		c.resolveStale(ctx)
	case loop.EffectClaim:
		return c.write(ctx, true)
	case loop.EffectSave:
		return c.write(ctx, e.Checked)
	case loop.EffectMarkReady:
		return c.markReady(ctx)
	case loop.EffectAnswerRecalls:
		c.answerRecalled(ctx)
	case loop.EffectTrigger:
		c.triggerAll(ctx, e.Triggers)
	case loop.EffectNoteWake:
		c.notices = append(c.notices, loop.WakeNote(e.WakeAt, e.Why))
		if e.Rule == "B7" {
			c.gha.Noticef("review-loop: PR #%d: %s", c.number, e.Why)
		}
	case loop.EffectWait:
		return c.waitInJob(ctx)
	case loop.EffectFix:
		return c.fixCycle(ctx, e.ReportOnly)
	case loop.EffectCommit:
		return c.commit(ctx)
	case loop.EffectReply:
		c.replyAll(ctx, e.Replies)
	case loop.EffectResolve:
		c.resolveThreads(ctx, e.Threads)
	case loop.EffectBodyFindings:
		c.listBodyFindings(ctx, e.Lines)
	case loop.EffectDispatchCI:
		c.dispatchCI(ctx, e.Items)
	case loop.EffectFileIssues:
		return c.fileIssues(ctx, e.Items)
	case loop.EffectLabel:
		c.label(ctx, e.Add)
	case loop.EffectRedispatch:
		c.redispatch(ctx)
	default:
		return fmt.Errorf("internal error: the plan has an effect this review-loop cannot carry out: %q", e.Kind)
	}
	return nil
}

// sealRefused reports whether a GitHub client refused a write because it
// held a secret (TB14, github.Client.TakeRefused) since the last look;
// the first such refusal hands the PR back (refuseWrite).
func (c *prCycle) sealRefused() bool {
	var refused []*secret.Error
	for _, cl := range []*github.Client{c.gh, c.trigger} {
		if cl != nil {
			refused = append(refused, cl.TakeRefused()...)
		}
	}
	if len(refused) == 0 {
		return false
	}
	c.refuseWrite(refused[0])
	return true
}

// refuseWrite hands the PR back, once, after a write that held a secret
// was refused (TB14): the reason names the input and what was being
// written, never the value; nothing but the hand-back is written after it.
func (c *prCycle) refuseWrite(e *secret.Error) {
	if c.withheld {
		return
	}
	c.withheld = true
	why := e.Reason()
	c.plan, c.st = loop.RecordWriteRefusal(c.st, c.plan, why, c.res.Pushed != "", c.Now())
	c.res.Plan = c.plan
	c.gha.Errorf("review-loop: PR #%d: %s", c.number, why)
}

// effectLines are effects as the reports show them.
func effectLines(es []loop.Effect) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// facts are what the plan needs of this cycle besides the decision and
// the state: the wake, the inputs and what the PR shows.
func (c *prCycle) facts() loop.Facts {
	f := loop.Facts{
		Command:     c.wake.Kind == event.KindCommand,
		InJobWait:   c.cfg.InJobWait > 0,
		FileIssues:  c.cfg.NonBlocking == "issue",
		Labeled:     c.obs != nil && slices.Contains(c.obs.Labels, loop.LiveLabel),
		Workflow:    c.cfg.WorkflowFile(),
		CIWorkflows: c.cfg.CIWorkflows, PushStartsNoWorkflow: c.cfg.PushToken == c.cfg.GitHubToken,
	}
	if c.obs != nil {
		f.HeadRef, f.Fork = c.obs.HeadRef, c.obs.IsFork
	}
	f.Unchanged = c.unchanged()
	return f
}
