package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/state"
)

// prCycle is one pull request's cycle in progress.
type prCycle struct {
	*runner
	wake    event.Wake
	owner   string
	repo    string
	number  int
	started time.Time
	// waited is in-job waiting, excluded from active work (B2).
	waited time.Duration

	obs      *github.Observation
	st       state.State
	comment  *github.IssueComment // our status comment, nil before the first save
	claim    string               // this run's claim token in the status comment
	readOnly bool                 // the token may not write to the PR: report only
	prepared *prepared.Decisions  // publish mode: the prepare job's decisions
	patch    []byte               // publish mode: the prepare job's checked patch
	selected []engines.Engine
	env      engines.Env
	views    []loop.EngineView
	plan     loop.Plan
	notices  []string
	res      PRResult
	// gitBaseline is the checkout's git config and hooks before any
	// command of this cycle ran; every push is checked against it (TB2).
	gitBaseline *git.Snapshot
	// finished is set once the outputs and job summary are written (H9).
	finished bool
	// lost says why a loop's state could not be found or read (SC3).
	lost string
	// ledger is what this cycle added to the cost ledger so far (CL1).
	ledger ledgered
	// rateRead is set once this cycle asked for the REST budget (B7).
	rateRead bool
	// pushesRead and pushHistory: the commits pushed since the last
	// look, read once per cycle (CV4, CV5).
	pushesRead  bool
	pushHistory *loop.PushHistory
}

// errLostRace means another run changed the status comment since this one
// read it: that run owns the cycle (optimistic concurrency).
var errLostRace = errors.New("another run updated the status comment first; this run stops without acting")

// cycle runs one loop cycle for one PR: load state, observe, decide, act,
// save, chain. DESIGN.md "One cycle per workflow run".
func (r *runner) cycle(ctx context.Context, wake event.Wake, number int) (PRResult, error) {
	c := &prCycle{runner: r, wake: wake, owner: wake.Owner, repo: wake.Repo, number: number, started: r.Now()}
	c.res.PR = number
	c.startLedger()
	c.claim = fmt.Sprintf("%d-%d-%d", r.cfg.RunID, number, c.started.UnixNano())
	r.gha.Group(fmt.Sprintf("review-loop: PR #%d", number))
	defer r.gha.EndGroup()
	err := c.start(ctx)
	if errors.Is(err, errLostRace) || errors.Is(err, errPreparedStale) {
		r.gha.Noticef("review-loop: PR #%d: %v", number, err)
		c.res.Skipped = err.Error()
		return c.res, nil
	}
	if err != nil && !errors.Is(err, ErrCrashed) && !c.finished {
		c.finishError(err)
	}
	return c.res, err
}

