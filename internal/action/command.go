package action

import (
	"cmp"
	"context"
	"strings"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/report"
)

// This file carries out a maintainer's command: it reads what the core
// needs (the commenter's permission, the findings an approval may name,
// the engines a start names), and carries out what loop.CommandRefusal,
// loop.CommandChange and loop.PlanCommand decide: reactions, a refusal's
// reply, resolve-stale, a report.

// command carries out a maintainer command's part of the cycle
// (loop.PlanCycle's counterpart for commands, loop.PlanCommand) and says
// how the cycle goes on.
func (c *prCycle) command(ctx context.Context) (loop.CommandEnd, error) {
	cmd := c.wake.Command
	if cmd == nil {
		return loop.CommandDenied, nil
	}
	req := loop.CommandRequest{Word: string(cmd.Kind), Denied: c.refuseWithoutWrite(ctx, string(cmd.Kind)), Unknown: cmd.Message,
		Command: loop.Command{Kind: loop.CommandKind(cmd.Kind), FindingID: cmd.FindingID, Direction: cmd.Direction, By: c.wake.Actor, At: c.Now()}}
	if req.Denied == "" && cmd.Kind == event.CommandApprove {
		c.observeQuiet(ctx, false)
		req.Command.Known = loop.KnownFindings(c.views, c.obs.HeadSHA)
	}
	if req.Denied == "" && cmd.Kind == event.CommandAccept {
		// S11: the word holds for the head the maintainer saw, read now.
		req.Command.Engine, req.Command.Head, req.Command.By = cmd.Engine, c.obs.HeadSHA, cmp.Or(c.wake.Source, c.wake.Actor)
	}
	if req.Denied == "" && cmd.Kind == event.CommandStart && len(cmd.Engines) > 0 {
		req.Engines, req.EnginesErr = c.registry.ParseNames(strings.Join(cmd.Engines, ","))
	}
	st, failed := loop.CommandChange(c.st, req)
	p := loop.PlanCommand(req.Word, st, req.Denied, failed, c.wake.Actor, c.cfg.TriggerPhrase)
	if failed != "" {
		c.gha.Warningf("review-loop: %s", failed)
	} else {
		c.st = st
	}
	c.notices = append(c.notices, p.Notices...)
	c.logEffects(p.Effects)
	if err := c.executeWrites(ctx, p.Effects); err != nil {
		return p.End, err
	}
	switch p.End {
	case loop.CommandReports: // status, stop, decisions on a loop not running: a report, nothing decided or acted on
		c.statusOnly(ctx, true)
		effects := loop.ReportOnly(c.st, c.facts())
		c.logEffects(effects)
		return p.End, c.executeWrites(ctx, effects)
	case loop.CommandRefused:
		c.statusOnly(ctx, false)
	}
	return p.End, nil
}

// resolveStale resolves, in one request, the open threads of engine
// findings that no longer appear (E9, loop.StaleThreads).
func (c *prCycle) resolveStale(ctx context.Context) {
	c.observeQuiet(ctx, false)
	threads := loop.StaleThreads(c.views, c.obs.HeadSHA)
	c.resolveThreads(ctx, threads)
	c.notices = append(c.notices, report.StaleResolved(len(threads)))
}

// react acknowledges a command with a reaction; failure only logs.
func (c *prCycle) react(ctx context.Context, content string) {
	if c.cfg.DryRun || c.wake.CommentID == 0 {
		return
	}
	c.logIf(c.gh.AddIssueCommentReaction(ctx, c.owner, c.repo, c.wake.CommentID, content), "adding a reaction", "comment", c.wake.CommentID)
}

// refuseWithoutWrite reads the commenter's permission when the command
// writes, and returns why the command may not run, or "" when it may
// (loop.CommandRefusal, TB3).
func (c *prCycle) refuseWithoutWrite(ctx context.Context, kind string) string {
	login := cmp.Or(c.wake.Source, c.wake.Actor)
	var p github.Permission
	var err error
	if loop.CommandWrites(kind) && login != "" {
		p, err = c.permissions.Of(ctx, c.gh, c.owner, c.repo, login)
	}
	return loop.CommandRefusal(kind, login, c.owner+"/"+c.repo, p.Permission, p.RoleName, err)
}

// refuse answers a command that was not carried out with a one-line
// reply on the PR saying why, so the maintainer does not have to read the
// job log. Failures only log.
func (c *prCycle) refuse(ctx context.Context, line string) {
	_, err := c.gh.CreateIssueComment(ctx, c.owner, c.repo, c.number, line)
	c.logIf(err, "replying to a refused command", "comment", c.wake.CommentID)
}

// statusOnly reports the loop as it stands, deciding nothing: the plan of
// a cycle that changed nothing (a refused command, a report), for its
// status comment, outputs and job summary (H9).
func (c *prCycle) statusOnly(ctx context.Context, runs bool) {
	c.observeQuiet(ctx, runs)
	c.plan = loop.StatusPlan(c.st, c.views, c.obs.HeadSHA, c.loopCfg.CleanAt)
	c.res.Plan = c.plan
}

// observeQuiet has the loop's engines read the observation for a
// command, failing nothing; runs first reads the workflow runs they watch.
func (c *prCycle) observeQuiet(ctx context.Context, runs bool) {
	c.selectEnginesQuiet()
	if runs {
		c.readWorkflowRuns(ctx)
	}
	c.observeEngines()
}

// askedToStart reports whether this wake asks for a loop
// (loop.AskedToStart).
func (c *prCycle) askedToStart() bool {
	var cmd string
	if c.wake.Command != nil {
		cmd = string(c.wake.Command.Kind)
	}
	return loop.AskedToStart(string(c.wake.Kind), cmd, observe.SameLogin(c.wake.Actor, c.obs.ViewerLogin))
}
