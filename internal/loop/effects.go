package loop

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// A cycle's plan is data: Decide says what the loop decided, and the
// functions of this file turn that decision, with the facts of the wake,
// into the ordered list of effects the Action carries out — every write
// to GitHub, every command run, every push — each with the rule that asks
// for it. The Action executes the list in order and decides nothing; an
// effect whose result changes what follows (a refused push, a comment
// another run changed) goes back through this file (AfterFix, Closing).

// EffectKind names one thing a cycle does outside the core.
type EffectKind string

// Effects, in the order a cycle may carry them out.
const (
	// EffectReact puts a reaction on the maintainer's command comment.
	EffectReact EffectKind = "react"
	// EffectRefuse answers a command that was not carried out, in one
	// line on the PR.
	EffectRefuse EffectKind = "refuse"
	// EffectResolveStale resolves the open threads of findings that no
	// longer appear (E9).
	EffectResolveStale EffectKind = "resolve-stale"
	// EffectClaim writes the status comment before acting, failing when
	// another run changed it since this one read it: that run owns the
	// cycle.
	EffectClaim EffectKind = "claim"
	// EffectMarkReady marks a draft PR ready for review (IN3).
	EffectMarkReady EffectKind = "mark-ready"
	// EffectAnswerRecalls answers findings raised again after a
	// remembered won't-fix decision (WF1).
	EffectAnswerRecalls EffectKind = "answer-recalls"
	// EffectTrigger asks engines to review (T1, T2, T7).
	EffectTrigger EffectKind = "trigger"
	// EffectNoteWake says on the status comment when the next wake is
	// planned and why (an engine's quota cooldown T8, the API budget B7).
	EffectNoteWake EffectKind = "note-wake"
	// EffectWait waits in the job for an engine, then decides again (B2).
	EffectWait EffectKind = "wait"
	// EffectFix triages and fixes in the checkout, testing each fix (E4);
	// ReportOnly: triage only (a fork PR, B5).
	EffectFix EffectKind = "fix"
	// EffectCommit commits the kept fixes once, saves the state ahead of
	// the push (E5) and pushes to the PR head branch (B6).
	EffectCommit EffectKind = "commit"
	// EffectReply answers review threads after a fix (E7, DD1).
	EffectReply EffectKind = "reply"
	// EffectResolve resolves review threads in one request (E6).
	EffectResolve EffectKind = "resolve"
	// EffectBodyFindings says once which fixed findings had no thread (E6).
	EffectBodyFindings EffectKind = "body-findings"
	// EffectDispatchCI dispatches the CI workflows on the head (CI1).
	EffectDispatchCI EffectKind = "dispatch-ci"
	// EffectFileIssues files non-blocking items as issues (J5).
	EffectFileIssues EffectKind = "file-issues"
	// EffectSave writes the status comment, report and state (SC1),
	// bringing the merge gate (MG1) and the cost ledger (CL1) up to date
	// first.
	EffectSave EffectKind = "save"
	// EffectLabel adds or removes the live-loop label (SW1).
	EffectLabel EffectKind = "label"
	// EffectRedispatch dispatches this workflow again for the PR (W5).
	EffectRedispatch EffectKind = "redispatch"
)

// EffectKinds are every effect a plan may hold.
var EffectKinds = []EffectKind{EffectReact, EffectRefuse, EffectResolveStale, EffectClaim, EffectMarkReady, EffectAnswerRecalls,
	EffectTrigger, EffectNoteWake, EffectWait, EffectFix, EffectCommit, EffectReply, EffectResolve, EffectBodyFindings, EffectDispatchCI,
	EffectFileIssues, EffectSave, EffectLabel, EffectRedispatch}