func (c *prCycle) run(ctx context.Context) error {
	if err := c.observe(ctx); err != nil {
		return err
	}
	if why, err := c.adoptObservedConfig(c.obs); err != nil || why != "" {
		if why != "" {
			c.res.Skipped = why
			c.gha.Noticef("review-loop: nothing to do: %s", why)
		}
		return err
	}
	if err := c.load(ctx); err != nil {
		return err
	}
	if err := c.failClosed(); err != nil {
		return err
	}
	if c.wake.Kind == event.KindSweep && c.st.Status != state.StatusActive {
		c.res.Skipped = "no live loop on this PR"
		c.markLive(ctx) // a finished loop still marked live is unmarked
		return nil
	}
	if c.wake.Kind != event.KindCommand && c.st.Status == "" && !loop.MayStartLoop(loop.StartPolicy(c.cfg.StartOn), c.askedToStart()) {
		c.res.Skipped = "no loop on this PR, and start-on is command: `" + c.cfg.TriggerPhrase + " start`, the `" +
			event.StartLabel + "` label or a workflow_dispatch starts one"
		c.gha.Noticef("review-loop: PR #%d: %s", c.number, c.res.Skipped)
		return nil
	}
	if c.wake.Kind == event.KindCommand {
		done, err := c.command(ctx)
		if done || err != nil {
			return err
		}
	}
	if c.obs.State != "OPEN" && c.st.Status == "" {
		return fmt.Errorf("PR #%d is not OPEN — current state: %s", c.number, c.obs.State)
	}
	if err := c.selectEngines(ctx); err != nil {
		return err
	}
	c.readWorkflowRuns(ctx)
	c.observeEngines()
	before := c.st
	judges, err := c.decide(ctx)
	if err != nil {
		return err
	}
	c.logPlan()
	switch {
	case c.cfg.Mode == ModePrepare:
		return c.prepare(ctx, judges)
	case c.prepared != nil:
		if err := c.checkPrepared(); err != nil {
			return err
		}
	}
	if c.cfg.DryRun {
		c.gha.Noticef("review-loop: dry run: would %s (%s); nothing written", c.plan.Action, c.plan.Why)
		c.dryRun()
		return nil
	}
	if c.plan.Action == loop.ActionNone && c.wake.Kind != event.KindCommand {
		c.res.Skipped = "the loop for this PR is finished; only `" + c.cfg.TriggerPhrase + " start` restarts it"
		c.st = before
		c.markLive(ctx) // a finished loop left marked live is unmarked
		c.finish()      // H9: a wake on a finished loop still sets every output
		return nil
	}
	// A cycle that acts claims the status comment first: the write fails if
	// another run changed the comment since we read it. A cycle that only
	// records a wait or a hand-back writes once, unchecked: an idle wake
	// costs one read and one write.
	acts := c.acts()
	if !acts && c.wake.Kind != event.KindCommand && c.unchanged() {
		// C2: an idle wake (nothing new, nothing to do) writes nothing:
		// the status comment already says what it would say.
		c.st = before
		c.res.Unchanged = true
		c.finish()
		return nil
	}
	if acts {
		if err := c.save(ctx); err != nil {
			return err
		}
	}
	if c.readOnly {
		c.finish()
		return nil
	}
	actErr := c.act(ctx)
	if errors.Is(actErr, errLostRace) || errors.Is(actErr, ErrCrashed) || errors.Is(actErr, errPreparedStale) {
		return actErr
	}
	if actErr != nil {
		c.st = loop.RecordError(c.st, c.publicError(actErr), false, c.Now())
		c.gha.Errorf("review-loop: PR #%d: %v", c.number, actErr)
	}
	c.st = loop.AddActiveWork(c.st, c.Now().Sub(c.started)-c.waited)
	if err := c.write(ctx, acts); err != nil {
		return errors.Join(actErr, err)
	}
	c.markLive(ctx)
	c.chain(ctx)
	c.finish()
	return actErr
}

// decide judges the prose verdicts and decides on the observed engines
// (c.views), setting c.plan and c.st. A run with no checkout clones first
// when the decision reads the tree, and after a fix plan clones,
// fingerprints the findings and decides again on them: a fix needs the
// tree, and so does its won't-fix memory (Decide is pure; without
// remembered decisions the plan is the same).
func (c *prCycle) decide(ctx context.Context) (map[string]loop.JudgeResult, error) {
	if err := c.treeBeforeDecide(ctx); err != nil {
		return nil, err
	}
	c.fillContextHashes(ctx)
	judges, err := c.judgeAll(ctx)
	if err != nil {
		return nil, err
	}
	before := c.st
	c.plan, c.st = loop.Decide(before, c.loopObservation(ctx, judges), c.loopCfg)
	if c.plan.Action == loop.ActionFix && c.needsTree() {
		if err := c.ensureTree(ctx, "fixes"); err != nil {
			return nil, err
		}
		c.fillContextHashes(ctx)
		c.plan, c.st = loop.Decide(before, c.loopObservation(ctx, judges), c.loopCfg)
	}
	c.res.Plan = c.plan
	return judges, nil
}

// acts reports whether the plan writes to GitHub beyond the status
// comment (or may, after an in-job wait).
func (c *prCycle) acts() bool {
	switch {
	case c.plan.MarkReady, c.plan.Action == loop.ActionTrigger, c.plan.Action == loop.ActionFix, loop.RecallsToAnswer(c.plan):
		return true
	case c.plan.Action == loop.ActionWait:
		return c.cfg.InJobWait > 0
	case c.plan.Action == loop.ActionHandBack:
		return c.cfg.NonBlocking == "issue" && len(c.st.NonBlocking) > 0
	}
	return false
}

