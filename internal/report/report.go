// Package report renders everything a human reads about a review loop: the
// live status comment of a pull request (rule S4, TR5), the hand-back
// report (H1–H7), the job summary, the status text of the `status` command,
// the machine-readable forms (the report JSON and the action outputs), what
// a run reports however it ended (RunReport, H9), and the status comment's
// body as written, with its hidden state, content hash (C2) and claim.
//
// Every renderer starts from Summarize, the one place where the loop's
// phase and overall verdict are derived, so the comment, the summary, the
// JSON and the outputs can never disagree. Text that comes from review
// engines (finding titles, justifications, notes) is untrusted and goes
// through one escaper before it reaches markdown.
package report

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// Bounds are the configured hard bounds shown as "used / limit".
type Bounds struct {
	MaxCommits       int // B1
	MaxActiveMinutes int // B2
	MaxIdleMinutes   int // B3: minutes without progress while waiting
	// MaxIterations is the Copilot-only iteration cap (IN5); shown only
	// when Input.CopilotOnly is set.
	MaxIterations int
}

// Input is everything the renderers need. Only State is required; a zero
// Plan means no decision was made this run (the `status` command), and the
// engines are then read from the saved state alone.
type Input struct {
	State state.State
	// FixerWho names the fixer in effect for the line that says how to
	// approve a Tier 2 finding (TR2); empty leaves the line out.
	FixerWho string
	Plan     loop.Plan
	// PRURL is the pull request's URL; when empty it is built from
	// ServerURL, Repo and Number.
	PRURL string
	// ServerURL is GITHUB_SERVER_URL; empty means https://github.com.
	ServerURL string
	// Repo is "owner/name"; Number the pull request number. Both are
	// needed to link finding comments.
	Repo   string
	Number int
	Bounds Bounds
	// CopilotOnly shows the iteration cap and the Copilot-only totals
	// (fixed / outdated / disagreed).
	CopilotOnly bool
	// LastCommit is the PR's head commit at the end of this cycle (H5).
	LastCommit string
	// RegressionCommand is the broader regression command suggested at
	// hand-back (B4, H4); empty adds a hint to configure one.
	RegressionCommand string
	// Notices are engine and set-up notices of this cycle, shown after
	// Plan.Notices; duplicates are dropped.
	Notices []string
	// LargePR marks the PR large (H7), as do Plan.LargePR and State.LargePR.
	LargePR bool
	// NonBlockingIssues maps a non-blocking item's id to the URL of the
	// issue filed for it (J5, `non-blocking: issue`).
	NonBlockingIssues map[string]string
	// StaleThreads counts stale review threads still open at hand-back (E9).
	StaleThreads int
	// Titles maps a finding's comment id to its title, for the active
	// findings lines. Titles are untrusted and are escaped.
	Titles map[int64]string
	// RunURL links the workflow run that wrote the comment; Now is when
	// it did, and how long pending engines are shown waiting is measured
	// against it. Either may be empty.
	RunURL string
	Now    time.Time
	// RulesURL is the rules page (docs/rules.md); when set, rule ids in
	// the decision line and the notices link to their entry.
	RulesURL string
	// Prices are the repository's prices for the cost ledger (CL1).
	Prices Prices
}

// Phase is where the loop stands, as the `phase` output reports it.
type Phase string

// Phases. A PR with no loop yet reports PhaseTrigger: its next cycle
// starts the loop by triggering the engines.
const (
	PhaseTrigger  Phase = "trigger"
	PhaseWait     Phase = "wait"
	PhaseFix      Phase = "fix"
	PhaseHandBack Phase = "hand-back"
	PhaseDone     Phase = "done"
	PhaseStopped  Phase = "stopped"
)

// Verdict is the loop's overall verdict, as the `verdict` output reports it.
type Verdict string

// Overall verdicts. Pending means the loop is still running.
const (
	VerdictClean        Verdict = "clean"
	VerdictStillFinding Verdict = "still-finding"
	VerdictHung         Verdict = "hung"
	VerdictErrored      Verdict = "errored"
	VerdictPending      Verdict = "pending"
)

