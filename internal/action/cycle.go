package action

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/fixcycle"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file is what happens in a cycle, in one place: observe, load the
// state, decide (loop.Decide), plan the effects (loop.PlanCycle), execute
// them (execute.go), and close (loop.Closing).

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
	// ledger is what this cycle added to the cost ledger so far (CL1).
	ledger ledgered
	// pushRequests are the requests the push path's own client sent
	// (TB13), counted in the ledger.
	pushRequests github.Counts
	// fixing is the fix in progress (fixcycle.go).
	fixing *fixcycle.Outcome
	// decided are the won't-fix decisions the fix's replies gave, with
	// each reply's URL (WF1), remembered once the replies are posted.
	decided []loop.WontFixDecision
	// pushHistory are the commits pushed since the last look, read once
	// per cycle before the decision (CV4, CV5).
	pushHistory *loop.PushHistory
	// withheld: a write held a secret and was refused (TB14); the cycle
	// hands back and writes nothing else.
	withheld bool
}

// errLostRace means another run changed the status comment since this one
// read it: that run owns the cycle (optimistic concurrency).
var errLostRace = errors.New("another run updated the status comment first; this run stops without acting")

// stops reports whether err ends the cycle without acting and without
// failing: another run owns it (errLostRace, errHeadMoved), or the
// prepared cycle no longer matches the PR (errPreparedStale).
func stops(err error) bool {
	return errors.Is(err, errLostRace) || errors.Is(err, errHeadMoved) || errors.Is(err, errPreparedStale)
}

// cycle runs one loop cycle for one PR: load state, observe, decide, act,
// save, chain. DESIGN.md "One cycle per workflow run".
func (r *runner) cycle(ctx context.Context, wake event.Wake, number int) (PRResult, error) {
	c := &prCycle{runner: r, wake: wake, owner: wake.Owner, repo: wake.Repo, number: number, started: r.Now()}
	c.res.PR = number
	c.startLedger()
	c.claim = fmt.Sprintf("%d-%d-%d", r.cfg.RunID, number, c.started.UnixNano())
	r.gha.Group(fmt.Sprintf("review-loop: PR #%d", number))
	defer r.gha.EndGroup()
	report, err := c.start(ctx)
	switch {
	case stops(err):
		r.gha.Noticef("review-loop: PR #%d: %v", number, err)
		c.res.Skipped = err.Error()
		return c.res, nil
	case errors.Is(err, ErrCrashed):
	case err != nil:
		c.finishError(err)
	case report:
		c.finish()
	}
	return c.res, err
}