// observe reads the PR in one query (plus pages).
func (c *prCycle) observe(ctx context.Context) error {
	obs, err := c.gh.Observe(ctx, c.owner, c.repo, c.number)
	if err != nil {
		return err // the client names the PR and the operation
	}
	c.obs = obs
	return nil
}

// load finds our status comment (by marker AND author) and decodes the
// state; a state comment written by anyone else is ignored and reported.
//
// SC4: the earliest state comment by our identity is the state; later ones
// carrying the marker (a second run's, or a copy) are reported on the
// status comment and never adopted. SC3: when a loop existed but its state
// cannot be read (our own comment's state is unreadable), or the
// observation could not read every issue comment and no state was found
// in those it read, the cycle fails closed: only `reset` starts over, in
// our own comment when there is one.
func (c *prCycle) load(ctx context.Context) error {
	c.st = state.New()
	comments := slices.Clone(c.obs.IssueComments)
	slices.SortStableFunc(comments, func(a, b github.IssueComment) int {
		if d := a.CreatedAt.Compare(b.CreatedAt); d != 0 {
			return d
		}
		return cmp.Compare(a.DatabaseID, b.DatabaseID)
	})
	for i := range comments {
		ic := &comments[i]
		st, found, err := state.Decode(ic.Body)
		if !found {
			continue
		}
		if !sameLogin(ic.Author.Login, c.obs.ViewerLogin) {
			c.gha.Warningf("review-loop: ignored a review-loop state comment written by @%s (comment %d): only review-loop's own identity (@%s) may hold the state",
				ic.Author.Login, ic.DatabaseID, c.obs.ViewerLogin)
			continue
		}
		if c.comment != nil {
			msg := fmt.Sprintf("comment %d also carries a review-loop state; the earliest one, comment %d, is the state and the other is ignored (SC4)", ic.DatabaseID, c.comment.DatabaseID)
			c.gha.Warningf("review-loop: %s", msg)
			c.notices = append(c.notices, msg)
			continue
		}
		// An unreadable state names no owner and keeps the SC3 path below:
		// the cycle fails closed and only reset goes on.
		owner, why, oerr := c.owned(ctx, ic, st, err == nil)
		if oerr != nil {
			return oerr
		}
		if err == nil && why != "" {
			msg := fmt.Sprintf("comment %d carries a review-loop state under review-loop's identity but is not adopted: %s; another workflow of the repository may have written it (SC4)", ic.DatabaseID, why)
			c.gha.Warningf("review-loop: %s", msg)
			c.notices = append(c.notices, msg)
			continue
		}
		if err == nil {
			st.Owner = owner
		}
		var newer *state.NewerVersionError
		if errors.As(err, &newer) {
			return fmt.Errorf("status comment %d: %w", ic.DatabaseID, err)
		}
		c.comment = ic
		if err != nil {
			c.lost = fmt.Sprintf("the state in status comment %d cannot be read (%v)", ic.DatabaseID, err)
			continue
		}
		c.st = st
	}
	if c.comment == nil && !c.obs.IssueCommentsComplete {
		c.lost = fmt.Sprintf("not every comment of PR #%d could be read (%d read), and the state is not among those read", c.number, len(comments))
	}
	return nil
}

// failClosed is rule SC3: a loop whose state is lost or unreadable is
// never silently replaced by a new one. Only `reset` goes on; everything
// else stops here, writing nothing, with an error naming the way out.
func (c *prCycle) failClosed() error {
	if c.lost == "" {
		return nil
	}
	if c.wake.Kind == event.KindCommand && c.wake.Command != nil && c.wake.Command.Kind == event.CommandReset {
		c.notices = append(c.notices, "reset: "+c.lost+"; a new loop starts")
		return nil
	}
	return fmt.Errorf("PR #%d: %s: this cycle stops without acting rather than start a new loop over it; comment `%s reset` to start over (SC3)", c.number, c.lost, c.cfg.TriggerPhrase)
}

