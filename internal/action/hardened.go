package action

import (
	"context"
	"slices"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/fixcycle"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/prepared"
)

// This file is hardened mode (TB1, TB10): the prepare job carries out
// the plan's local effect and writes the plan down; the publish job
// plans again, checks what prepare handed over, and executes.

// errPreparedStale means the PR or the loop moved between the prepare and
// the publish job (prepared.ErrStale).
var errPreparedStale = prepared.ErrStale

// checkPrepared compares the publish job's own plan with the prepare
// job's (prepared.Decisions.Match).
func (c *prCycle) checkPrepared(cyc loop.Cycle) error {
	return c.prepared.Match(c.obs.HeadSHA, string(c.plan.Action), loop.KindsOf(cyc.Effects))
}

// prepare is the prepare job's end of a cycle: it carries out the plan's
// one local effect, the fix (the fix pipeline runs the repository's
// commands), and writes the plan and the patch down for the publish job,
// which carries out the rest. Nothing is written to GitHub.
func (c *prCycle) prepare(ctx context.Context, judges map[string]loop.JudgeResult, cyc loop.Cycle) error {
	d := prepared.Decisions{Repo: c.owner + "/" + c.repo, PR: c.number, HeadSHA: c.obs.HeadSHA, Action: string(c.plan.Action), Judges: judges,
		Effects: loop.KindsOf(cyc.Effects)}
	var patch []byte
	if slices.ContainsFunc(cyc.Effects, func(e loop.Effect) bool { return e.Kind == loop.EffectFix }) {
		f, p, ran, err := fixcycle.Prepare(ctx, c.triaged(ctx), c.checkout())
		c.logFix(ran.Result.Log, ran.Warnings)
		if err != nil {
			return err
		}
		d.Fix, patch = f, p
	}
	dir := prepared.Dir(c.cfg.ArtifactDir, c.number)
	if err := prepared.Write(dir, d, patch, c.secrets); err != nil {
		return err
	}
	c.gha.Noticef("review-loop: PR #%d: prepared a %s (%d patch bytes) in %s for the publish job", c.number, c.plan.Action, len(patch), dir)
	return nil
}

// start runs the cycle in its mode: the prepare job writes nothing to
// GitHub; the publish job needs the prepare job's artifact for the PR.
func (c *prCycle) start(ctx context.Context) (finish bool, err error) {
	switch c.cfg.Mode {
	case config.ModePrepare:
		c.readOnly = true
	case config.ModePublish:
		c.prepared, c.patch, err = prepared.Load(prepared.Dir(c.cfg.ArtifactDir, c.number), c.owner+"/"+c.repo, c.number)
		if err != nil {
			return false, err
		}
		if c.prepared == nil {
			c.res.Skipped = "the prepare job prepared no cycle for this PR"
			c.gha.Noticef("review-loop: PR #%d: %s", c.number, c.res.Skipped)
			return false, nil
		}
	}
	return c.run(ctx)
}