// run is one cycle: observe, load the state, plan, execute, save. finish
// says whether the cycle ends with its outputs and job summary (H9): a
// cycle that does not concern this PR sets none.
func (c *prCycle) run(ctx context.Context) (finish bool, err error) {
	if err := c.observe(ctx); err != nil {
		return false, err
	}
	if why, err := c.adoptObservedConfig(c.obs); err != nil || why != "" {
		if why != "" {
			c.res.Skipped = why
			c.gha.Noticef("review-loop: nothing to do: %s", why)
		}
		return false, err
	}
	lost, err := c.load(ctx)
	if err != nil {
		return false, err
	}
	c.res.LoopBefore = c.st.Status
	reset := c.wake.Kind == event.KindCommand && c.wake.Command != nil && c.wake.Command.Kind == event.CommandReset
	if notice, refusal := loop.FailClosed(lost, reset, c.number, c.cfg.TriggerPhrase); refusal != "" {
		return false, errors.New(refusal)
	} else if notice != "" {
		c.notices = append(c.notices, notice)
	}
	wf := c.wakeFacts()
	if c.wake.Kind == event.KindStartLabel {
		// TB15: the start label asks for a loop only from someone who may
		// give the start command.
		wf.Denied = c.refuseWithoutWrite(ctx, "start")
		wf.Asked = wf.Asked && wf.Denied == ""
	}
	if skip, effects := loop.Admit(c.st, wf, c.facts()); skip != "" {
		c.res.Skipped = skip
		c.res.Quiet = len(effects) == 0
		if len(effects) == 0 {
			c.gha.Noticef("review-loop: PR #%d: %s", c.number, skip)
		}
		return false, c.executeWrites(ctx, effects)
	}
	if c.wake.Kind == event.KindCommand {
		end, err := c.command(ctx)
		if err != nil || end != loop.CommandDecides {
			return end != loop.CommandDenied, err
		}
	}
	if why := loop.MayAct(c.st, c.obs.State); why != "" {
		return false, fmt.Errorf("PR #%d %s", c.number, why)
	}
	if err := c.selectEngines(ctx); err != nil {
		return false, err
	}
	c.readWorkflowRuns(ctx)
	c.observeEngines()
	if err := observe.ReadBudget(ctx, c.gh); err != nil {
		c.Log.Warn("reading the API budget", "err", err)
	}
	c.pushHistory = observe.PushHistory(ctx, c.gh, c.owner, c.repo, c.st, c.obs.HeadSHA, c.Log)
	before := c.st
	judges, err := c.decide(ctx)
	if err != nil {
		return false, err
	}
	cyc := loop.PlanCycle(c.plan, c.st, c.facts())
	c.logPlan(cyc.Effects)
	switch {
	case c.cfg.Mode == config.ModePrepare:
		return true, c.prepare(ctx, judges, cyc)
	case c.prepared != nil:
		if err := c.checkPrepared(cyc); err != nil {
			return false, err
		}
		if w := c.prepared.Withheld; w != nil {
			// TB14: the prepare job withheld what it was to hand over.
			c.refused(w.Reason())
			cyc = loop.PlanCycle(c.plan, c.st, c.facts())
		}
	}
	if c.cfg.DryRun {
		c.gha.Noticef("review-loop: dry run: would %s (%s); nothing written", c.plan.Action, c.plan.Why)
		if !cyc.Idle && cyc.Skip == "" {
			claimed := len(cyc.Effects) > 0 && cyc.Effects[0].Kind == loop.EffectClaim
			cyc.Effects = append(cyc.Effects, loop.Closing(c.plan, c.st, c.facts(), claimed, c.plan.Action == loop.ActionFix)...)
		}
		c.res.Effects = cyc.Effects
		var table triage.Table
		fixable := map[string]bool{}
		if len(c.plan.Triage) > 0 {
			t := c.triaged(ctx)
			table = t.Table
			for _, f := range t.Todo {
				fixable[f.ID] = true
			}
		}
		c.res.DryRun = report.DryRun(c.plan, c.obs.HeadSHA, table, fixable, cyc.Effects)
		return true, nil
	}
	switch {
	case cyc.Skip != "":
		c.res.Skipped = cyc.Skip + "; only `" + c.cfg.TriggerPhrase + " start` restarts it"
		c.st = before
		return true, c.execute(ctx, cyc.Effects)
	case cyc.Idle:
		// C2: an idle wake (nothing new, nothing to do) writes nothing:
		// the status comment already says what it would say.
		c.st = before
		c.res.Unchanged, c.res.Quiet = true, true
		return true, nil
	}
	claimed := len(cyc.Effects) > 0 && cyc.Effects[0].Kind == loop.EffectClaim
	actErr := c.execute(ctx, cyc.Effects)
	if c.readOnly {
		return true, nil
	}
	if stops(actErr) || errors.Is(actErr, ErrCrashed) {
		return false, actErr
	}
	if actErr != nil {
		c.st = loop.RecordError(c.st, report.PublicError(actErr, c.runURL()), false, c.Now())
		c.gha.Errorf("review-loop: PR #%d: %v", c.number, actErr)
	}
	c.st = loop.AddActiveWork(c.st, c.Now().Sub(c.started)-c.waited)
	if err := c.execute(ctx, loop.Closing(c.plan, c.st, c.facts(), claimed, c.res.Pushed != "")); err != nil {
		return false, errors.Join(actErr, err)
	}
	return true, actErr
}

// executeWrites carries out effects unless the run writes nothing: a dry
// run, or hardened mode's prepare job.
func (c *prCycle) executeWrites(ctx context.Context, effects []loop.Effect) error {
	if c.cfg.DryRun || c.cfg.Mode == config.ModePrepare {
		return nil
	}
	return c.execute(ctx, effects)
}

// wakeFacts are what loop.Admit needs of the wake.
func (c *prCycle) wakeFacts() loop.WakeFacts {
	return loop.WakeFacts{Sweep: c.wake.Kind == event.KindSweep, Command: c.wake.Kind == event.KindCommand,
		Asked: c.askedToStart(), Policy: loop.StartPolicy(c.cfg.StartOn), Phrase: c.cfg.TriggerPhrase}
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
	observe.ContextHashes(ctx, c.gitRunner(), c.obs, c.cfg.GitHubToken, c.views, c.Log)
	judges, err := c.judgeAll(ctx)
	if err != nil {
		return nil, err
	}
	before := c.st
	c.plan, c.st = loop.Decide(before, c.loopObservation(ctx, judges, before.HumanSeenID), c.loopCfg)
	c.keepChangedChars()
	if c.plan.Action == loop.ActionFix && c.needsTree() {
		if err := c.ensureTree(ctx, "fixes"); err != nil {
			return nil, err
		}
		observe.ContextHashes(ctx, c.gitRunner(), c.obs, c.cfg.GitHubToken, c.views, c.Log)
		c.plan, c.st = loop.Decide(before, c.loopObservation(ctx, judges, before.HumanSeenID), c.loopCfg)
		c.keepChangedChars()
	}
	c.res.Plan = c.plan
	return judges, nil
}

// logPlan prints the decision: per engine the two lines of S4, then the
// effects the cycle will carry out, one per line with its rule.
func (c *prCycle) logPlan(effects []loop.Effect) {
	c.Log.Info("decided", "pr", c.number, "action", c.plan.Action, "why", c.plan.Why, "reason", c.plan.EndReason)
	for _, l := range report.EngineLines(c.plan) {
		fmt.Fprintln(c.Out, l)
	}
	c.logEffects(effects)
}

// logEffects logs the effects a cycle plans, in order.
func (c *prCycle) logEffects(effects []loop.Effect) {
	for i, e := range effects {
		c.Log.Info("plan", "pr", c.number, "step", i+1, "effect", e.String())
	}
}