func sameLogin(a, b string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), "[bot]") }
	return a != "" && norm(a) == norm(b)
}

// command applies a maintainer command; done means the cycle ends here.
func (c *prCycle) command(ctx context.Context) (bool, error) {
	cmd := c.wake.Command
	if cmd == nil {
		return true, nil
	}
	if why := c.refuseWithoutWrite(ctx, string(cmd.Kind)); why != "" {
		c.gha.Warningf("review-loop: %s", why)
		c.react(ctx, "confused")
		return true, nil
	}
	c.react(ctx, "eyes")
	now := c.Now()
	switch cmd.Kind {
	case event.CommandStatus:
		if c.st.Status == "" {
			c.notices = append(c.notices, "no loop has run on this PR yet; `"+c.cfg.TriggerPhrase+" start` starts one")
		}
		c.acknowledge(ctx)
		return true, c.reportOnly(ctx)
	case event.CommandResolveStale:
		c.selectEnginesQuiet()
		c.observeEngines()
		c.resolveStale(ctx)
		c.acknowledge(ctx)
		return true, c.reportOnly(ctx)
	case event.CommandUnknown:
		c.gha.Warningf("review-loop: %s", cmd.Message)
		c.refuse(ctx, cmd.Message)
		c.finishUnchanged()
		return true, nil
	}
	lc := loop.Command{Kind: loop.CommandKind(cmd.Kind), FindingID: cmd.FindingID, Direction: cmd.Direction, By: c.wake.Actor, At: now}
	if cmd.Kind == event.CommandApprove {
		lc.Known = c.knownFindings()
	}
	st, err := loop.ApplyCommand(c.st, lc)
	if err != nil {
		c.gha.Warningf("review-loop: %v", err)
		c.refuse(ctx, err.Error())
		c.finishUnchanged()
		return true, nil
	}
	if cmd.Kind == event.CommandStart && len(cmd.Engines) > 0 {
		names, err := c.registry.ParseNames(strings.Join(cmd.Engines, ","))
		if err != nil {
			c.gha.Warningf("review-loop: start: %v", err)
			c.refuse(ctx, "start: "+err.Error())
			c.finishUnchanged()
			return true, nil
		}
		st.Engines = names
	}
	c.st = st
	c.acknowledge(ctx)
	switch cmd.Kind {
	case event.CommandStop, event.CommandApprove, event.CommandSkip:
		if cmd.Kind == event.CommandStop || c.st.Status != state.StatusActive {
			return true, c.reportOnly(ctx)
		}
	}
	return false, nil
}

// reportOnly refreshes the status comment without deciding or acting
// (status, stop, and decisions on a loop that is not running).
func (c *prCycle) reportOnly(ctx context.Context) error {
	c.selectEnginesQuiet()
	c.readWorkflowRuns(ctx)
	c.observeEngines()
	c.plan = statusPlan(c.st, c.views, c.obs.HeadSHA)
	c.res.Plan = c.plan
	if err := c.save(ctx); err != nil {
		return err
	}
	c.markLive(ctx)
	c.finish()
	return nil
}

// resolveStale resolves, in one request, the open threads of engine
// findings that no longer appear (E9); Tier 3 findings still active stay
// open since they are not stale.
func (c *prCycle) resolveStale(ctx context.Context) {
	var threads []string
	for _, v := range c.views {
		for _, f := range loop.StaleFindings(v, c.obs.HeadSHA) {
			threads = append(threads, f.ThreadID)
		}
	}
	if len(threads) == 0 {
		c.notices = append(c.notices, "resolve-stale: no stale review thread is open")
		return
	}
	c.resolveThreads(ctx, threads)
	c.notices = append(c.notices, fmt.Sprintf("resolve-stale: resolved %d stale review thread(s)", len(threads)))
}

// react acknowledges a command with a reaction; failure only logs.
func (c *prCycle) react(ctx context.Context, content string) {
	if c.cfg.DryRun || c.wake.CommentID == 0 {
		return
	}
	if err := c.gh.AddIssueCommentReaction(ctx, c.owner, c.repo, c.wake.CommentID, content); err != nil {
		c.Log.Warn("adding a reaction", "comment", c.wake.CommentID, "err", err)
	}
}

