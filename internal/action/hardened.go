package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file is hardened mode (TB1, TB10): the prepare job carries out
// the plan's local effect and writes the plan down; the publish job
// plans again, checks what prepare handed over, and executes.

// errPreparedStale means the PR or the loop moved between the prepare and
// the publish job: publish acts on nothing it did not prepare for, and the
// next run redoes the cycle.
var errPreparedStale = errors.New("the prepared cycle no longer matches the PR")

// preparedDir is where a PR's artifact lives inside the artifact directory.
func (r *runner) preparedDir(number int) string {
	return filepath.Join(r.cfg.ArtifactDir, fmt.Sprintf("pr-%d", number))
}

// loadPrepared reads and checks the prepare job's artifact for this PR;
// found is false when the prepare job wrote none for it.
func (c *prCycle) loadPrepared() (found bool, err error) {
	dir := c.preparedDir(c.number)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	d, patch, err := prepared.Read(dir)
	if err != nil {
		return false, fmt.Errorf("refusing the prepared artifact for PR #%d: %w", c.number, err)
	}
	if d.PR != c.number || d.Repo != c.owner+"/"+c.repo {
		return false, fmt.Errorf("refusing the prepared artifact in %s: it is for %s#%d, not %s/%s#%d", dir, d.Repo, d.PR, c.owner, c.repo, c.number)
	}
	c.prepared, c.patch = &d, patch
	return true, nil
}

// checkPrepared compares the publish job's own decision with the prepare
// job's: same head, same action.
func (c *prCycle) checkPrepared(cyc loop.Cycle) error {
	p := c.prepared
	if p.HeadSHA != c.obs.HeadSHA {
		return fmt.Errorf("%w: prepared for head %s, the PR head is %s", errPreparedStale, shortSHA(p.HeadSHA), shortSHA(c.obs.HeadSHA))
	}
	if loop.Action(p.Action) != c.plan.Action {
		return fmt.Errorf("%w: prepared a %s, this run decides %s", errPreparedStale, p.Action, c.plan.Action)
	}
	if p.Effects != nil && !slices.Equal(p.Effects, effectKinds(cyc.Effects)) {
		return fmt.Errorf("%w: prepared the effects %s, this run plans %s", errPreparedStale,
			report.Plain(strings.Join(p.Effects, ", "), prepared.MaxText), strings.Join(effectKinds(cyc.Effects), ", "))
	}
	return nil
}

// effectKinds are the kinds of a plan's effects, in order: what the
// prepare job writes down of the plan and the publish job compares with
// its own (it trusts nothing else the prepare job says of it, TB10).
func effectKinds(es []loop.Effect) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Kind)
	}
	return out
}

// fixTodo triages the plan's findings: the table, the findings by id, the
// ones to fix and the approvals' directions.
func (c *prCycle) fixTodo(ctx context.Context) (triage.Table, map[string]loop.Finding, []loop.Finding, map[string]string) {
	approvals := map[string]string{}
	for _, a := range c.st.Approvals {
		approvals[a.FindingID] = a.Direction
	}
	skips := map[string]bool{}
	for _, s := range c.st.Skips {
		skips[s] = true
	}
	table := triage.Classify(c.plan.Triage, triage.Inputs{
		Catalogue: c.repoCfg.Catalogue, TestCommand: c.cfg.TestCommand != "", Approvals: approvals, Skips: skips,
		CopilotOnly: c.cfg.CopilotOnly, SharedHelpers: observe.SharedHelpers(ctx, c.cfg.Workspace, c.cfg.SharedPaths, c.repoCfg.SharedPaths, c.Log),
	})
	byID := map[string]loop.Finding{}
	for _, f := range c.plan.Triage {
		byID[f.ID] = f
	}
	var todo []loop.Finding
	for _, id := range table.Fixable() {
		todo = append(todo, byID[id])
	}
	return table, byID, todo, approvals
}

// fixes runs the fix pipeline, or in the publish job applies the patch
// the prepare job made for exactly these findings. Either way the texts
// the fixer wrote are untrusted (TB10): a fixer command or an agent runs
// on the PR's code and reads its review text, so what it asks to post as
// the bot is escaped and cut exactly as the prepare job's is.
func (c *prCycle) fixes(ctx context.Context, todo []loop.Finding, directions map[string]string) (fix.CycleResult, error) {
	if c.cfg.Mode == config.ModePublish {
		return c.applyPrepared(ctx, todo)
	}
	res, err := c.runFixes(ctx, todo, directions)
	res.Results = prepared.Untrusted(res.Results)
	return res, err
}

// prepare is the prepare job's end of a cycle: it carries out the plan's
// one local effect, the fix (the fix pipeline runs the repository's
// commands), and writes the plan and the patch down for the publish job,
// which carries out the rest. Nothing is written to GitHub.
func (c *prCycle) prepare(ctx context.Context, judges map[string]loop.JudgeResult, cyc loop.Cycle) error {
	d := prepared.Decisions{Repo: c.owner + "/" + c.repo, PR: c.number, HeadSHA: c.obs.HeadSHA, Action: string(c.plan.Action), Judges: judges,
		Effects: effectKinds(cyc.Effects)}
	var patch []byte
	if slices.ContainsFunc(cyc.Effects, func(e loop.Effect) bool { return e.Kind == loop.EffectFix }) {
		_, _, todo, approvals := c.fixTodo(ctx)
		f := &prepared.Fix{}
		if len(todo) > 0 && !c.obs.IsFork {
			cyc, err := c.runFixes(ctx, todo, approvals)
			f.Results, f.Changed, f.Commit, f.Reverted = cyc.Results, cyc.Changed, cyc.Commit, cyc.Reverted
			if err != nil {
				f.Err, f.Commit, f.Changed = err.Error(), false, nil
			}
			if f.Commit {
				if patch, err = c.diff(ctx, f.Changed); err != nil {
					return err
				}
			}
		}
		d.Fix = f
	}
	dir := c.preparedDir(c.number)
	if err := prepared.Write(dir, d, patch); err != nil {
		return err
	}
	c.gha.Noticef("review-loop: PR #%d: prepared a %s (%d patch bytes) in %s for the publish job", c.number, c.plan.Action, len(patch), dir)
	return nil
}