// Engine is one engine as every renderer shows it: the two lines of rule
// S4 and the hand-back counts of rule H1.
type Engine struct {
	Name string
	// State is the review state for the head SHA (S1).
	State loop.ReviewState
	// Mark is HUNG or ERRORED when the loop marked the engine (T4).
	Mark string
	// Verdict is CLEAN, HUNG, ERRORED or STILL_FINDING; empty while pending.
	Verdict loop.EngineVerdict
	// Active are the comment ids of the active findings; ActiveKnown is
	// false when nothing was observed this run (the `status` command).
	Active        []int64
	ActiveKnown   bool
	Judge         loop.JudgeVerdict
	LowConfidence int
	Note          string
	// Stated is the engine's own count of open findings and Counted the
	// active findings the loop counted (S6); both are shown.
	Stated  *loop.StatedCount
	Counted int
	// QuotaUntil is the end of the engine's quota cooldown (T8); zero when
	// it is in none. An engine in quota is shown as such, not ERRORED.
	QuotaUntil time.Time
	// BelowFloor are the comment ids of the findings below the severity
	// floor (EQ3): listed for a human, not active.
	BelowFloor []int64
	// Per-engine hand-back counts (H1).
	Cycles, Fixed, Approved, Escalated, Skipped int
}

// Summary is the loop at a glance, derived once from an Input by Summarize
// and shared by every renderer.
type Summary struct {
	Phase   Phase
	Verdict Verdict
	// Reason is the end reason; empty while the loop runs.
	Reason loop.EndReason
	// Finished is set once the loop handed back or was stopped.
	Finished bool
	// Cycle is the cycle shown in the header: the fix iteration under way,
	// or, while waiting on reviews of a fix, the next one.
	Cycle   int
	Engines []Engine
	// Waiting names the engines still TRIGGERED or RUNNING without a verdict.
	Waiting []string
	// Clean and NotClean split the engines with a final verdict; both
	// non-empty at hand-back is asymmetric clearance (H2).
	Clean, NotClean []string
	Asymmetric      bool
	// ActiveFindings totals the known active findings of every engine.
	ActiveFindings int
	LargePR        bool
}

// Summarize derives the phase, the overall verdict and the engine lines of
// an Input. It is pure: the same Input always gives the same Summary.
func Summarize(in Input) Summary {
	st, p := in.State, in.Plan
	s := Summary{Engines: engines(in), LargePR: in.LargePR || p.LargePR || st.LargePR}
	s.Reason = p.EndReason
	if s.Reason == "" && st.Status != state.StatusActive {
		s.Reason = loop.EndReason(st.EndReason)
	}
	switch {
	case st.Status == state.StatusStopped || p.EndReason == loop.EndStopped:
		s.Phase = PhaseStopped
	case st.Status == state.StatusDone && (p.Action == loop.ActionFix || p.Action == loop.ActionTrigger || p.Action == loop.ActionWait):
		// The cycle ended the loop while acting on its plan (E3: a fix
		// cycle that applied no fix hands back): the state is the truth.
		s.Phase = PhaseHandBack
		s.Reason = loop.EndReason(st.EndReason)
	case p.Action == loop.ActionTrigger:
		s.Phase = PhaseTrigger
	case p.Action == loop.ActionWait:
		s.Phase = PhaseWait
	case p.Action == loop.ActionFix:
		s.Phase = PhaseFix
	case p.Action == loop.ActionHandBack:
		s.Phase = PhaseHandBack
	case p.Action == loop.ActionNone, st.Status == state.StatusDone:
		s.Phase = PhaseDone
	case st.Status == state.StatusActive:
		s.Phase = PhaseWait
	default:
		s.Phase = PhaseTrigger
	}
	s.Finished = s.Phase == PhaseHandBack || s.Phase == PhaseDone || s.Phase == PhaseStopped
	s.Cycle = st.Iteration
	if !s.Finished && s.Phase != PhaseFix {
		s.Cycle++
	}
	for _, e := range s.Engines {
		s.ActiveFindings += len(e.Active)
		switch {
		case e.Verdict == loop.VerdictClean:
			s.Clean = append(s.Clean, e.Name)
		case e.Verdict != "":
			s.NotClean = append(s.NotClean, e.Name)
		case e.State == loop.Triggered || e.State == loop.Running:
			s.Waiting = append(s.Waiting, e.Name)
		}
	}
	s.Asymmetric = s.Finished && len(s.Clean) > 0 && len(s.NotClean) > 0
	s.Verdict = overall(s)
	return s
}