// selectEngines decides the loop's engines (IN2): those saved in state,
// else the `engines` input, else every engine the repository shows
// evidence of (engineEvidence). At the loop's start it records which
// engines were seen: one named but never seen is asked once (loop.unseen).
func (c *prCycle) selectEngines(ctx context.Context) error {
	c.env = c.engineEnv()
	names := c.st.Engines
	if len(names) == 0 {
		var named []string
		if len(c.cfg.Engines) > 0 {
			var err error
			if named, err = c.registry.ParseNames(strings.Join(c.cfg.Engines, ",")); err != nil {
				return fmt.Errorf("input engines: %w", err)
			}
		}
		var installed map[string]bool
		names, installed = loop.SelectEngines(c.registry.Names(), named, c.engineEvidence(ctx, named))
		if n := evidenceNotice(c.registry.Names(), installed); n != "" && len(named) == 0 {
			c.gha.Noticef("review-loop: %s", n)
		}
		c.st = loop.RecordInstalled(c.st, installed)
		if len(names) == 0 {
			return errors.New("no review engine shows on this repository (no review of one on this or a recent PR, no Claude workflow, no CodeRabbit or Gemini config): install one (docs/engines) or name engines in the `engines` input")
		}
	}
	c.st.Engines = names
	c.selected = c.selected[:0]
	for _, n := range names {
		e, ok := c.registry.Lookup(n)
		if !ok {
			return fmt.Errorf("state names engine %q, which this review-loop does not know (known: %s)", n, strings.Join(c.registry.Names(), ", "))
		}
		c.selected = append(c.selected, e)
	}
	return nil
}

// engineEnv is what adapters may know besides the observation: the
// default branch's workflow files come with the observation itself (Claude
// reads its install and its traps there).
func (c *prCycle) engineEnv() engines.Env {
	env := engines.Env{HasTriggerToken: c.cfg.TriggerToken != "", Now: c.Now(),
		WorkflowFiles: make([]engines.WorkflowFile, 0, len(c.obs.WorkflowFiles)), Triggers: engineTriggers(c.st)}
	for _, f := range c.obs.WorkflowFiles {
		env.WorkflowFiles = append(env.WorkflowFiles, engines.WorkflowFile{Path: f.Path, Content: f.Text})
	}
	return env
}

// selectEnginesQuiet selects engines for a report without failing.
func (c *prCycle) selectEnginesQuiet() {
	c.env = c.engineEnv()
	c.selected = nil
	names := c.st.Engines
	if len(names) == 0 {
		names = c.cfg.Engines
	}
	for _, n := range names {
		if e, ok := c.registry.Lookup(n); ok {
			c.selected = append(c.selected, e)
		}
	}
}

func (c *prCycle) observeEngines() {
	c.dropOwnCheckRuns()
	c.views = c.views[:0]
	for _, e := range c.selected {
		c.views = append(c.views, e.Observe(c.obs, c.env))
	}
	c.st = loop.LedgerAutomatic(c.st, c.views, c.obs.HeadSHA)
}

// judgeAll asks the judge about prose-only engines where the loop needs a
// verdict (J1, cached per SHA: J4).
func (c *prCycle) judgeAll(ctx context.Context) (map[string]loop.JudgeResult, error) {
	if c.prepared != nil {
		return c.prepared.Judges, nil // the publish job runs no judge command
	}
	out := map[string]loop.JudgeResult{}
	for _, v := range c.views {
		if !loop.NeedsJudge(c.st, v, c.obs.HeadSHA) {
			continue
		}
		m := judge.Material{Engine: v.Engine, HeadSHA: c.obs.HeadSHA, VerdictSetProven: v.VerdictSetProven}
		for _, vd := range v.Verdicts {
			if vd.SHA == c.obs.HeadSHA {
				m.Verdicts = append(m.Verdicts, vd)
			}
		}
		m.Findings = append(m.Findings, loop.ActiveFindings(v, c.obs.HeadSHA)...)
		res, err := judge.Run(ctx, c.judge, m)
		if err != nil {
			c.gha.Warningf("review-loop: judging %s: %v", v.Engine, err)
		}
		jr := loop.JudgeResult{Verdict: res.Verdict, Reason: res.Reason}
		for i, it := range res.Items {
			if coveredByFinding(it, m.Findings) {
				continue // the inline finding itself enters triage
			}
			jr.Items = append(jr.Items, loop.Finding{
				ID: fmt.Sprintf("%s-judge-%s-%d", v.Engine, shortSHA(c.obs.HeadSHA), i+1), Engine: v.Engine,
				Title: it.Summary, Body: it.Summary, Path: it.Path, Line: it.Line, Severity: loop.SeverityUnknown,
			})
		}
		out[v.Engine] = jr
	}
	return out, nil
}