// Effect is one thing the cycle does, with the rule that asks for it.
type Effect struct {
	Kind EffectKind
	Rule string
	// Why says in one line why the effect is planned.
	Why string
	// Triggers are the engines a trigger asks (EffectTrigger).
	Triggers []TriggerRequest
	// Reaction is the reaction's content (EffectReact).
	Reaction string
	// Text is a refusal's line (EffectRefuse).
	Text string
	// Add says whether a label is added or removed (EffectLabel).
	Add bool
	// Items are the non-blocking items to file (EffectFileIssues) or the
	// workflow files to dispatch (EffectDispatchCI).
	Items []string
	// Checked makes a save fail when another run changed the status
	// comment since this run read or last wrote it (EffectSave).
	Checked bool
	// WakeAt is the planned next wake (EffectWait): nothing is worth
	// observing before it.
	WakeAt time.Time
	// Replies are the thread answers of EffectReply.
	Replies []Reply
	// Threads are the review threads EffectResolve resolves.
	Threads []string
	// Lines are the fixed findings EffectBodyFindings lists.
	Lines []BodyFinding
	// ReportOnly makes EffectFix triage without fixing (a fork PR).
	ReportOnly bool
}

// Reply is one answer to a review comment after a fix.
type Reply struct {
	FindingID string
	CommentID int64
	Body      string
	// Remember keeps the reply's rationale as a won't-fix decision (WF1).
	Remember bool
}

// BodyFinding is a fixed finding an engine listed only in its review
// body: no thread to answer or resolve (E6).
type BodyFinding struct {
	Finding Finding
}

// String is the effect as the plan prints it: what, why, and the rule.
func (e Effect) String() string {
	what := string(e.Kind)
	switch e.Kind {
	case EffectReact:
		what = "react " + e.Reaction + " on the command"
	case EffectRefuse:
		what = "reply: " + e.Text
	case EffectClaim:
		what = "claim the status comment"
	case EffectTrigger:
		names := make([]string, 0, len(e.Triggers))
		for _, t := range e.Triggers {
			names = append(names, t.Engine+" on "+short(t.SHA))
		}
		what = "trigger " + strings.Join(names, ", ")
	case EffectNoteWake:
		what = "note the next wake at " + stamp(e.WakeAt)
	case EffectWait:
		what = "wait in the job"
	case EffectFix:
		what = "fix"
		if e.ReportOnly {
			what = "triage only"
		}
	case EffectCommit:
		what = "commit the kept fixes once and push"
	case EffectReply:
		what = fmt.Sprintf("reply to %d review comment(s)", len(e.Replies))
	case EffectResolve:
		what = fmt.Sprintf("resolve %d thread(s)", len(e.Threads))
	case EffectBodyFindings:
		what = fmt.Sprintf("list %d fixed review-body finding(s) on the PR", len(e.Lines))
	case EffectDispatchCI:
		what = "dispatch CI " + strings.Join(e.Items, ", ")
	case EffectFileIssues:
		what = "file issue(s) for " + strings.Join(e.Items, ", ")
	case EffectSave:
		what = "save the status comment"
		if e.Checked {
			what += " (checked)"
		}
	case EffectLabel:
		what = "remove label " + LiveLabel
		if e.Add {
			what = "add label " + LiveLabel
		}
	case EffectRedispatch:
		what = "re-dispatch this workflow for the PR"
	}
	s := what
	if e.Why != "" {
		s += " — " + e.Why
	}
	if e.Rule != "" {
		s += " (" + e.Rule + ")"
	}
	return s
}

// LiveLabel marks a PR whose loop is live (SW1). The scheduled sweep finds
// the loops it must advance by this label alone, in one GraphQL request
// per 100 live loops, so its cost does not grow with the number of open
// PRs. It is not the start label ("review-loop"): that one is a person's
// request for a loop under `start-on: command` and stays theirs; this one
// is the loop's own index, added while the loop runs and removed when it
// hands back or stops. A human removing it is undone by the next cycle.
const LiveLabel = "review-loop:live"

// Facts are what the effects depend on besides the plan and the state:
// the wake, the inputs and what the PR shows.
type Facts struct {
	// Command: a maintainer's command woke the cycle.
	Command bool
	// InJobWait: the inputs allow waiting in the job (wait-seconds > 0).
	InJobWait bool
	// FileIssues: non-blocking items are filed as issues (J5).
	FileIssues bool
	// Unchanged: the status comment already says what this cycle would
	// write (C2).
	Unchanged bool
	// Labeled: the PR carries LiveLabel.
	Labeled bool
	// Workflow is this workflow's file, to re-dispatch (W5); "" unknown.
	Workflow string
	// CIWorkflows are the `ci-workflows` to dispatch after a push (CI1).
	CIWorkflows []string
	// PushStartsNoWorkflow: fix commits are pushed with GITHUB_TOKEN, so
	// their push starts no workflow (CI1).
	PushStartsNoWorkflow bool
	// HeadRef is the PR head branch; CI is dispatched on it.
	HeadRef string
	// Fork: the PR comes from a fork; the loop only reports on it (B5).
	Fork bool
}

