package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file carries out the fix effect (E4): triage, the fix pipeline in
// the checkout, the publish caps, one commit, the write-ahead save (E5)
// and the push; what follows the push is planned by loop.AfterFix.

// fixWork is the fix in progress, from the fix effect to the commit and
// the effects that follow it.
type fixWork struct {
	cyc   fix.CycleResult
	byID  map[string]loop.Finding
	table triage.Table
}

// fixCycle triages the plan's findings and fixes Tier 1 and approved Tier
// 2 ones in the checkout (or only triages, reportOnly), records the
// outcome, then carries out what the core plans after it: the commit and
// push (loop.CommitEffects), then the replies, resolutions, retriggers and
// CI dispatch (loop.AfterFix).
func (c *prCycle) fixCycle(ctx context.Context, reportOnly bool) error {
	table, byID, todo, approvals := c.fixTodo(ctx)

	var cyc fix.CycleResult
	var fixErr error
	if len(todo) > 0 {
		if reportOnly {
			c.notices = append(c.notices, "fork PR: report-only — no fixer, no test command, no push")
		} else {
			cyc, fixErr = c.fixes(ctx, todo, approvals)
		}
	}
	if errors.Is(fixErr, errPreparedStale) {
		return fixErr
	}
	c.noteReverted(cyc.Reverted)
	outcomes := map[string]fix.Result{}
	for _, r := range cyc.Results {
		outcomes[r.ID] = r
	}
	rows := make([]state.TriageRow, 0, len(table.Rows))
	for _, row := range table.Rows {
		out := string(row.Outcome)
		if r, ok := outcomes[row.FindingID]; ok {
			out = fixOutcome(r.Outcome)
		}
		if fixErr != nil && out == loop.OutcomeFixed {
			out = loop.OutcomeReverted
		}
		just := row.Justification
		if just == "" {
			just = row.Reason // Tier 3 rows carry their escalation reason (H3)
		}
		rows = append(rows, state.TriageRow{FindingID: row.FindingID, Engine: row.Engine, CommentID: row.CommentID,
			Tier: int(row.Tier), Justification: just, Outcome: out, Key: loop.NoProgressKey(byID[row.FindingID])})
	}
	rows = loop.WithSources(rows, byID)
	c.st = loop.RecordFixCycle(c.st, loop.FixResult{Rows: rows}, c.Now())
	c.res.Tests, c.res.TestFindings = cyc.Tests, cyc.TestFindings
	if fixErr != nil {
		return fmt.Errorf("fix cycle: %w", fixErr)
	}
	c.fixing = &fixWork{cyc: cyc, byID: byID, table: table}
	commit := loop.CommitEffects(c.st, cyc.Commit)
	c.logEffects(commit)
	if err := c.execute(ctx, commit); err != nil {
		return err
	}
	if len(commit) > 0 && c.res.Pushed == "" {
		return nil // refused: reported, nothing follows (B5)
	}
	pushed := c.res.Pushed
	out := loop.FixOutcome{Pushed: pushed, Findings: byID}
	for _, r := range cyc.Results {
		out.Results = append(out.Results, loop.FixResultRow{ID: r.ID, Outcome: fixOutcome(r.Outcome), Reply: r.Reply})
	}
	for _, row := range table.Rows {
		if row.Reply != "" {
			out.Rows = append(out.Rows, loop.TriageReply{FindingID: row.FindingID, Tier: int(row.Tier), Disagreed: row.Outcome == triage.OutcomeDisagreed, Reply: row.Reply})
		}
	}
	var retrigger []loop.TriggerRequest
	if pushed != "" {
		retrigger = loop.RetriggerAfterPushAt(c.st, c.views, pushed, c.loopCfg, c.Now())
	}
	after := loop.AfterFix(c.st, out, retrigger, c.facts())
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
	cyc, byID := c.fixing.cyc, c.fixing.byID
	why, err := c.overCaps(ctx, cyc)
	if err == nil && why == "" {
		why = commitRefusal(cyc, byID)
	}
	if err != nil || why != "" {
		_ = c.gitRunner().RestoreAll(ctx)
		if err != nil {
			return err
		}
		c.refused(why)
		return nil
	}
	_, err = c.commitAndPush(ctx, cyc, byID)
	if why, ok := refusal(err); ok {
		c.refused(why)
		return nil
	}
	return err
}

