package action

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sethvargo/go-githubactions"

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
	if loop.WritesNothing(cyc) {
		// C2, C3: the publish job would write nothing for this PR.
		c.res.Quiet, c.res.Unchanged = true, cyc.Idle
		c.gha.Noticef("review-loop: PR #%d: nothing to write (%s); nothing prepared", c.number, cmp.Or(cyc.Skip, "an idle wake: the status comment says it already"))
		return nil
	}
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
	// C5: the publish job counts this job's minutes in the ledger.
	d.Seconds = int64(c.Now().Sub(c.started).Round(time.Second) / time.Second)
	d.Fixer = c.cfg.Fixer
	dir := prepared.Dir(c.cfg.ArtifactDir, c.number)
	w, err := prepared.WriteOrWithhold(dir, d, patch, c.secrets)
	if err != nil {
		return err
	}
	if w != nil {
		// TB14: the publish job hands the PR back naming the input.
		c.gha.Warningf("review-loop: PR #%d: %s", c.number, w.Reason())
		return nil
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

// handOver sets the step output `prepared`: the artifact directory packed
// into one text (prepared.Pack), which the workflow hands to the publish
// job as a job output, so that no step runs after the repository's code
// in the prepare job (TB16). Nothing prepared: an empty output.
func handOver(gha *githubactions.Action, getenv func(string) string, dir string) error {
	text := ""
	if _, err := os.Lstat(dir); err == nil {
		if text, err = prepared.Pack(dir); err != nil {
			return fmt.Errorf("handing the prepared cycle over: %w", err)
		}
	}
	if getenv("GITHUB_OUTPUT") != "" {
		gha.SetOutput("prepared", text)
	}
	return nil
}

// takeOver unpacks the prepare job's hand-over (the `prepared` input) into
// a new directory under tmp and returns it: the publish job's artifact
// directory.
func takeOver(text, tmp string) (string, error) {
	base, err := os.MkdirTemp(cmp.Or(tmp, os.TempDir()), "review-loop-prepared-")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "prepared")
	if err := prepared.Unpack(text, dir); err != nil {
		_ = os.RemoveAll(base)
		return "", fmt.Errorf("input prepared: %w", err)
	}
	return dir, nil
}