// Cycle is one decided cycle as data: the decision and the effects that
// carry it out, in order. Idle says the cycle writes nothing at all (C2);
// Skip, when set, says why it ends without acting.
type Cycle struct {
	Plan    Plan
	Effects []Effect
	Idle    bool
	Skip    string
}

// Acts reports whether the plan writes to GitHub beyond the status
// comment (or may, after an in-job wait): such a cycle claims the status
// comment first.
func Acts(p Plan, st state.State, f Facts) bool {
	switch {
	case p.MarkReady, p.Action == ActionTrigger, p.Action == ActionFix, RecallsToAnswer(p):
		return true
	case p.Action == ActionWait:
		return f.InJobWait
	case p.Action == ActionHandBack:
		return f.FileIssues && len(st.NonBlocking) > 0
	}
	return false
}

// PlanCycle turns a decision into the cycle's effects: claim the status
// comment when the cycle acts, carry out the action, then the closing
// writes (Closing). A finished loop woken by anything but a command only
// keeps its label in step; an idle wake, with nothing new and nothing to
// do, writes nothing (C2).
func PlanCycle(p Plan, st state.State, f Facts) Cycle {
	c := Cycle{Plan: p}
	if p.Action == ActionNone && !f.Command {
		c.Skip = "the loop for this PR is finished"
		c.Effects = labelEffects(st, f)
		return c
	}
	acts := Acts(p, st, f)
	if !acts && !f.Command && f.Unchanged {
		c.Idle = true
		return c
	}
	if acts {
		c.Effects = append(c.Effects, Effect{Kind: EffectClaim, Rule: "SC1", Why: "save before acting; a run that changed the comment since owns the cycle", Checked: true})
	}
	c.Effects = append(c.Effects, ActionEffects(p, st, f)...)
	return c
}

// ActionEffects are the effects of the decision itself, without the
// claim and the closing writes; an in-job wait that decides again runs
// these for its new decision.
func ActionEffects(p Plan, st state.State, f Facts) []Effect {
	var out []Effect
	if p.MarkReady {
		out = append(out, Effect{Kind: EffectMarkReady, Rule: "IN3", Why: "a draft PR makes a push-triggered engine no-op"})
	}
	if RecallsToAnswer(p) {
		out = append(out, Effect{Kind: EffectAnswerRecalls, Rule: "WF1", Why: "a finding came back after a won't-fix decision"})
	}
	switch p.Action {
	case ActionTrigger:
		out = append(out, Effect{Kind: EffectTrigger, Rule: ruleOf(p.Why, "T2"), Why: p.Why, Triggers: p.Triggers})
	case ActionWait:
		if !p.WakeAt.IsZero() {
			out = append(out, Effect{Kind: EffectNoteWake, Rule: ruleOf(p.Why, "T8"), Why: p.Why, WakeAt: p.WakeAt})
		}
		if f.InJobWait {
			out = append(out, Effect{Kind: EffectWait, Rule: "B2", Why: p.Why, WakeAt: p.WakeAt})
		}
	case ActionFix:
		if f.Fork {
			out = append(out, Effect{Kind: EffectFix, Rule: "B5", Why: fmt.Sprintf("triage %d finding(s); fork PR: report-only — no fixer, no test command, no push", len(p.Triage)), ReportOnly: true})
			break
		}
		out = append(out, Effect{Kind: EffectFix, Rule: "E4", Why: fmt.Sprintf("triage %d finding(s), fix Tier 1 and approved Tier 2, test each", len(p.Triage))})
	case ActionHandBack:
		if items := issuesToFile(st, f); len(items) > 0 {
			out = append(out, Effect{Kind: EffectFileIssues, Rule: "J5", Why: "non-blocking items are filed as follow-up issues", Items: items})
		}
	}
	return out
}

// ruleOf is the rule id a decision's Why starts with ("B7: ..."), else def.
func ruleOf(why, def string) string {
	id, _, ok := strings.Cut(why, ":")
	if !ok || id == "" || len(id) > 5 || strings.ContainsAny(id, " \t") {
		return def
	}
	return id
}