// errHeadMoved means the fix push was refused because the PR head branch
// moved while the cycle worked: another run (which claimed the status
// comment in the same instant) or a person pushed. The run stops without
// acting; the next wake sees the new head.
var errHeadMoved = errors.New("the PR head branch moved while this cycle worked (another run or a person pushed); this run stops without acting")

// headMoved reports whether the PR head branch on GitHub is no longer the
// observed head.
func (c *prCycle) headMoved(ctx context.Context, g *git.Runner) bool {
	if err := g.FetchBranch(ctx, c.obs.HeadRef, c.cfg.PushToken); err != nil {
		return false
	}
	tip, err := g.Run(ctx, "rev-parse", "--verify", "refs/remotes/origin/"+c.obs.HeadRef)
	return err == nil && strings.TrimSpace(tip) != c.obs.HeadSHA
}

func fixOutcome(o fix.Outcome) string {
	switch o {
	case fix.OutcomeFixed:
		return loop.OutcomeFixed
	case fix.OutcomeOutdated:
		return loop.OutcomeOutdated
	case fix.OutcomeDisagreed:
		return loop.OutcomeDisagreed
	}
	return loop.OutcomeReverted
}

// gitRunner returns the git runner of the checkout, with tokens kept out
// of git's environment.
func (c *prCycle) gitRunner() *git.Runner {
	return &git.Runner{Dir: c.cfg.Workspace, Env: fix.StripTokens(os.Environ()), ServerURL: c.cfg.ServerURL}
}

// runFixes puts the checkout on the PR head and runs the fix pipeline.
func (c *prCycle) runFixes(ctx context.Context, todo []loop.Finding, directions map[string]string) (fix.CycleResult, error) {
	g := c.gitRunner()
	dropped, err := g.DropPersistedCredentials(ctx)
	if err != nil {
		return fix.CycleResult{}, err
	}
	if len(dropped) > 0 {
		c.gha.Warningf("review-loop: removed the credential the checkout persisted in .git/config (%s), where every command could read it; check out with persist-credentials: false", strings.Join(dropped, ", "))
	}
	base, err := g.Snapshot(ctx)
	if err != nil {
		return fix.CycleResult{}, fmt.Errorf("reading the checkout's git config and hooks: %w", err)
	}
	c.gitBaseline = base
	if err := c.checkoutHead(ctx, g); err != nil {
		return fix.CycleResult{}, err
	}
	argv := func(name, s string) ([]string, error) {
		if s == "" {
			return nil, nil
		}
		a, err := fix.SplitCommand(s)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
		return a, nil
	}
	var errs []error
	test, err := argv("test-command", c.cfg.TestCommand)
	errs = append(errs, err)
	setup, err := argv("setup-command", c.cfg.SetupCommand)
	errs = append(errs, err)
	lint, err := argv("lint-command", c.cfg.LintCommand)
	errs = append(errs, err)
	fixer, err := argv("fixer-command", c.cfg.FixerCommand)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return fix.CycleResult{}, err
	}
	provider := fix.ProviderSuggestions
	switch c.cfg.Fixer {
	case fix.ProviderCommand, fix.ProviderClaudeCode, fix.ProviderCodex:
		provider = c.cfg.Fixer
	}
	// An agent reads its instruction files from the base branch, never
	// from the PR: fetch it first.
	agentBase := ""
	if provider == fix.ProviderClaudeCode || provider == fix.ProviderCodex {
		if err := g.FetchBranch(ctx, c.obs.BaseRef, c.cfg.PushToken); err != nil {
			return fix.CycleResult{}, fmt.Errorf("fetching the base branch %s for the agent's instruction files: %w", c.obs.BaseRef, err)
		}
		agentBase = "refs/remotes/origin/" + c.obs.BaseRef
	}
	p := fix.NewPipeline(fix.Config{
		Dir: c.cfg.Workspace, Git: g, Env: c.childEnv(),
		TestCommand: test, SetupCommand: setup, LintCommand: lint, FixerCommand: fixer,
		FixerTimeout: c.cfg.FixerTimeout, ContextFiles: c.cfg.ContextFiles,
		Agent: c.agent(), AgentBase: agentBase,
	})
	res, err := p.RunCycle(ctx, fix.CycleInput{Findings: todo, Directions: directions, Provider: provider, Fork: c.obs.IsFork})
	for _, l := range res.Log {
		c.Log.Info("fix", "step", l)
	}
	return res, err
}

