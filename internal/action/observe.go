package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/state"
)

// This file turns what GitHub shows into the loop's inputs: the PR in
// one query, the saved state (SC3, SC4), the engines' views, the judge's
// verdicts and the people at work on the PR (HY1).

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
func (c *prCycle) load(ctx context.Context) (lost string, err error) {
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
			return "", oerr
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
			return "", fmt.Errorf("status comment %d: %w", ic.DatabaseID, err)
		}
		c.comment = ic
		if err != nil {
			lost = fmt.Sprintf("the state in status comment %d cannot be read (%v)", ic.DatabaseID, err)
			continue
		}
		c.st = st
	}
	if c.comment == nil && !c.obs.IssueCommentsComplete {
		lost = fmt.Sprintf("not every comment of PR #%d could be read (%d read), and the state is not among those read", c.number, len(comments))
	}
	return lost, nil
}

// failClosed is rule SC3: a loop whose state is lost or unreadable is
// never silently replaced by a new one. Only `reset` goes on; everything
// else stops here, writing nothing, with an error naming the way out.
func (c *prCycle) failClosed(lost string) error {
	if lost == "" {
		return nil
	}
	if c.wake.Kind == event.KindCommand && c.wake.Command != nil && c.wake.Command.Kind == event.CommandReset {
		c.notices = append(c.notices, "reset: "+lost+"; a new loop starts")
		return nil
	}
	return fmt.Errorf("PR #%d: %s: this cycle stops without acting rather than start a new loop over it; comment `%s reset` to start over (SC3)", c.number, lost, c.cfg.TriggerPhrase)
}

func sameLogin(a, b string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), "[bot]") }
	return a != "" && norm(a) == norm(b)
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
		Pushes: c.pushHistory, Generated: observe.Generated(c.cfg.Workspace), FixersRunning: observe.FixersRunning(c.obs.CheckRuns),
	}
	o.Budget, o.GraphQLBudget = loopBudgets(c.gh)
	return o
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

// headPusher is who pushed the observed head, when this wake is that
// push's event (its sender); empty when the wake does not say (HY1).
func (c *prCycle) headPusher() string {
	if c.wake.Kind == event.KindOutsidePush && c.wake.HeadSHA != "" && c.wake.HeadSHA == c.obs.HeadSHA {
		return c.wake.Actor
	}
	return ""
}

// isBotLogin: a REST sender login of a GitHub App bot ends in "[bot]".
func isBotLogin(login string) bool {
	return strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// humans are people's changes-requested reviews and thread replies on the
// PR (HY1): never a bot's, never review-loop's own identity's, and never
// a thread's root comment (that is the finding itself).
func (c *prCycle) humans() []loop.HumanActivity {
	ours := func(login string) bool {
		return strings.EqualFold(strings.TrimSuffix(login, "[bot]"), strings.TrimSuffix(c.obs.ViewerLogin, "[bot]"))
	}
	var out []loop.HumanActivity
	for _, r := range c.obs.Reviews {
		if r.State == "CHANGES_REQUESTED" && !r.Author.IsBot && r.Author.Login != "" && !ours(r.Author.Login) {
			out = append(out, loop.HumanActivity{Kind: loop.HumanChangesRequested, ID: r.DatabaseID, Login: r.Author.Login, At: r.SubmittedAt})
		}
	}
	for _, t := range c.obs.Threads {
		for i, cm := range t.Comments {
			if i == 0 || cm.Author.IsBot || cm.Author.Login == "" || ours(cm.Author.Login) {
				continue
			}
			out = append(out, loop.HumanActivity{Kind: loop.HumanReply, ID: cm.DatabaseID, Login: cm.Author.Login, At: cm.CreatedAt, ThreadID: t.NodeID})
		}
	}
	return out
}