// issuesToFile are the non-blocking items not filed yet (J5).
func issuesToFile(st state.State, f Facts) []string {
	if !f.FileIssues {
		return nil
	}
	var out []string
	for _, it := range st.NonBlocking {
		if !st.HasNotice(IssueNotice(it.ID)) {
			out = append(out, it.ID)
		}
	}
	return out
}

// IssueNotice is the notice key that records item id filed (J5).
func IssueNotice(id string) string { return "issue:" + id }

// RecordIssue records the issue filed for non-blocking item id, by URL,
// so the report shows it is tracked and it is not filed again (J5).
func RecordIssue(st state.State, id, url string) state.State {
	s, _ := RecordNotice(st, IssueNotice(id))
	s = s.Clone()
	for i := range s.NonBlocking {
		if s.NonBlocking[i].ID == id {
			s.NonBlocking[i].Issue = url
		}
	}
	return s
}

// CommitEffects follow a fix once its results are recorded: its kept
// changes are committed and pushed only when there are some and the loop
// is still live (recording the fix may end it, B1).
func CommitEffects(st state.State, changes bool) []Effect {
	if !changes || st.Status != state.StatusActive {
		return nil
	}
	return []Effect{{Kind: EffectCommit, Rule: "B6", Why: "one commit per cycle, saved ahead of the push (E5)"}}
}

// MayAct says why a cycle may not go on, "" when it may: a pull request
// that is no longer open gets no new loop.
func MayAct(st state.State, prState string) string {
	if prState != "" && prState != "OPEN" && st.Status == "" {
		return "is not OPEN — current state: " + prState
	}
	return ""
}

// WorthWaiting reports whether an in-job wait of budget may see anything
// new: not when the plan's next wake comes later (an engine's quota
// cooldown, T8): the run ends and the sweep or an event wakes the loop.
func WorthWaiting(p Plan, now time.Time, budget time.Duration) bool {
	return p.WakeAt.IsZero() || p.WakeAt.Sub(now) <= budget
}

// WaitPolls is how often an in-job wait of budget polls, once every
// interval (B2): never when either is unset or when the wait cannot see
// anything new (WorthWaiting).
func WaitPolls(p Plan, now time.Time, budget, interval time.Duration) int {
	if budget <= 0 || interval <= 0 || !WorthWaiting(p, now, budget) {
		return 0
	}
	return int(budget / interval)
}

// WaitFingerprint sums up what an in-job wait watches (B2): the head and,
// per engine, its signal, its latest review and how many findings it has.
// The wait decides again when it changes.
func WaitFingerprint(head string, views []EngineView) string {
	var b strings.Builder
	b.WriteString(head)
	for _, v := range views {
		fmt.Fprintf(&b, "|%s:%s:%d:%d:%d", v.Engine, v.Signal, v.SignalID, v.LatestReviewID, len(v.Findings))
	}
	return b.String()
}

// Closing are a cycle's last writes: the status comment with the merge
// gate (checked when the cycle claimed it), the live label, and the
// re-dispatch when the cycle triggered or pushed (W5: comments and pushes
// made with GITHUB_TOKEN start no workflow).
func Closing(p Plan, st state.State, f Facts, claimed, pushed bool) []Effect {
	acted := p.Action == ActionTrigger || pushed
	out := []Effect{{Kind: EffectSave, Rule: "SC1", Why: "the cycle's report, state and gate", Checked: claimed}}
	out = append(out, labelEffects(st, f)...)
	if acted && st.Status == state.StatusActive && f.Workflow != "" {
		out = append(out, Effect{Kind: EffectRedispatch, Rule: "W5", Why: "the cycle triggered or pushed; the loop wakes itself"})
	}
	return out
}

// ReportOnly are the writes of a cycle that only reports (status, stop,
// a decision on a loop that is not running): a checked save and the
// label.
func ReportOnly(st state.State, f Facts) []Effect {
	out := []Effect{{Kind: EffectSave, Rule: "SC1", Why: "report the loop as it stands", Checked: true}}
	return append(out, labelEffects(st, f)...)
}

