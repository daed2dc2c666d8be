package loop

import "time"

// ReviewState is an engine's review state for the head SHA (rule S1).
type ReviewState string

// The review states of rule S1.
const (
	NotTriggered ReviewState = "NOT_TRIGGERED"
	Triggered    ReviewState = "TRIGGERED"
	Running      ReviewState = "RUNNING"
	Done         ReviewState = "DONE"
)

// Signal is what an engine's own completion signal says for the head SHA,
// as read by its adapter from the observation. The loop combines it with
// what it triggered (state) to get the ReviewState.
type Signal string

// Completion signals an adapter can report.
const (
	SignalNone    Signal = "NONE"    // no check run / review / workflow run for the head SHA
	SignalRunning Signal = "RUNNING" // queued or in progress
	SignalDone    Signal = "DONE"    // completed
)

// Material says whether a DONE engine produced readable review material.
type Material string

// Material states of a DONE engine (engines/README.md explains each).
const (
	MaterialOK      Material = "OK"      // readable verdict material
	MaterialSilent  Material = "SILENT"  // completed, posted nothing
	MaterialNoop    Material = "NOOP"    // completed without reviewing (already commented, workflow-validation skip)
	MaterialErrored Material = "ERRORED" // the engine reported an error
	MaterialDraft   Material = "DRAFT"   // the engine no-ops on drafts and the PR is a draft
	MaterialPending Material = "PENDING" // not done yet
	// MaterialUnproven: the signal completed but nothing proves the engine
	// reviewed the head SHA (Bugbot neutral with no review, a cancelled or
	// skipped run, CodeRabbit "Review skipped"): never clean (S7).
	MaterialUnproven Material = "UNPROVEN"
	// MaterialQuota: the engine's latest word is a usage, rate-limit or
	// quota notice (S7, T8); EngineView.Quota carries it.
	MaterialQuota Material = "QUOTA"
)

// StatedCount is how many open findings an engine itself states for the
// head SHA (S6): Bugbot's check output "N total unresolved issues",
// CodeRabbit's "Actionable comments posted: N" plus its body sections,
// Copilot's "generated K comments".
type StatedCount struct {
	N int
	// Source quotes where the number was read, for the status comment.
	Source string
}

// QuotaNotice is an engine's usage, rate-limit or quota notice (S7, T8).
type QuotaNotice struct {
	// At is when the notice was posted.
	At time.Time
	// Wait is the cooldown the engine states ("wait 22 minutes"); zero when
	// it states none, and the loop then assumes one hour (T8).
	Wait time.Duration
	// Text is the engine's own words, shown on the status comment.
	Text string
}

// Severity of a finding, normalised across engines.
type Severity string

// Normalised severities; SeverityUnknown for formats we could not read.
const (
	SeverityCritical Severity = "critical"
	SeverityHigh     Severity = "high"
	SeverityMedium   Severity = "medium"
	SeverityLow      Severity = "low"
	SeverityUnknown  Severity = "unknown"
)

// Finding is one review finding, identified by comment id and review id,
// never by body text (rule S5).
type Finding struct {
	ID        string // stable id shown to maintainers, e.g. "bugbot-2233029557"
	Engine    string
	CommentID int64
	ReviewID  int64  // the review that submitted the root comment
	ReviewSHA string // commit of that review (or of the comment when the review is unknown)
	ThreadID  string // GraphQL node id of the thread; empty for body-only findings
	Path      string
	Line      int
	StartLine int
	// OriginalCommit is the commit the comment was written on; suggestions
	// are anchored to it.
	OriginalCommit string
	OriginalLine   int
	Outdated       bool
	Resolved       bool
	Title          string
	Body           string
	Severity       Severity
	// Key is the stable no-progress key when the engine has one
	// (Bugbot's BUGBOT_BUG_ID); otherwise empty.
	Key string
	// Category is the normalised category used by the no-progress detector (W2).
	Category string
	// Locations lists every file the finding names; more than one file
	// means a cross-file finding (Tier 3).
	Locations []string
	Withdrawn bool
	// Sources are the other engines' comments merged into this finding as
	// the same defect (DD1); empty for a finding flagged by one engine.
	Sources []SourceRef
	// ContextHash is a hash of the code around the flagged lines at the
	// head, computed by the orchestrator from the checkout (WF1's
	// fingerprint); empty when the code could not be read.
	ContextHash string
}

// Verdict is one verdict-bearing review body (or tracking comment) of an engine.
type Verdict struct {
	ReviewID    int64
	SHA         string
	Body        string
	Substantive bool // carries findings or a verdict, as opposed to a bare progress note
	At          time.Time
}

// ReviewRef is one review of an engine as needed by the staleness rules.
type ReviewRef struct {
	ID          int64
	SHA         string
	Substantive bool
	At          time.Time
}