// checkoutHead makes sure the checkout is the PR head branch at the
// observed head SHA; anything else is refused (W3).
func (c *prCycle) checkoutHead(ctx context.Context, g *git.Runner) error {
	head, err := g.Head(ctx)
	if err == nil && head == c.obs.HeadSHA {
		if branch, berr := g.Run(ctx, "rev-parse", "--abbrev-ref", "HEAD"); berr == nil && strings.TrimSpace(branch) == c.obs.HeadRef {
			return nil
		}
	}
	ref := "refs/remotes/origin/" + c.obs.HeadRef
	if err := g.FetchBranch(ctx, c.obs.HeadRef, c.cfg.PushToken); err != nil {
		return fmt.Errorf("fetching the PR head branch %s: %w", c.obs.HeadRef, err)
	}
	if _, err := g.Run(ctx, "checkout", "-B", c.obs.HeadRef, ref); err != nil {
		return fmt.Errorf("checking out the PR head branch %s: %w", c.obs.HeadRef, err)
	}
	if head, err = g.Head(ctx); err != nil {
		return err
	}
	if head != c.obs.HeadSHA {
		return &git.RefusedError{Rule: "W3", Reason: fmt.Sprintf("the branch head %s is not the observed PR head %s: someone pushed", shortSHA(head), shortSHA(c.obs.HeadSHA))}
	}
	return nil
}

// commitAndPush makes the cycle's one commit (B6, E4), records it as the
// pending push before pushing (E5), pushes, and records the push.
func (c *prCycle) commitAndPush(ctx context.Context, cyc fix.CycleResult, byID map[string]loop.Finding) (string, error) {
	protected, err := c.gh.BranchProtected(ctx, c.owner, c.repo, c.obs.HeadRef)
	if err != nil {
		return "", fmt.Errorf("asking whether %s is protected: %w", c.obs.HeadRef, err)
	}
	repo := &git.Repo{Git: c.gitRunner(), Guard: git.Guard{
		HeadBranch: c.obs.HeadRef, DefaultBranch: c.obs.DefaultBranch, Protected: protected,
		Fork: c.obs.IsFork, ObservedHeadSHA: c.obs.HeadSHA,
	}, Baseline: c.gitBaseline}
	var closed []git.Closed
	var fixed []loop.Finding
	for _, id := range cyc.Fixed() {
		f := byID[id]
		fixed = append(fixed, f)
		closed = append(closed, git.Closed{ID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Title: f.Title})
	}
	msg := git.Message(c.st.Iteration, c.number, cyc.Changed, closed)
	sha, err := repo.Commit(ctx, git.CommitRequest{Files: cyc.Changed, Message: msg, Author: git.Identity{Name: c.cfg.AuthorName, Email: c.cfg.AuthorEmail}})
	if err != nil {
		_ = repo.Git.RestoreAll(ctx)
		return "", fmt.Errorf("committing the cycle's fixes: %w", err)
	}
	// CV1: the commit with the lines it wrote and the findings it fixed.
	c.st = loop.RecordFixCommit(c.st, sha, c.obs.HeadSHA, observe.CommitLines(ctx, repo.Git, c.obs.HeadSHA, sha, c.Log), fixed, c.Now())
	c.st = loop.RecordPendingPush(c.st, sha)
	if err := c.save(ctx); err != nil { // write-ahead: saved before the push
		_, _ = repo.Git.Run(ctx, "reset", "--hard", c.obs.HeadSHA)
		return "", err
	}
	if err := repo.Push(ctx, c.obs.HeadRef, c.cfg.PushToken); err != nil {
		_, _ = repo.Git.Run(ctx, "reset", "--hard", c.obs.HeadSHA)
		var pe *git.PushError
		if errors.As(err, &pe) && pe.Rejected && c.headMoved(ctx, repo.Git) {
			return "", errHeadMoved
		}
		return "", fmt.Errorf("pushing the fix commit: %w", err)
	}
	if c.CrashAfterPush != nil && c.CrashAfterPush() {
		c.res.Pushed = sha
		return "", ErrCrashed
	}
	c.st = loop.RecordPush(c.st, sha)
	c.res.Pushed = sha
	if c.cfg.PushToken == c.cfg.GitHubToken {
		if st, isNew := loop.RecordNotice(c.st, "push-with-github-token"); isNew {
			c.st = st
			c.gha.Noticef("review-loop: the fix commit was pushed with GITHUB_TOKEN, so it starts no workflow (the PR's CI will not run on it); set push-token to an app token or PAT to run CI on fixes. review-loop re-dispatches itself instead.")
		}
	}
	return sha, nil
}

