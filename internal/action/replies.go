package action

import (
	"context"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/loop"
)

// acknowledge marks a command carried out with 👍 (the 👀 came first).
func (c *prCycle) acknowledge(ctx context.Context) { c.react(ctx, "+1") }

// refuse answers a command that was not carried out with a one-line
// reply on the PR saying why, so the maintainer does not have to read the
// job log. Failures only log.
func (c *prCycle) refuse(ctx context.Context, line string) {
	if _, err := c.gh.CreateIssueComment(ctx, c.owner, c.repo, c.number, line); err != nil {
		c.Log.Warn("replying to a refused command", "comment", c.wake.CommentID, "err", err)
	}
}

// statusOnly reports the loop as it stands, deciding nothing: the plan of
// a cycle that changed nothing (a refused command), for its outputs and
// job summary (H9).
func (c *prCycle) statusOnly() {
	c.selectEnginesQuiet()
	c.observeEngines()
	c.plan = loop.StatusPlan(c.st, c.views, c.obs.HeadSHA)
	c.res.Plan = c.plan
}

// knownFindings are the active findings the selected engines show on the
// head: what an approval may name besides the triage table (TR2).
func (c *prCycle) knownFindings() []loop.Finding {
	c.selectEnginesQuiet()
	c.observeEngines()
	var out []loop.Finding
	for _, v := range c.views {
		out = append(out, loop.ActiveFindings(v, c.obs.HeadSHA)...)
	}
	return out
}

// askedToStart reports whether this wake asks for a loop (start-on:
// command): a workflow_dispatch, the review-loop label, or a command that
// starts one (start, reset).
func (c *prCycle) askedToStart() bool {
	switch c.wake.Kind {
	case event.KindDispatch:
		// A dispatch sent by review-loop's own identity is a re-entry (W5,
		// or the sweep's fan-out, SW2) and never starts a loop: the sweep
		// dispatches every PR labelled live, and anyone with triage
		// permission can add that label (TB3 asks for write).
		return !sameLogin(c.wake.Actor, c.obs.ViewerLogin)
	case event.KindStartLabel:
		return true
	case event.KindCommand:
		k := c.wake.Command
		return k != nil && (k.Kind == event.CommandStart || k.Kind == event.CommandReset)
	}
	return false
}