// diff returns the checkout's changes to files as a plain git patch: no
// renames, no external diff or textconv, the standard a/ b/ prefixes
// whatever the repository's configuration says.
func (c *prCycle) diff(ctx context.Context, files []string) ([]byte, error) {
	g := c.gitRunner()
	if _, err := g.Run(ctx, append([]string{"add", "--"}, files...)...); err != nil {
		return nil, fmt.Errorf("staging the prepared changes: %w", err)
	}
	out, err := g.Run(ctx, append([]string{"diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
		"--src-prefix=a/", "--dst-prefix=b/", "HEAD", "--"}, files...)...)
	if err != nil {
		return nil, fmt.Errorf("diffing the prepared changes: %w", err)
	}
	return []byte(out), nil
}

// applyPrepared is the publish job's fix: it checks that the prepare job
// fixed exactly these findings, puts the checkout on the PR head, and
// applies the validated patch there, never through a symlink.
func (c *prCycle) applyPrepared(ctx context.Context, todo []loop.Finding) (fix.CycleResult, error) {
	p := c.prepared.Fix
	if p == nil {
		return fix.CycleResult{}, fmt.Errorf("%w: no fix was prepared", errPreparedStale)
	}
	acc, err := prepared.Accept(todo, p, c.patch)
	if errors.Is(err, prepared.ErrOtherFindings) {
		return fix.CycleResult{}, fmt.Errorf("%w: %v", errPreparedStale, err)
	}
	if err != nil {
		return fix.CycleResult{Results: acc.Results}, err
	}
	for _, id := range acc.NotTouched {
		c.gha.Warningf("review-loop: PR #%d: %s was reported fixed by the prepare job, but the patch does not touch its files; it is not counted fixed (TB10)", c.number, id)
	}
	results, patchFiles := acc.Results, acc.Files
	res := fix.CycleResult{Results: results, Changed: patchFiles, Commit: p.Commit && len(patchFiles) > 0, Reverted: acc.Reverted}
	if !res.Commit {
		res.Changed = nil
		return res, nil
	}
	g := c.gitRunner()
	if err := c.checkoutHead(ctx, g); err != nil {
		return fix.CycleResult{}, err
	}
	if err := prepared.CheckTree(c.cfg.Workspace, p.Changed); err != nil {
		return fix.CycleResult{}, fmt.Errorf("refusing the prepared patch: %w", err)
	}
	f, err := os.CreateTemp("", "review-loop-*.patch")
	if err != nil {
		return fix.CycleResult{}, fmt.Errorf("writing the prepared patch: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(c.patch)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return fix.CycleResult{}, fmt.Errorf("writing the prepared patch: %w", errors.Join(werr, cerr))
	}
	if _, err := g.Run(ctx, "apply", "--whitespace=nowarn", f.Name()); err != nil {
		return fix.CycleResult{}, fmt.Errorf("applying the prepared patch: %w", err)
	}
	changed, err := g.ChangedFiles(ctx)
	if err != nil {
		return fix.CycleResult{}, err
	}
	for _, ch := range changed {
		if !slices.Contains(p.Changed, ch) {
			_ = g.RestoreAll(ctx)
			return fix.CycleResult{}, fmt.Errorf("refusing the prepared patch: it changed %s, which it does not claim", ch)
		}
	}
	if err := prepared.CheckTree(c.cfg.Workspace, p.Changed); err != nil {
		_ = g.RestoreAll(ctx)
		return fix.CycleResult{}, fmt.Errorf("refusing the prepared patch: %w", err)
	}
	return res, nil
}

// start runs the cycle in its mode: the prepare job writes nothing to
// GitHub; the publish job needs the prepare job's artifact for the PR.
func (c *prCycle) start(ctx context.Context) (finish bool, err error) {
	switch c.cfg.Mode {
	case config.ModePrepare:
		c.readOnly = true
	case config.ModePublish:
		found, err := c.loadPrepared()
		if err != nil {
			return false, err
		}
		if !found {
			c.res.Skipped = "the prepare job prepared no cycle for this PR"
			c.gha.Noticef("review-loop: PR #%d: %s", c.number, c.res.Skipped)
			return false, nil
		}
	}
	return c.run(ctx)
}

// markPrepared creates the artifact directory with a note of the run, so
// that a run that prepares no PR still leaves an artifact to hand over.
func markPrepared(cfg config.Config) error {
	if err := os.MkdirAll(cfg.ArtifactDir, 0o755); err != nil {
		return fmt.Errorf("creating the artifact directory: %w", err)
	}
	note := fmt.Sprintf("prepared by review-loop for %s, run %d\n", cfg.Repository, cfg.RunID)
	if err := os.WriteFile(filepath.Join(cfg.ArtifactDir, "prepared.txt"), []byte(note), 0o644); err != nil {
		return fmt.Errorf("writing the artifact directory: %w", err)
	}
	return nil
}
