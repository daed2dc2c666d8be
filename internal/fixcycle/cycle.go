package fixcycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/state"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file is the fix effect from triage to the rows the state records:
// Run for a cycle that commits (or reports only), Prepare for hardened
// mode's prepare job, and the outcome handed back to the core.

// Inputs are what the fix effect works on.
type Inputs struct {
	Triaged Triaged
	// ReportOnly triages and fixes nothing (a fork PR, B5).
	ReportOnly bool
	Checkout   Checkout
	// Prepared is the publish job's prepared fix; nil runs the pipeline.
	Prepared *Prepared
}

// Outcome is what the fix effect did.
type Outcome struct {
	Triaged
	// Result is the fix's result: the fixer's, or the prepared patch's.
	Result fix.CycleResult
	// Rows are the triage rows the state records (loop.RecordFixCycle).
	Rows []state.TriageRow
	// Baseline is the checkout's git config and hooks before any command
	// of the fix ran (TB2), nil when the pipeline did not run.
	Baseline *git.Snapshot
	// Notices are for the status comment; Warnings for the workflow log.
	Notices  []string
	Warnings []string
	// patch is the publish job's checked patch, nil in a single job.
	patch    []byte
	prepared bool
}

// Run fixes the triaged findings to fix in the checkout (or applies the
// prepare job's patch for them) and records the outcome in rows. The
// fixer's texts are untrusted either way (TB10): a fixer command or an
// agent runs on the PR's code and reads its review text, so what it asks
// to post as the bot is escaped and cut exactly as the prepare job's is.
// An error still returns the outcome, its rows recording nothing fixed,
// except prepared.ErrStale, after which nothing is recorded.
func Run(ctx context.Context, in Inputs) (Outcome, error) {
	out := Outcome{Triaged: in.Triaged, prepared: in.Prepared != nil}
	var err error
	if todo := in.Triaged.Todo; len(todo) > 0 {
		switch {
		case in.ReportOnly:
			out.Notices = append(out.Notices, "fork PR: report-only — no fixer, no test command, no push")
		case in.Prepared != nil:
			out.patch = in.Prepared.Patch
			out.Result, out.Warnings, err = ApplyPrepared(ctx, in.Checkout, todo, *in.Prepared)
		default:
			var ran Ran
			ran, err = RunPipeline(ctx, in.Checkout, todo, in.Triaged.Directions)
			out.Result, out.Baseline, out.Warnings = ran.Result, ran.Baseline, ran.Warnings
			out.Result.Results = prepared.Untrusted(out.Result.Results)
		}
	}
	if errors.Is(err, prepared.ErrStale) {
		return out, err
	}
	out.Notices = append(out.Notices, revertedNotices(out.Result.Reverted)...)
	out.Rows = Rows(in.Triaged, out.Result.Results, err != nil)
	return out, err
}

// WantAFixer counts the findings left unfixed for want of a fixer: with
// a fixer that applies the engines' suggestion blocks only (the default,
// `suggestions`), the Tier 1 and Tier 2 rows not fixed, skipped,
// outdated or disagreed with whose finding (bodies, by finding id)
// carries no suggestion block. An agent fixer or a fixer command would
// fix them (Tier 2 once a maintainer approves them).
func WantAFixer(rows []state.TriageRow, bodies map[string]string, fixer string) int {
	if !fix.SuggestionsOnly(fixer) {
		return 0
	}
	n := 0
	for _, r := range rows {
		if r.Tier != int(triage.Tier1) && r.Tier != int(triage.Tier2) {
			continue
		}
		switch r.Outcome {
		case loop.OutcomeFixed, loop.OutcomeSkipped, loop.OutcomeOutdated, loop.OutcomeDisagreed, loop.OutcomeDuplicate:
			continue
		}
		if body, ok := bodies[r.FindingID]; ok && len(fix.ParseSuggestions(body)) == 0 {
			n++
		}
	}
	return n
}

// NoFixerNotice is the status comment's notice of n findings left
// unfixed for want of a fixer: what to add.
func NoFixerNotice(n int) string {
	return fmt.Sprintf("%d finding(s) with no suggestion block left unfixed for want of a fixer: add an ANTHROPIC_API_KEY secret "+
		"(the examples then run fixer: claude-code in the read-only prepare job) or a fixer-command (docs/fixer-protocol.md)", n)
}

