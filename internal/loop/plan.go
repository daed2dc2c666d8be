package loop

import (
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// Observation is what Decide needs from one cycle's observation: the PR,
// the adapters' engine views, and the judge verdicts obtained this cycle.
// Now is the only clock the loop reads.
type Observation struct {
	Now     time.Time
	PR      int
	HeadSHA string
	PRState string // OPEN, CLOSED or MERGED; empty is taken as OPEN
	IsDraft bool
	IsFork  bool
	// Engines are the selected engines' views, in any order.
	Engines []EngineView
	// Judge holds verdicts obtained this cycle for engines where NeedsJudge
	// was true, by engine name.
	Judge map[string]JudgeResult
	// JudgeUntrusted says Judge is another job's word (hardened mode's
	// publish job reads the prepare job's verdicts): a verdict that would
	// make an engine clean is then not proof (TB10, S8).
	JudgeUntrusted bool
	// HeadPusher is who pushed the head when the wake says so (a push
	// event's sender), and HeadPusherBot whether that account is a bot;
	// an outside push by someone not known to be a bot is yielded to (HY1).
	HeadPusher    string
	HeadPusherBot bool
	// HeadPusherUnentitled: the head's pusher is neither the PR's author
	// nor a user with write permission; the push is reported and not
	// yielded to (TB15).
	HeadPusherUnentitled bool
	// Humans are people's changes-requested reviews and replies in
	// review threads on the PR, any order (HY1).
	Humans []HumanActivity
	// Commits and ChangedLines (additions + deletions) size the PR (H7).
	Commits      int
	ChangedLines int
	// ChangedChars is the size of the diff in characters, 0 when unknown (CV6).
	ChangedChars int
	// Pushes are the commits pushed since the loop's last look, read when
	// the head moved by an outside push; nil when not read (CV4, CV5).
	Pushes *PushHistory
	// Generated are the .gitattributes patterns marked linguist-generated (CV6).
	Generated []string
	// FixersRunning are engine fixers at work on the head (an Autofix
	// check run not yet completed), CV5.
	FixersRunning []FixerRun
	// Remembered are the won't-fix decisions read back from review-loop's
	// own marked replies on the PR's threads (WF1, R1: the memory lives in
	// those replies, not in the state), with the comments each recall
	// reply answered.
	Remembered []state.WontFix
	// Budget and GraphQLBudget are the repository's REST and GraphQL API
	// budgets as last reported; nil when unknown (B7).
	Budget        *Budget
	GraphQLBudget *Budget
}

// JudgeResult is a judge's answer for one prose-only engine (J1).
type JudgeResult struct {
	Verdict JudgeVerdict
	Reason  string
	// Items are the blocking items (BLOCKING) or the non-blocking ones
	// (NON_BLOCKING) the judge found in the engine's material.
	Items []Finding
}

// Action is what the orchestrator does with a plan.
type Action string

// Plan actions.
const (
	// ActionTrigger is a trigger-only cycle (T2): fire Plan.Triggers,
	// record them with RecordTriggers, save, wait. Nothing else.
	ActionTrigger Action = "trigger"
	// ActionWait: save and wait for an engine (Plan.Wait suggests the poll).
	ActionWait Action = "wait"
	// ActionFix: triage Plan.Triage, fix, then fold with RecordFixCycle.
	ActionFix Action = "fix"
	// ActionHandBack: the loop is over (Plan.EndReason); write the report.
	ActionHandBack Action = "hand-back"
	// ActionNone: the loop for this PR is finished; only a command restarts it (H8).
	ActionNone Action = "none"
)

// Plan is Decide's decision, as data.
type Plan struct {
	Action Action
	// Triggers lists the engines to trigger, alphabetically.
	Triggers []TriggerRequest
	// Triage lists the findings to triage, by engine then comment id.
	Triage []Finding
	// Wait is the suggested in-job poll interval for trigger and wait plans.
	Wait time.Duration
	// WakeAt, when set, is the planned next wake: nothing is worth
	// observing before it (an engine's quota cooldown ends then, T8).
	WakeAt time.Time
	// EndReason is set for hand-back plans.
	EndReason EndReason
	// Why is one line explaining the decision, naming the rule.
	Why string
	// Engines reports every engine, sorted by name (S4, H1).
	Engines []EngineReport
	// Events are the events this decision appended to the state's log.
	Events []state.Event
	// LargePR is set for large PRs: one clean pass is necessary, not sufficient (H7).
	LargePR bool
	// MarkReady asks the orchestrator to mark a draft PR ready for review (IN3).
	MarkReady bool
	// Notices are one-line notices for the report (outside push, not installed...).
	Notices []string
	// Recalled are findings raised again after a remembered won't-fix
	// decision (WF1): not active; those with a Reply are to be answered.
	Recalled []Recall
	// Reraised are the remembered decisions read from the threads that an
	// engine raised again, this cycle or before, for the hand-back (WF1).
	Reraised []state.WontFix
}

// TriggerRequest asks the orchestrator to trigger one engine for one SHA.
type TriggerRequest struct {
	Engine string
	SHA    string
}

// EngineReport is one engine's line in the cycle report (S4) and its
// verdict (H1); Verdict is empty while the engine is still pending.
type EngineReport struct {
	Engine string
	State  ReviewState
	// Verdict is CLEAN, HUNG, ERRORED or STILL_FINDING; empty while pending.
	Verdict EngineVerdict
	// Active are the comment ids of the active findings (ST1, ST2).
	Active        []int64
	Judge         JudgeVerdict
	LowConfidence int
	Note          string
	// Stated is the engine's own count of open findings (S6) and Counted
	// the active findings the loop counted; the status comment shows both.
	Stated  *StatedCount
	Counted int
	// QuotaUntil is when the engine's quota cooldown ends (T8), set while
	// its latest word is a usage, rate or quota notice: the status comment
	// shows a quota with its cooldown, not an error. Zero otherwise.
	QuotaUntil time.Time

	// BelowFloor are the comment ids of the findings below the severity
	// floor (EQ3): listed for a human, not active.
	BelowFloor []int64
}

// TriggerResult is the outcome of one trigger the orchestrator attempted.
type TriggerResult struct {
	Engine string
	SHA    string
	// SignalID is the trigger's id: the trigger comment id for comment
	// triggered engines, 0 for reviewer-assignment engines (T1).
	SignalID int64
	// Skipped is set when T5 found our identical recent trigger.
	Skipped bool
	// Quota is set when the trigger was refused for a usage, rate or
	// quota limit (T8): the engine cools down; it is not an engine error.
	Quota *QuotaNotice
	// Err is set when the trigger failed after its retry (T6).
	Err string
	// Unavailable is set when no trigger was sent because the engine only
	// reviews pushes by itself (its review is no request of the loop's).
	Unavailable bool
}

// FixResult is what triage and fixing did in one fix cycle.
type FixResult struct {
	// Rows has one row per triaged finding with its outcome (Outcome* constants).
	Rows []state.TriageRow
}

// Triage row outcomes.
const (
	OutcomeFixed            = "fixed"
	OutcomeReverted         = "reverted"
	OutcomeEscalated        = "escalated"
	OutcomeAwaitingApproval = "awaiting-approval"
	OutcomeOutdated         = "outdated"
	OutcomeDisagreed        = "disagreed"
	OutcomeSkipped          = "skipped"
	OutcomeNonBlocking      = "non-blocking"
	// OutcomeDuplicate is the row of a source comment merged into another
	// finding as the same defect (DD1): it shares that finding's fix and
	// counts toward no total.
	OutcomeDuplicate = "duplicate"
)

// Comment is the PR's last conversation comment, for T5.
type Comment struct {
	ID        int64
	Author    string
	Body      string
	CreatedAt time.Time
}

// CommandKind is a maintainer command's verb.
type CommandKind string

// Maintainer commands (`@review-loop <verb>`).
const (
	CommandStart   CommandKind = "start"
	CommandStop    CommandKind = "stop"
	CommandApprove CommandKind = "approve"
	CommandSkip    CommandKind = "skip"
	CommandReset   CommandKind = "reset"
	// CommandResume ends a pause of the fixing while yielding to a person (HY1).
	CommandResume CommandKind = "resume"
	// CommandAccept takes a maintainer's word as proof that an engine
	// finished reviewing the head (S11).
	CommandAccept CommandKind = "accept"
)

// Command is a parsed maintainer command.
type Command struct {
	Kind      CommandKind
	FindingID string // approve and skip
	Direction string // approve: optional fix direction
	// Engine is the engine an accept names; Head the head it is for.
	Engine string
	Head   string
	By     string
	At     time.Time
	// Known are the findings the cycle sees (the engines' active
	// findings): an approval may name one of them, or a row of the triage
	// table, by finding id or by comment id (TR2).
	Known []Finding
}

// StatusPlan reports every engine without deciding anything (status,
// stop), with the severity floor the loop applies (EQ3): findings below
// it are listed, not active, and block no engine's CLEAN.
func StatusPlan(st state.State, views []EngineView, head string, floor Severity) Plan {
	p := Plan{Action: ActionNone, Why: "status only"}
	if st.Status == state.StatusDone || st.Status == state.StatusStopped {
		p.Action, p.EndReason = ActionHandBack, EndReason(st.EndReason)
	}
	for _, v := range views {
		es := st.EngineStates[v.Engine]
		rep := EngineReport{Engine: v.Engine, State: ReviewStateOf(es, v, head), LowConfidence: v.LowConfidence}
		active, below := splitFloor(activeFindings(v, head), floor)
		for _, f := range active {
			rep.Active = append(rep.Active, f.CommentID)
		}
		for _, f := range below {
			rep.BelowFloor = append(rep.BelowFloor, f.CommentID)
		}
		if ok, _ := IsCleanAt(st, v, head, floor); ok {
			rep.Verdict = VerdictClean
		}
		p.Engines = append(p.Engines, rep)
	}
	slices.SortFunc(p.Engines, func(a, b EngineReport) int { return strings.Compare(a.Engine, b.Engine) })
	return p
}