// EngineView is an adapter's reading of the shared observation for one
// engine: raw, before the loop applies state, staleness and judging.
type EngineView struct {
	Engine       string
	Installed    bool
	NotInstalled string // why, when not installed (IN2)
	// TriggerAvailable is false when the engine cannot be triggered with the
	// tokens we have (Bugbot without a user token); TriggerNote says why.
	TriggerAvailable bool
	TriggerNote      string
	Prose            bool // verdict surface is prose-only (judge needed)
	MultiVerdict     bool // may post several substantive verdicts per SHA (ST2)
	// Incremental is the staleness policy the adapter declares: true for
	// engines that do not re-post still-present findings (Bugbot,
	// CodeRabbit), whose unresolved threads stay active across reviews
	// (ST5); false for engines that re-post every finding in each review
	// (Copilot), where latest review wins (ST1).
	Incremental bool
	// WithholdUntilFirstReview: a prose engine whose push-triggered run
	// carries it is not retriggered before its first review (T7).
	WithholdUntilFirstReview bool

	// CompletionSignal is true for an engine with a completion signal of
	// its own (a check run, commit status or workflow run that completes
	// when its review completes, S10): once that signal is in for the
	// head and nothing proves the review, the loop hands back at once
	// (S11). An engine without one (Gemini) is given its normal latency.
	CompletionSignal bool

	Signal          Signal
	SignalStartedAt time.Time // when the running check started, for the stall hatch (T4)
	SignalID        int64     // check run id / review id carrying the signal
	Material        Material
	MaterialNote    string

	Reviews        []ReviewRef // every review of this engine, any SHA
	LatestReviewID int64
	LatestSHA      string
	// Findings are all open, parsed findings of the engine across reviews;
	// the loop applies ST1/ST2 to pick the active ones.
	Findings []Finding
	// LowConfidence counts findings that live only inside a review body
	// (Copilot's suppressed comments): reported, never counted as active.
	LowConfidence int
	Verdicts      []Verdict
	// VerdictSetProven is true when the adapter saw the whole verdict set
	// for the head SHA (J3).
	VerdictSetProven bool
	// Stated is the engine's own count of open findings for the head SHA
	// (S6); nil when it states none.
	Stated *StatedCount
	// Quota is set when the engine stopped on a usage or rate limit (T8).
	Quota *QuotaNotice
	// Proof is the engine's finished review of a commit, of a kind its
	// adapter positively recognises (S8); nil when there is none. Only a
	// proof whose SHA is the head lets the engine be CLEAN.
	Proof *Proof
	// Paused is set when the engine paused its own reviews (CodeRabbit's
	// "Reviews paused" after N reviewed commits) and has nothing on the
	// head: it reviews no push by itself until asked. The adapter's words
	// say what it posted and the one-review command the loop uses (ST6).
	Paused string
	// Unproven is the engine's latest text the adapter did not take as a
	// finished review of the head (a placeholder, an ack, a refusal, an
	// unknown text), quoted on the status comment and at hand-back so a
	// person can judge it; empty when there is none.
	Unproven string
}

// Proof is an adapter's positive recognition of a finished review (S8).
type Proof struct {
	// Kind is the recognised kind of post ("review-summary", …), one of the
	// adapter's declared finished-review kinds.
	Kind string
	// SHA is the commit the review is of.
	SHA string
	// ID is the review, comment or check run that carries it.
	ID int64
	// By is the maintainer whose `accept` stands in for the engine's own
	// proof (S11, Kind KindAccepted); empty otherwise.
	By string
}

// KindAccepted is the kind of a proof that is a maintainer's word (S11).
const KindAccepted = "accepted"

// Proven reports whether v carries a recognised finished review of head
// (S8).
func Proven(v EngineView, head string) bool {
	return v.Proof != nil && v.Proof.Kind != "" && head != "" && v.Proof.SHA == head
}

// JudgeVerdict is the judge's classification of a prose-only engine (J1).
type JudgeVerdict string

// Judge verdicts.
const (
	JudgeClean       JudgeVerdict = "CLEAN"
	JudgeBlocking    JudgeVerdict = "BLOCKING"
	JudgeNonBlocking JudgeVerdict = "NON_BLOCKING"
	JudgeNone        JudgeVerdict = "" // no verdict (no judge, failure, fail-closed)
)

// EngineVerdict is an engine's final verdict at hand-back (H1).
type EngineVerdict string

// Final per-engine verdicts.
const (
	VerdictClean        EngineVerdict = "CLEAN"
	VerdictHung         EngineVerdict = "HUNG"
	VerdictErrored      EngineVerdict = "ERRORED"
	VerdictStillFinding EngineVerdict = "STILL_FINDING"
	// VerdictUnproven: the engine completed, but nothing it posted is a
	// finished review of the head that its adapter recognises (S8). Never
	// clean; reached at the waiting bound (T4 stall, B3) or at hand-back.
	VerdictUnproven EngineVerdict = "UNPROVEN"
	// VerdictPaused: the engine paused its own reviews and the loop
	// cannot ask it for one (no trigger token) (ST6). Never clean.
	VerdictPaused EngineVerdict = "PAUSED"
)

// EndReason is why the loop handed back (H5).
type EndReason string

// End reasons.
const (
	EndClean         EndReason = "clean"
	EndNoFixes       EndReason = "no-fixes"
	EndNoComments    EndReason = "no-comments"
	EndMaxIterations EndReason = "max-iterations"
	EndTimeout       EndReason = "timeout"
	EndBound         EndReason = "bound"
	EndNoProgress    EndReason = "no-progress"
	EndStopped       EndReason = "stopped"
	EndError         EndReason = "error"
)
