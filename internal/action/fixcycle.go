package action

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/fixcycle"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/push"
)

// This file carries out the fix effect (E4) with fixcycle.Run, and the
// commit effect: one commit, the write-ahead save (E5) and the push; what
// follows the push is planned by loop.AfterFix.

// fixCycle triages the plan's findings and fixes Tier 1 and approved Tier
// 2 ones in the checkout (or only triages, reportOnly), records the
// outcome, then carries out what the core plans after it: the commit and
// push (loop.CommitEffects), then the replies, resolutions, retriggers and
// CI dispatch (loop.AfterFix).
func (c *prCycle) fixCycle(ctx context.Context, reportOnly bool) error {
	in := fixcycle.Inputs{Triaged: c.triaged(ctx), ReportOnly: reportOnly, Checkout: c.checkout()}
	if c.prepared != nil {
		in.Prepared = &fixcycle.Prepared{Fix: c.prepared.Fix, Patch: c.patch}
	}
	out, fixErr := fixcycle.Run(ctx, in)
	c.logFix(out.Result.Log, out.Warnings)
	if errors.Is(fixErr, errPreparedStale) {
		return fixErr
	}
	c.gitBaseline = out.Baseline
	c.notices = append(c.notices, out.Notices...)
	c.st = loop.RecordFixCycle(c.st, loop.FixResult{Rows: out.Rows}, c.Now())
	c.res.Tests, c.res.TestFindings, c.res.TestPassed = out.Result.Tests, out.Result.TestFindings, out.Result.TestPassed
	if we := (*prepared.WithheldError)(nil); errors.As(fixErr, &we) {
		c.refused(we.Error()) // TB14: the prepare job withheld a fix that held a secret
		return nil
	}
	if fixErr != nil {
		return fmt.Errorf("fix cycle: %w", fixErr)
	}
	c.fixing = &out
	commit := loop.CommitEffects(c.st, out.Result.Commit)
	c.logEffects(commit)
	if err := c.execute(ctx, commit); err != nil {
		return err
	}
	if len(commit) > 0 && c.res.Pushed == "" {
		return nil // refused: reported, nothing follows (B5)
	}
	pushed := c.res.Pushed
	var retrigger []loop.TriggerRequest
	if pushed != "" {
		retrigger = loop.RetriggerAfterPushAt(c.st, c.views, pushed, c.loopCfg, c.Now())
	}
	after := loop.AfterFix(c.st, out.After(pushed), retrigger, c.facts())
	c.logEffects(after)
	c.decided = nil
	if err := c.execute(ctx, after); err != nil {
		return err
	}
	c.st = loop.RememberWontFix(c.st, c.decided, c.obs.HeadSHA, c.Now())
	return nil
}

// commit carries out the commit effect: the publish caps and TB9 checked
// once more, one commit, the write-ahead save and the push. A refusal
// (B5) is reported on the status comment and is no error.
func (c *prCycle) commit(ctx context.Context) error {
	why, err := c.fixing.CheckCommit(ctx, c.gitRunner(), fixcycle.Caps{MaxFiles: c.cfg.MaxPatchFiles, MaxBytes: c.cfg.MaxPatchBytes, Secrets: c.secrets})
	if err != nil {
		return err
	}
	if why == "" {
		err = c.commitAndPush(ctx)
		why, _ = fixcycle.PushRefusal(err)
	}
	if why != "" {
		c.refused(why)
		return nil
	}
	return err
}

// triaged triages the plan's findings (fixcycle.Triage).
func (c *prCycle) triaged(ctx context.Context) fixcycle.Triaged {
	return fixcycle.Triage(fixcycle.TriageInputs{
		Findings: c.plan.Triage, Approvals: c.st.Approvals, Skips: c.st.Skips, Catalogue: c.repoCfg.Catalogue,
		TestCommand: c.cfg.TestCommand != "", CopilotOnly: c.cfg.CopilotOnly,
		SharedHelpers: observe.SharedHelpers(ctx, c.cfg.Workspace, c.cfg.SharedPaths, c.repoCfg.SharedPaths, c.Log),
	})
}