// labelEffects keep LiveLabel in step with the loop (SW1): present while
// it is active, gone once it handed back or stopped; nothing when the
// label already says so, and nothing on a PR that never had a loop.
func labelEffects(st state.State, f Facts) []Effect {
	live := st.Status == state.StatusActive
	switch {
	case live && !f.Labeled:
		return []Effect{{Kind: EffectLabel, Rule: "SW1", Why: "the loop is live", Add: true}}
	case !live && f.Labeled && st.Status != "":
		return []Effect{{Kind: EffectLabel, Rule: "SW1", Why: "the loop is over"}}
	}
	return nil
}

// FixOutcome is what the fix effect did, for AfterFix: each finding's
// result and the triage table's replies.
type FixOutcome struct {
	// Pushed is the fix commit pushed, "" when none was.
	Pushed string
	// Results are the fixer's results, in order.
	Results []FixResultRow
	// Rows are the triage table's rows with a reply of triage's own.
	Rows []TriageReply
	// Findings are the triaged findings by id.
	Findings map[string]Finding
}

// declineReply is the reply to finding fd with body; a reply that keeps
// its rationale (remember) ends with the decision's marker, from which
// later observations read the decision back (WF1, R1).
func declineReply(st state.State, fd Finding, body string, remember bool) Reply {
	r := Reply{FindingID: fd.ID, CommentID: fd.CommentID, Body: body, Remember: remember}
	if mk := DeclineMarker(fd, st.LastObservedSHA); remember && mk != "" {
		r.Body += "\n\n" + mk
	}
	return r
}

// inert keeps a fixer's or triage's reply text from carrying an HTML
// comment, so none of its text can pass for the marker that only
// review-loop itself appends (WF1): "<!--" shows as typed but opens
// nothing.
func inert(text string) string { return strings.ReplaceAll(text, "<!--", "&lt;!--") }

// FixResultRow is one finding's fix result.
type FixResultRow struct {
	ID      string
	Outcome string // OutcomeFixed, OutcomeOutdated, OutcomeDisagreed, or another
	Reply   string
}

// TriageReply is a triage row that carries a reply (a disagreement or an
// outdated finding triage decided without a fixer).
type TriageReply struct {
	FindingID string
	Tier      int
	Disagreed bool
	Reply     string
}

// AfterFix are the effects that follow a fix: replies one after another
// (E7), every engine that flagged a fixed defect told (DD1), the threads
// of fixed, outdated and disagreed findings resolved in one request (E6);
// Tier 3 threads stay open. After a push: the fixed findings that had no
// thread are listed once on the PR (E6), every engine is asked to review
// the pushed commit (T7, with its triggers from RetriggerAfterPushAt), and
// CI is dispatched when the push starts no workflow (CI1).
func AfterFix(st state.State, o FixOutcome, retrigger []TriggerRequest, f Facts) []Effect {
	var replies []Reply
	var threads []string
	replied := map[string]bool{}
	for _, r := range o.Results {
		fd := o.Findings[r.ID]
		switch r.Outcome {
		case OutcomeFixed:
			if o.Pushed == "" {
				continue
			}
			if fd.ThreadID != "" {
				threads = append(threads, fd.ThreadID)
			}
			body := "Fixed together with " + fd.ID + " (the same defect, flagged by " + strings.Join(FlaggedBy(fd), ", ") + ")."
			replies = append(replies, sourceReplies(fd, body)...)
			threads = append(threads, SourceThreads(fd)...)
		case OutcomeOutdated, OutcomeDisagreed:
			if r.Reply == "" || fd.CommentID == 0 {
				continue
			}
			r.Reply = inert(r.Reply)
			replies = append(replies, declineReply(st, fd, r.Reply, r.Outcome == OutcomeDisagreed))
			replied[r.ID] = true
			if fd.ThreadID != "" {
				threads = append(threads, fd.ThreadID)
			}
			replies = append(replies, sourceReplies(fd, r.Reply)...)
			threads = append(threads, SourceThreads(fd)...)
		}
	}
	for _, row := range o.Rows {
		fd := o.Findings[row.FindingID]
		if row.Reply == "" || replied[row.FindingID] || fd.CommentID == 0 || row.Tier == 3 {
			continue
		}
		replies = append(replies, declineReply(st, fd, inert(row.Reply), row.Disagreed))
		if fd.ThreadID != "" {
			threads = append(threads, fd.ThreadID)
		}
	}
	var out []Effect
	if len(replies) > 0 {
		out = append(out, Effect{Kind: EffectReply, Rule: "E7", Why: "each finding hears what became of it", Replies: replies})
	}
	if len(threads) > 0 {
		out = append(out, Effect{Kind: EffectResolve, Rule: "E6", Why: "fixed, outdated and disagreed threads are resolved; Tier 3 stays open", Threads: threads})
	}
	if o.Pushed == "" {
		return out
	}
	if lines := bodyFindings(st, o); len(lines) > 0 {
		out = append(out, Effect{Kind: EffectBodyFindings, Rule: "E6", Why: "these fixed findings have no thread", Lines: lines})
	}
	if len(retrigger) > 0 {
		out = append(out, Effect{Kind: EffectTrigger, Rule: "T7", Why: "every engine reviews the pushed commit", Triggers: retrigger})
	}
	if ci := ciToDispatch(st, f); len(ci) > 0 {
		out = append(out, Effect{Kind: EffectDispatchCI, Rule: "CI1", Why: "a push with GITHUB_TOKEN starts no workflow", Items: ci})
	}
	return out
}