// overall folds the engine verdicts into one: a finding still open beats an
// engine that errored, which beats one that hung; clean needs all clean.
func overall(s Summary) Verdict {
	if !s.Finished {
		return VerdictPending
	}
	has := map[loop.EngineVerdict]bool{}
	for _, e := range s.Engines {
		has[e.Verdict] = true
	}
	switch {
	case has[loop.VerdictStillFinding]:
		return VerdictStillFinding
	case has[loop.VerdictErrored]:
		return VerdictErrored
	case has[loop.VerdictHung], has[loop.VerdictUnproven]:
		// UNPROVEN: no finished review of the head within the waiting
		// bound (S8), which the outputs report as hung.
		return VerdictHung
	}
	switch s.Reason {
	case loop.EndClean, loop.EndNoComments:
		return VerdictClean
	case loop.EndError:
		return VerdictErrored
	case loop.EndTimeout:
		return VerdictHung
	case loop.EndStopped, "":
		// A stopped loop is clean only when every engine already was.
		if len(s.Engines) > 0 && len(s.Clean) == len(s.Engines) {
			return VerdictClean
		}
		return VerdictPending
	}
	return VerdictStillFinding
}

// engines builds the engine lines from the plan when there is one, else
// from the saved state, always sorted by name.
func engines(in Input) []Engine {
	st := in.State
	var out []Engine
	if len(in.Plan.Engines) > 0 {
		for _, r := range in.Plan.Engines {
			e := Engine{Name: r.Engine, State: r.State, Verdict: r.Verdict, Active: slices.Clone(r.Active),
				ActiveKnown: true, Judge: r.Judge, LowConfidence: r.LowConfidence, Note: r.Note, Stated: r.Stated, Counted: r.Counted,
				QuotaUntil: r.QuotaUntil, BelowFloor: slices.Clone(r.BelowFloor)}
			if (r.Verdict == loop.VerdictHung || r.Verdict == loop.VerdictErrored || r.Verdict == loop.VerdictUnproven || r.Verdict == loop.VerdictPaused) && r.QuotaUntil.IsZero() {
				e.Mark = string(r.Verdict)
			}
			out = append(out, withCounts(e, st.EngineStates[r.Engine]))
		}
	} else {
		names := slices.Clone(st.Engines)
		for _, n := range slices.Sorted(maps.Keys(st.EngineStates)) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		for _, n := range names {
			es := st.EngineStates[n]
			e := Engine{Name: n, State: loop.ReviewState(cmp.Or(es.Review, state.ReviewNotTriggered))}
			if es.Mark != "" && (es.MarkSHA == st.LastObservedSHA || st.LastObservedSHA == "") {
				e.Mark, e.Verdict, e.Note = es.Mark, loop.EngineVerdict(es.Mark), es.MarkNote
			}
			if es.Judge != nil {
				e.Judge = loop.JudgeVerdict(es.Judge.Verdict)
			}
			out = append(out, withCounts(e, es))
		}
	}
	slices.SortStableFunc(out, func(a, b Engine) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func withCounts(e Engine, es state.EngineState) Engine {
	e.Cycles, e.Fixed, e.Approved, e.Escalated, e.Skipped = es.Cycles, es.Fixed, es.Approved, es.Escalated, es.Skipped
	return e
}

// prURL is the pull request's URL.
func (in Input) prURL() string {
	if in.PRURL != "" {
		return in.PRURL
	}
	if in.Repo == "" || in.Number == 0 {
		return ""
	}
	return in.server() + "/" + in.Repo + "/pull/" + itoa(in.Number)
}

func (in Input) server() string {
	return trimSlash(cmp.Or(in.ServerURL, "https://github.com"))
}

// commentURL links a review comment of the pull request; empty when the
// repository or number is unknown.
func (in Input) commentURL(id int64) string {
	if in.Repo == "" || in.Number == 0 || id == 0 {
		return ""
	}
	return in.server() + "/" + in.Repo + "/pull/" + itoa(in.Number) + "#discussion_r" + itoa64(id)
}

// notices are the plan's notices then the input's, without duplicates.
func (in Input) notices() []string {
	var out []string
	for _, n := range append(slices.Clone(in.Plan.Notices), in.Notices...) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