// checkout is the fix pipeline's set-up in this cycle's checkout.
func (c *prCycle) checkout() fixcycle.Checkout {
	a := c.cfg.Agent()
	a.Pin = c.agentPin
	return fixcycle.Checkout{
		Git: c.gitRunner(), Dir: c.cfg.Workspace, Env: fix.ChildEnv(os.Environ(), c.ChildPath),
		HeadRef: c.obs.HeadRef, HeadSHA: c.obs.HeadSHA, BaseRef: c.obs.BaseRef, FetchToken: c.cfg.GitHubToken, Fork: c.obs.IsFork,
		Fixer: c.cfg.Fixer, TestCommand: c.cfg.TestCommand, SetupCommand: c.cfg.SetupCommand, LintCommand: c.cfg.LintCommand,
		FixerCmd: c.cfg.FixerCommand, FixerTimeout: c.cfg.FixerTimeout, ContextFiles: c.cfg.ContextFiles, Agent: a,
		Secrets: c.secrets,
	}
}

// logFix logs the fix pipeline's steps and warns what it asks to.
func (c *prCycle) logFix(steps, warnings []string) {
	for _, l := range steps {
		c.Log.Info("fix", "step", l)
	}
	for _, w := range warnings {
		c.gha.Warningf("review-loop: PR #%d: %s", c.number, w)
	}
}

// pinAgent records the agent fixer's CLI before any command runs (TB11):
// the file the child PATH finds, checked against the digest the action's
// install step recorded (REVIEW_LOOP_AGENT_SHA256) when there is one.
func (r *runner) pinAgent() {
	if name := r.cfg.AgentCLI(); name != "" {
		r.agentPin = fix.PinAgent(name, fix.ChildEnv(os.Environ(), r.ChildPath), r.Getenv("REVIEW_LOOP_AGENT_SHA256"))
	}
}

// errHeadMoved means the fix push was refused because the PR head branch
// moved while the cycle worked: another run (which claimed the status
// comment in the same instant) or a person pushed. The run stops without
// acting; the next wake sees the new head.
var errHeadMoved = errors.New("the PR head branch moved while this cycle worked (another run or a person pushed); this run stops without acting")

// gitRunner returns the git runner of the checkout, with tokens kept out
// of git's environment.
func (c *prCycle) gitRunner() *git.Runner {
	return &git.Runner{Dir: c.cfg.Workspace, Env: fix.StripTokens(os.Environ()), ServerURL: c.cfg.ServerURL}
}

