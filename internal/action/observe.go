package action

import (
	"context"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
)

// This file turns what GitHub shows into the loop's inputs: the PR in
// one query, then what internal/observe reads of it (the saved state,
// SC3, SC4; the engines and their views; the people at work on it, HY1;
// the budgets, B7), and the judge's verdicts.

// observe reads the PR in one query (plus pages).
func (c *prCycle) observe(ctx context.Context) error {
	obs, err := c.gh.Observe(ctx, c.owner, c.repo, c.number)
	if err != nil {
		return err // the client names the PR and the operation
	}
	c.obs = obs
	return nil
}

// load adopts the state the PR's comments hold (observe.State, SC3,
// SC4) and reports what it found besides; lost says why a loop's state
// could not be read.
func (c *prCycle) load(ctx context.Context) (lost string, err error) {
	ld, err := observe.State(ctx, c.gh, c.owner, c.repo, c.number, c.obs, observe.Origin{Workflow: c.ourWorkflow(), RunID: c.cfg.RunID})
	c.st, c.comment = ld.State, ld.Comment
	c.warn(ld.Warnings)
	c.notices = append(c.notices, ld.Notices...)
	return ld.Lost, err
}

// warn writes the warnings a read returned to the job log.
func (c *prCycle) warn(warnings []string) {
	for _, w := range warnings {
		c.gha.Warningf("review-loop: %s", w)
	}
}

// ourWorkflow is the path of review-loop's own workflow file, from
// GITHUB_WORKFLOW_REF; "" outside a workflow run.
func (c *prCycle) ourWorkflow() string {
	if f := c.cfg.WorkflowFile(); f != "" {
		return ".github/workflows/" + f
	}
	return ""
}

// selectEngines decides the loop's engines (IN2, observe.SelectEngines).
func (c *prCycle) selectEngines(ctx context.Context) error {
	c.env = c.engineEnv()
	sel, err := observe.SelectEngines(ctx, c.gh, c.Log, c.owner, c.repo, c.number, c.registry, c.obs, c.env, c.st, c.cfg.Engines)
	for _, n := range sel.Notices {
		c.gha.Noticef("review-loop: %s", n)
	}
	c.st, c.selected = sel.State, sel.Engines
	return err
}

// selectEnginesQuiet selects engines for a report without failing.
func (c *prCycle) selectEnginesQuiet() {
	c.env = c.engineEnv()
	names := c.st.Engines
	if len(names) == 0 {
		names = c.cfg.Engines
	}
	c.selected = observe.Known(c.registry, names)
}

// readWorkflowRuns reads the workflow runs the selected engines watch
// into the observation (observe.WorkflowRuns); a failed read is warned.
func (c *prCycle) readWorkflowRuns(ctx context.Context) {
	runs, warnings := observe.WorkflowRuns(ctx, c.gh, c.owner, c.repo, c.selected, c.obs, c.env, c.wake)
	c.warn(warnings)
	c.obs.WorkflowRuns = runs
}

// observeEngines has each selected engine read the observation, less
// review-loop's own check run (MG1).
func (c *prCycle) observeEngines() {
	observe.DropGate(c.obs)
	c.views = observe.Views(c.views[:0], c.selected, c.obs, c.env)
	c.st = loop.LedgerAutomatic(c.st, c.views, c.obs.HeadSHA)
}

// judgeAll asks the judge about prose-only engines where the loop needs a
// verdict (judge.Verdicts, J1, J4); the publish job runs no judge command
// and takes the prepare job's verdicts.
func (c *prCycle) judgeAll(ctx context.Context) (map[string]loop.JudgeResult, error) {
	if c.prepared != nil {
		return c.prepared.Judges, nil
	}
	out, warnings := judge.Verdicts(ctx, c.judge, c.st, c.views, c.obs.HeadSHA)
	c.warn(warnings)
	return out, nil
}

// loopObservation is what the core reads of this cycle (observe.ForLoop).
// seen is the last person's act the state decided on (HumanSeenID).
func (c *prCycle) loopObservation(ctx context.Context, judges map[string]loop.JudgeResult, seen int64) loop.Observation {
	o := observe.ForLoop(c.gh, c.obs, c.wake, c.number, c.views, judges, c.prepared != nil, c.changedChars(ctx), c.pushHistory, c.cfg.Workspace, c.Now())
	c.entitle(ctx, &o, seen)
	return o
}

// entitle marks the people's acts the loop has not seen yet, and the
// head's push, by someone who is neither the PR's author nor a user with
// write permission (TB15): the core reports them once and ignores them.
// A permission that cannot be read counts as none.
func (c *prCycle) entitle(ctx context.Context, o *loop.Observation, seen int64) {
	may := func(login string) bool {
		if observe.SameLogin(login, c.obs.Author.Login) {
			return true
		}
		p, err := c.permissions.Of(ctx, c.gh, c.owner, c.repo, login)
		return err == nil && loop.PermissionWrites(p.Permission, p.RoleName)
	}
	for i, h := range o.Humans {
		if h.ID > seen {
			o.Humans[i].Unentitled = !may(h.Login)
		}
	}
	if o.HeadPusher != "" && !o.HeadPusherBot {
		o.HeadPusherUnentitled = !may(o.HeadPusher)
	}
}

// changedChars is the size of the PR's diff in characters for CV6's
// character limits, 0 when nothing needs it or it cannot be known: read
// at most once per cycle, only when loop.NeedsDiffChars, unless a cycle
// on the same base and head saved it.
func (c *prCycle) changedChars(ctx context.Context) int {
	if c.obs.DiffChars == nil {
		n, known := loop.SavedDiffChars(c.st, c.obs.BaseSHA, c.obs.HeadSHA)
		if !known && loop.NeedsDiffChars(c.views, c.loopCfg.EngineLimits, c.obs.Additions+c.obs.Deletions) {
			n = observe.ChangedChars(ctx, c.gh, c.gitRunner(), c.owner, c.repo, c.number, c.obs, c.Log)
		}
		c.obs.DiffChars = &n
	}
	return *c.obs.DiffChars
}

// keepChangedChars saves the count read with the decided state (CV6).
func (c *prCycle) keepChangedChars() {
	if n := c.obs.DiffChars; n != nil {
		c.st = loop.RecordDiffChars(c.st, c.obs.BaseSHA, c.obs.HeadSHA, *n)
	}
}

// engineEnv is what the engines know besides the observation, with the
// phrases the repository's config adds to their words (S12).
func (c *prCycle) engineEnv() engines.Env {
	env := observe.EngineEnv(c.obs, c.st, c.cfg.TriggerToken != "", c.Now())
	env.Texts = c.repoCfg.Texts
	env.Severities = c.repoCfg.Severities
	return env
}
