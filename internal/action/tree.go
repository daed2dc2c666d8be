package action

import (
	"context"
	"fmt"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/fixcycle"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
)

// This file checks out the PR head when a run with no checkout needs
// the tree, and reads the config file without one.

// A workflow may run review-loop with no checkout step. Most wakes need no
// working tree: a trigger, a wait on engines still running, a hand-back,
// a status command. review-loop then checks out the PR head itself,
// one commit deep, only in the cycle that needs the tree: one that fixes
// (or triages for a dry run), runs a judge command, or must fingerprint
// findings against remembered won't-fix decisions (WF1). The repository
// config is read from the default branch through the API instead.

// treeless reports whether this run started with no checkout in the
// workspace, so the cycles check out on demand. In hardened mode the same
// holds for each job: prepare clones (with its read-only token) only to
// fix, publish only to apply a prepared patch.
func treeless(cfg config.Config) bool {
	return cfg.Workspace != "" && !observe.HasCheckout(cfg.Workspace)
}

// needsTree reports whether the run started with no checkout and none
// was made yet.
func (c *prCycle) needsTree() bool {
	return c.treeless && !observe.HasCheckout(c.cfg.Workspace)
}

// ensureTree checks out the PR (loop.CheckoutBranch, fixcycle.Clone) when
// the run started with no checkout and none was made yet; why names what
// needs it ("" when nothing does). The clone becomes the cycle's
// workspace.
func (c *prCycle) ensureTree(ctx context.Context, why string) error {
	if why == "" || !c.needsTree() {
		return nil
	}
	branch, err := loop.CheckoutBranch(c.obs.IsFork, c.obs.HeadRef, c.obs.BaseRef)
	if err != nil {
		return err
	}
	url := fixcycle.CloneURL(c.cfg.ServerURL, c.owner, c.repo)
	dir, err := fixcycle.Clone(ctx, c.gitRunner(), url, branch, c.cfg.GitHubToken, c.Getenv("RUNNER_TEMP"))
	if err != nil {
		return fmt.Errorf("checking out %s (the cycle %s): %w", branch, why, err)
	}
	c.cfg.Workspace = dir
	if j, ok := c.judge.(*judge.Command); ok {
		j.Dir = dir
	}
	c.res.CheckedOut = true
	c.Log.Info("checked out", "branch", branch, "depth", 1, "dir", dir, "why", why)
	c.gha.Noticef("review-loop: PR #%d: checked out %s (one commit): the cycle %s", c.number, branch, why)
	return nil
}

// treeBeforeDecide checks out before the decision when the decision
// reads the tree (loop.TreeToDecide).
func (c *prCycle) treeBeforeDecide(ctx context.Context) error {
	if !c.needsTree() {
		return nil
	}
	_, judgeInTree := c.judge.(*judge.Command)
	return c.ensureTree(ctx, loop.TreeToDecide(c.st, observe.Remembered(c.obs), c.views, c.obs.HeadSHA, judgeInTree && c.prepared == nil))
}

// repoConfig reads the repository config file: from the checkout, or with
// no checkout from the default branch through the API (one request).
func (r *runner) repoConfig(ctx context.Context) (config.Repo, error) {
	if observe.ConfigOnDefaultBranch(r.treeless, r.cfg.ConfigFile) {
		var err error
		if r.gh, err = r.client(r.cfg.GitHubToken); err != nil {
			return config.Repo{}, err
		}
	}
	return observe.RepoConfig(ctx, r.gh, r.cfg.Owner, r.cfg.Repo, r.cfg.Workspace, r.cfg.ConfigFile, r.treeless, r.Log)
}