// sourceReplies answer the source comments merged into f (DD1).
func sourceReplies(f Finding, body string) []Reply {
	var out []Reply
	for _, s := range f.Sources {
		if s.CommentID != 0 {
			out = append(out, Reply{FindingID: s.ID, CommentID: s.CommentID, Body: body})
		}
	}
	return out
}

// BodyFindingNotice is the notice key that records a fixed review-body
// finding listed on the PR, so that it is listed once (E6).
func BodyFindingNotice(id string) string { return "body-fixed:" + id }

// bodyFindings are the fixed findings with no thread and no comment, not
// listed before (E6).
func bodyFindings(st state.State, o FixOutcome) []BodyFinding {
	var out []BodyFinding
	seen := map[string]bool{}
	for _, r := range o.Results {
		fd, ok := o.Findings[r.ID]
		if !ok || r.Outcome != OutcomeFixed || fd.ThreadID != "" || fd.CommentID != 0 || seen[fd.ID] || st.HasNotice(BodyFindingNotice(fd.ID)) {
			continue
		}
		seen[fd.ID] = true
		out = append(out, BodyFinding{Finding: fd})
	}
	return out
}

// CINotice is the notice key that records a CI workflow that could not be
// dispatched: it is not asked again (CI1).
func CINotice(file string) string { return "ci-setup:" + file }