// maxRevertedListed bounds the paths one notice names.
const maxRevertedListed = 10

// noteReverted says on the status comment which changes the fix commit
// leaves out and why (TB9), one notice per reason.
func (c *prCycle) noteReverted(rs []fix.Revert) {
	var whys []string
	paths := map[string][]string{}
	for _, r := range rs {
		if _, ok := paths[r.Why]; !ok {
			whys = append(whys, r.Why)
		}
		paths[r.Why] = append(paths[r.Why], r.Path)
	}
	for _, why := range whys {
		ps := paths[why]
		more := ""
		if len(ps) > maxRevertedListed {
			more = fmt.Sprintf(" and %d more", len(ps)-maxRevertedListed)
			ps = ps[:maxRevertedListed]
		}
		c.notices = append(c.notices, fmt.Sprintf("left out of the fix commit: %s%s — %s", strings.Join(ps, ", "), more, why))
	}
}

// commitRefusal is TB9 once more, at the commit, whatever produced the
// change (the fix pipeline, or the prepare job's patch the publish job
// checked): it says why a file the commit would hold is never committed,
// "" when every one may be.
func commitRefusal(cyc fix.CycleResult, byID map[string]loop.Finding) string {
	onPath := map[string]bool{}
	for _, id := range cyc.Fixed() {
		onPath[byID[id].Path] = true
	}
	for _, p := range cyc.Changed {
		if why := fix.CommitRefusal(p, onPath[p]); why != "" {
			return fmt.Sprintf("refused (TB9): the fix commit would change %s: %s; nothing was pushed", report.Plain(p, 200), why)
		}
	}
	return ""
}

// overCaps says why the cycle's patch is refused, "" when it is within
// max-patch-files and max-patch-bytes: the patch the publish job read, or
// in a single job the checkout's diff of the files to commit.
func (c *prCycle) overCaps(ctx context.Context, cyc fix.CycleResult) (string, error) {
	if n := len(cyc.Changed); n > c.cfg.MaxPatchFiles {
		return fmt.Sprintf("refused (publish caps): the fix changes %d files, over max-patch-files %d; nothing was pushed — fix these findings by hand or raise the cap", n, c.cfg.MaxPatchFiles), nil
	}
	patch := c.patch
	if c.prepared == nil {
		var err error
		if patch, err = c.diff(ctx, cyc.Changed); err != nil {
			return "", err
		}
	}
	if n := len(patch); n > c.cfg.MaxPatchBytes {
		return fmt.Sprintf("refused (publish caps): the fix patch is %d bytes, over max-patch-bytes %d; nothing was pushed — fix these findings by hand or raise the cap", n, c.cfg.MaxPatchBytes), nil
	}
	return "", nil
}

// refusal reports whether err is B5 refusing the cycle's commit or push:
// our guard's refusal (the API says the branch is protected or is the
// default branch), or the remote's (GitHub answers a push to a protected
// branch with "GH006: Protected branch update failed"). An outside push
// (W3) or a failed push is no refusal: it stays an error.
func refusal(err error) (string, bool) {
	var re *git.RefusedError
	if errors.As(err, &re) && re.Rule == "B5" {
		return re.Error(), true
	}
	var pe *git.PushError
	if errors.As(err, &pe) && pe.Rejected && (strings.Contains(pe.Output, "GH006") || strings.Contains(strings.ToLower(pe.Output), "protected branch")) {
		return fmt.Sprintf("refused (B5): the remote refused the push to protected branch %q", pe.Branch), true
	}
	return "", false
}

// refused hands the PR back in this cycle after a B5 refusal (H9): the
// fixes stay unpushed, the rows are marked refused, the run warns and
// exits successfully, and the status comment is final.
func (c *prCycle) refused(why string) {
	c.plan, c.st = loop.RecordRefusal(c.st, c.plan, why, c.Now())
	c.res.Plan = c.plan
	c.gha.Warningf("review-loop: PR #%d: %s; the cycle's fixes were not pushed and the PR is handed back", c.number, why)
}