// Prepare is the prepare job's fix: the pipeline runs on the findings to
// fix (none on a fork PR) and what it did is written down with its patch
// for the publish job. A failed pipeline hands over its results with
// nothing to commit.
func Prepare(ctx context.Context, t Triaged, co Checkout) (*prepared.Fix, []byte, Ran, error) {
	f := &prepared.Fix{}
	if len(t.Todo) == 0 || co.Fork {
		return f, nil, Ran{}, nil
	}
	ran, err := RunPipeline(ctx, co, t.Todo, t.Directions)
	cyc := ran.Result
	f.Results, f.Changed, f.Commit, f.Reverted = cyc.Results, cyc.Changed, cyc.Commit, cyc.Reverted
	if err != nil {
		f.Err, f.Commit, f.Changed = err.Error(), false, nil
	}
	var patch []byte
	if f.Commit {
		if patch, err = Diff(ctx, co.Git, f.Changed); err != nil {
			return f, nil, ran, err
		}
	}
	if in := cmp.Or(SecretIn(co.Secrets, patch, cyc), co.Secrets.FindString(f.Err)); in != "" {
		// TB14: nothing of a fix whose output holds a secret is handed
		// over, not its patch, its texts or its paths.
		w := &prepared.Fix{Withheld: in}
		for _, f := range t.Todo {
			w.Results = append(w.Results, fix.Result{ID: f.ID, Outcome: fix.OutcomeFailed})
		}
		return w, nil, ran, nil
	}
	return f, patch, ran, nil
}

// Rows are the triage rows with the fix's outcomes: a finding the fixer
// worked on gets its outcome, and when the cycle failed (failed) nothing
// counts fixed. A Tier 3 row carries its escalation reason (H3).
func Rows(t Triaged, results []fix.Result, failed bool) []state.TriageRow {
	outcomes := map[string]fix.Result{}
	for _, r := range results {
		outcomes[r.ID] = r
	}
	rows := make([]state.TriageRow, 0, len(t.Table.Rows))
	for _, row := range t.Table.Rows {
		out := string(row.Outcome)
		just := row.Justification
		if just == "" {
			just = row.Reason
		}
		if r, ok := outcomes[row.FindingID]; ok {
			out = outcome(r.Outcome)
			if out == loop.OutcomeReverted && r.Reason != "" {
				// Every refusal and revert names its reason on the PR.
				just = r.Reason
			}
		}
		if failed && out == loop.OutcomeFixed {
			out = loop.OutcomeReverted
		}
		rows = append(rows, state.TriageRow{FindingID: row.FindingID, Engine: row.Engine, CommentID: row.CommentID,
			Tier: int(row.Tier), Justification: just, Outcome: out, Key: loop.NoProgressKey(t.ByID[row.FindingID])})
	}
	return loop.WithSources(rows, t.ByID)
}

// outcome is a fixer's outcome as a triage row's.
func outcome(o fix.Outcome) string {
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

// After is the outcome as the core plans what follows the fix from
// (loop.AfterFix): the commit pushed ("" for none), the fixer's results
// and triage's own replies.
func (o Outcome) After(pushed string) loop.FixOutcome {
	out := loop.FixOutcome{Pushed: pushed, Findings: o.ByID}
	for _, r := range o.Result.Results {
		out.Results = append(out.Results, loop.FixResultRow{ID: r.ID, Outcome: outcome(r.Outcome), Reply: r.Reply})
	}
	for _, row := range o.Table.Rows {
		if row.Reply != "" {
			out.Rows = append(out.Rows, loop.TriageReply{FindingID: row.FindingID, Tier: int(row.Tier), Disagreed: row.Outcome == triage.OutcomeDisagreed, Reply: row.Reply})
		}
	}
	return out
}

// maxRevertedListed bounds the paths one notice names.
const maxRevertedListed = 10

// revertedNotices say on the status comment which changes the fix commit
// leaves out and why (TB9), one notice per reason.
func revertedNotices(rs []fix.Revert) []string {
	var whys, out []string
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
		out = append(out, fmt.Sprintf("left out of the fix commit: %s%s — %s", strings.Join(ps, ", "), more, why))
	}
	return out
}

// Fixed are the findings the kept fixes close, in the order the fix
// reports them, and the same as the commit message lists them (E4).
func (o *Outcome) Fixed() ([]loop.Finding, []git.Closed) {
	var fixed []loop.Finding
	var closed []git.Closed
	for _, id := range o.Result.Fixed() {
		f := o.ByID[id]
		fixed = append(fixed, f)
		closed = append(closed, git.Closed{ID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Title: f.Title})
	}
	return fixed, closed
}