// ciToDispatch are the CI workflows to dispatch after a push (CI1): none
// when the push itself starts the workflows.
func ciToDispatch(st state.State, f Facts) []string {
	if !f.PushStartsNoWorkflow || f.HeadRef == "" {
		return nil
	}
	var out []string
	for _, w := range f.CIWorkflows {
		if !st.HasNotice(CINotice(w)) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// FormatEffects prints effects one per line, numbered, as the dry run and
// --verbose show a cycle's plan.
func FormatEffects(es []Effect) string {
	var b strings.Builder
	for i, e := range es {
		fmt.Fprintf(&b, "%d. %s\n", i+1, e)
	}
	return b.String()
}

// Commands that only report or act on the loop without a decision.
const (
	CommandStatus       = "status"
	CommandResolveStale = "resolve-stale"
	CommandUnknown      = "unknown"
)

// CommandEnd says how a cycle goes on after a command's effects.
type CommandEnd string

// How a command's cycle goes on.
const (
	// CommandDecides: the cycle decides and acts on the new state.
	CommandDecides CommandEnd = "decide"
	// CommandReports: the cycle ends with the report-only writes.
	CommandReports CommandEnd = "report"
	// CommandRefused: the cycle writes nothing more; the outputs report
	// the loop as it stands.
	CommandRefused CommandEnd = "refused"
	// CommandDenied: the sender may not give the command; the cycle ends
	// with the reaction and sets no output.
	CommandDenied CommandEnd = "denied"
)

// CommandPlan is what a maintainer's command does before, or instead of,
// the cycle's decision.
type CommandPlan struct {
	Effects []Effect
	End     CommandEnd
	// Notices are lines for the status comment.
	Notices []string
}

// PlanCommand is a command's part of the cycle (TB3, TR2): a command the
// sender may not give is answered 😕 and nothing else; one that fails
// (unknown, or refused by the state: ApplyCommand's error, passed as
// failed) is answered 😕 with a one-line reply naming why, and changes
// nothing. Otherwise 👀 then 👍, and: status and resolve-stale report
// (resolve-stale first resolves the stale threads); stop reports; approve,
// skip and accept (S11) report unless the loop is running (an accept that
// answers the hand-back reopens it), when the cycle decides on them;
// start, reset and resume decide. st is the state after the command.
func PlanCommand(kind string, st state.State, denied, failed, actor, phrase string) CommandPlan {
	react := func(r string) Effect { return Effect{Kind: EffectReact, Rule: "TB3", Reaction: r} }
	if denied != "" {
		e := react("confused")
		e.Why = denied
		return CommandPlan{Effects: []Effect{e}, End: CommandDenied}
	}
	if kind == CommandUnknown || failed != "" {
		line := strings.Join(strings.Fields(failed), " ")
		if actor != "" {
			line = "@" + actor + " " + line
		}
		return CommandPlan{Effects: []Effect{react("eyes"), react("confused"), {Kind: EffectRefuse, Rule: "TB3", Why: "the command was not carried out", Text: line}}, End: CommandRefused}
	}
	p := CommandPlan{Effects: []Effect{react("eyes")}, End: CommandDecides}
	switch kind {
	case CommandStatus:
		if st.Status == "" {
			p.Notices = append(p.Notices, "no loop has run on this PR yet; `"+phrase+" start` starts one")
		}
		p.End = CommandReports
	case CommandResolveStale:
		p.Effects = append(p.Effects, Effect{Kind: EffectResolveStale, Rule: "E9", Why: "resolve the threads of findings that no longer appear"})
		p.End = CommandReports
	case string(CommandStop):
		p.End = CommandReports
	case string(CommandApprove), string(CommandSkip), string(CommandAccept):
		if st.Status != state.StatusActive {
			p.End = CommandReports
		}
	}
	p.Effects = append(p.Effects, react("+1"))
	return p
}

// WakeFacts are what Admit needs of the wake.
type WakeFacts struct {
	Sweep   bool
	Command bool
	// Asked: the wake asks for a loop (a dispatch by a person, the start
	// label, a start or reset command).
	Asked  bool
	Policy StartPolicy
	Phrase string
	// Denied is why the start label (which asks for a loop) does not
	// count: its sender may not start one (TB15, CommandRefusal of start).
	Denied string
}

// Admit decides whether a wake cycles this PR at all: the sweep visits
// only live loops (a finished loop still labelled live is unlabelled,
// SW1), and under `start-on: command` a PR with no loop is left alone
// unless the wake asks for one. skip is "" when the cycle goes on.
func Admit(st state.State, w WakeFacts, f Facts) (skip string, effects []Effect) {
	if w.Sweep && st.Status != state.StatusActive {
		return "no live loop on this PR", labelEffects(st, f)
	}
	if !w.Command && st.Status == "" && w.Denied != "" && !MayStartLoop(w.Policy, false) {
		return "the start label is ignored (TB15): " + w.Denied, nil
	}
	if !w.Command && st.Status == "" && !MayStartLoop(w.Policy, w.Asked) {
		return "no loop on this PR, and start-on is command: `" + w.Phrase + " start`, the `review-loop` label or a workflow_dispatch starts one", nil
	}
	return "", nil
}

// WakeNote is the status comment's note of the next wake a wait plans
// (a cooldown, a yield, a stall): the same words on every wake that
// plans the same one, so a wake with nothing new writes nothing (C2).
func WakeNote(at time.Time, why string) string {
	return fmt.Sprintf("next wake planned at %s (%s)", at.UTC().Format(time.RFC3339), why)
}

// WritesNothing reports whether a planned cycle writes nothing to GitHub
// (C2, C3): an idle wake, or a finished loop whose label is in step. In
// hardened mode such a cycle starts no publish job.
func WritesNothing(c Cycle) bool {
	return c.Idle || (c.Skip != "" && len(c.Effects) == 0)
}