// commitAndPush makes the cycle's one commit (B6, E4) from the claimed
// files' bytes on the head as GitHub has it, records it as the pending
// push before the branch moves (E5), moves the branch by fast-forward,
// and records the push. push.Fix is the only code that uses the push
// token (TB13); no git process takes part. The checkout is put back on
// the head either way: the next cycle that needs the tree fetches the
// pushed commit.
func (c *prCycle) commitAndPush(ctx context.Context) error {
	protected, err := c.gh.BranchProtected(ctx, c.owner, c.repo, c.obs.HeadRef)
	if err != nil {
		return fmt.Errorf("asking whether %s is protected: %w", c.obs.HeadRef, err)
	}
	g := c.gitRunner()
	guard := git.Guard{
		HeadBranch: c.obs.HeadRef, DefaultBranch: c.obs.DefaultBranch, Protected: protected,
		Fork: c.obs.IsFork, ObservedHeadSHA: c.obs.HeadSHA,
	}
	defer func() { _ = g.RestoreAll(ctx) }()
	if err := guard.Check(guard.HeadBranch); err != nil {
		return err
	}
	// TB2: a command that planted git config or hooks is taken as hostile.
	if err := (&git.Repo{Git: g, Guard: guard, Baseline: c.gitBaseline}).CheckUnchanged(ctx); err != nil {
		return err
	}
	// The claimed files' bytes were made on the checkout's HEAD: it must
	// be the observed head (W3).
	if head, err := g.Head(ctx); err != nil || head != c.obs.HeadSHA {
		return &git.RefusedError{Rule: "W3", Reason: fmt.Sprintf("the checkout's HEAD %.7s is not the observed PR head %.7s: someone pushed (%v)", head, c.obs.HeadSHA, err)}
	}
	files := c.fixing.Result.Changed
	fixed, closed := c.fixing.Fixed()
	// CV1: the lines the commit writes, read before it is made.
	lines := observe.WorktreeLines(ctx, g, files, c.Log)
	req := push.Request{
		API: c.cfg.ClientOptions(c.ClientOptions, ""), Owner: c.owner, Repo: c.repo,
		Branch: c.obs.HeadRef, Guard: guard, Dir: c.cfg.Workspace, Files: files,
		Message: git.Message(c.st.Iteration, c.number, files, closed),
		Author:  commitAuthor(c.cfg.AuthorName, c.cfg.AuthorEmail),
	}
	if req.API.HTTPClient == nil {
		req.API.HTTPClient = c.HTTPClient
	}
	if req.API.Logger == nil {
		req.API.Logger = c.Log
	}
	res, err := push.Fix(ctx, c.cfg.PushToken, req, func(sha string, spent github.Counts) error {
		c.pushRequests = spent
		c.st = loop.RecordFixCommit(c.st, sha, c.obs.HeadSHA, lines, fixed, c.Now())
		c.st = loop.RecordPendingPush(c.st, sha)
		return c.save(ctx) // write-ahead: saved before the branch moves
	})
	c.pushRequests = res.Requests
	switch {
	case errors.Is(err, push.ErrHeadMoved):
		return errHeadMoved
	case errors.Is(err, push.ErrNothingToCommit):
		return fmt.Errorf("committing the cycle's fixes: %w", err)
	case err != nil:
		return fmt.Errorf("pushing the fix commit: %w", err)
	}
	sha := res.SHA
	c.Log.Info("pushed the fix commit through the API", "sha", sha, "files", res.Changed, "verified", res.Verified)
	if c.CrashAfterPush != nil && c.CrashAfterPush() {
		c.res.Pushed = sha
		return ErrCrashed
	}
	c.st = loop.RecordPush(c.st, sha)
	c.res.Pushed = sha
	if c.cfg.PushToken == c.cfg.GitHubToken {
		if st, isNew := loop.RecordNotice(c.st, "push-with-github-token"); isNew {
			c.st = st
			c.gha.Noticef("review-loop: the fix commit was pushed with GITHUB_TOKEN, so it starts no workflow (the PR's CI will not run on it); set push-token to an app token or PAT to run CI on fixes. review-loop re-dispatches itself instead.")
		}
	}
	return nil
}

// commitAuthor is the fix commit's author as the push path takes it: none
// for the default identity (github-actions[bot]), so that the commit is
// the push token's own and GitHub signs it where it signs API commits (a
// GitHub App's or github-actions[bot]'s); a configured author otherwise,
// whose commits GitHub does not sign.
func commitAuthor(name, email string) git.Identity {
	if (name == "" && email == "") || (name == git.DefaultIdentity.Name && email == git.DefaultIdentity.Email) {
		return git.Identity{}
	}
	return git.Identity{Name: name, Email: email}
}

// refused hands the PR back in this cycle after a B5 refusal (H9): the
// fixes stay unpushed, the rows are marked refused, the run warns and
// exits successfully, and the status comment is final.
func (c *prCycle) refused(why string) {
	c.plan, c.st = loop.RecordRefusal(c.st, c.plan, why, c.Now())
	c.res.Plan = c.plan
	c.gha.Warningf("review-loop: PR #%d: %s; the cycle's fixes were not pushed and the PR is handed back", c.number, why)
}