// coveredByFinding reports whether a judge item names the place of an
// inline finding, which triage already holds.
func coveredByFinding(it judge.Item, fs []loop.Finding) bool {
	for _, f := range fs {
		if it.Path != "" && it.Path == f.Path && (it.Line == 0 || it.Line == f.Line || (it.Line >= f.StartLine && it.Line <= f.Line)) {
			return true
		}
	}
	return false
}

func (c *prCycle) loopObservation(ctx context.Context, judges map[string]loop.JudgeResult) loop.Observation {
	o := loop.Observation{
		Now: c.Now(), PR: c.number, HeadSHA: c.obs.HeadSHA, PRState: c.obs.State,
		IsDraft: c.obs.IsDraft, IsFork: c.obs.IsFork, Engines: c.views, Judge: judges, JudgeUntrusted: c.prepared != nil,
		Commits: c.obs.Commits, ChangedLines: c.obs.Additions + c.obs.Deletions, ChangedChars: c.changedChars(ctx),
		HeadPusher: c.headPusher(), HeadPusherBot: isBotLogin(c.headPusher()), Humans: c.humans(),
		Pushes: c.pushes(ctx), Generated: c.generated(), FixersRunning: c.fixersRunning(),
	}
	o.Budget, o.GraphQLBudget = c.budgets(ctx)
	return o
}

func (c *prCycle) logPlan() {
	c.Log.Info("decided", "pr", c.number, "action", c.plan.Action, "why", c.plan.Why, "reason", c.plan.EndReason)
	for _, e := range c.plan.Engines {
		// S4: two lines per engine, never collapsed.
		fmt.Fprintf(c.Out, "%s: review %s%s\n", e.Engine, e.State, markSuffix(e))
		fmt.Fprintf(c.Out, "%s: %d active finding(s)%s\n", e.Engine, len(e.Active), idList(e.Active))
	}
}

func markSuffix(e loop.EngineReport) string {
	s := ""
	if e.Verdict != "" {
		s += " · verdict " + string(e.Verdict)
	}
	if e.Note != "" {
		s += " · " + e.Note
	}
	return s
}

func idList(ids []int64) string {
	if len(ids) == 0 {
		return ""
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return ": " + strings.Join(parts, ", ")
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// statusPlan reports every engine without deciding anything (status, stop).
func statusPlan(st state.State, views []loop.EngineView, head string) loop.Plan {
	p := loop.Plan{Action: loop.ActionNone, Why: "status only"}
	if st.Status == state.StatusDone || st.Status == state.StatusStopped {
		p.Action, p.EndReason = loop.ActionHandBack, loop.EndReason(st.EndReason)
	}
	for _, v := range views {
		es := st.EngineStates[v.Engine]
		rep := loop.EngineReport{Engine: v.Engine, State: loop.ReviewStateOf(es, v, head), LowConfidence: v.LowConfidence}
		for _, f := range loop.ActiveFindings(v, head) {
			rep.Active = append(rep.Active, f.CommentID)
		}
		if ok, _ := loop.IsClean(st, v, head); ok {
			rep.Verdict = loop.VerdictClean
		}
		p.Engines = append(p.Engines, rep)
	}
	slices.SortFunc(p.Engines, func(a, b loop.EngineReport) int { return strings.Compare(a.Engine, b.Engine) })
	return p
}
