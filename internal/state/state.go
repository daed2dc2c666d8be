// Package state defines the review loop's saved state: a versioned JSON
// schema (rule SC1), its migration from older versions (SC2), its
// validation, and the codec that hides it in an HTML comment of the PR's
// status comment.
//
// The schema uses plain strings for the loop's enums (review states, end
// reasons, event names) so that internal/loop can import this package
// without a cycle; internal/loop owns the typed constants and their meaning.
package state

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Version is the schema version this build writes and understands.
const Version = 1

// Status is the loop's lifecycle status.
type Status string

// Loop statuses. An empty Status means no loop has started for the PR.
const (
	StatusActive  Status = "active"
	StatusDone    Status = "done"
	StatusStopped Status = "stopped"
)

// Review state names as saved; they mirror loop.ReviewState (rule S1).
const (
	ReviewNotTriggered = "NOT_TRIGGERED"
	ReviewTriggered    = "TRIGGERED"
	ReviewRunning      = "RUNNING"
	ReviewDone         = "DONE"
)

// ReviewStates lists every valid saved review state, in S1 order.
var ReviewStates = []string{ReviewNotTriggered, ReviewTriggered, ReviewRunning, ReviewDone}

// Engine marks a loop places on an engine for one head SHA (rule T4).
const (
	MarkHung    = "HUNG"
	MarkErrored = "ERRORED"
	// MarkUnproven: the engine's signal completed but no finished review of
	// the head was recognised within the waiting bound (S8).
	MarkUnproven = "UNPROVEN"
)

// Event names of the JSON-lines event log (rule H6).
const (
	EventRunStart         = "run-start"
	EventIterStart        = "iter-start"
	EventIterEnd          = "iter-end"
	EventIterError        = "iter-error"
	EventRetrigger        = "retrigger"
	EventRetriggerSkipped = "retrigger-skipped"
	EventRetriggerFailed  = "retrigger-failed"
	EventReviewDetected   = "review-detected"
	EventTimeout          = "timeout"
	EventTerminate        = "terminate"
)

// EventNames lists every valid event name (rule H6).
var EventNames = []string{
	EventRunStart, EventIterStart, EventIterEnd, EventIterError, EventRetrigger,
	EventRetriggerSkipped, EventRetriggerFailed, EventReviewDetected, EventTimeout, EventTerminate,
}

// LegacyEngine is the no-progress bucket that holds counts migrated from a
// version 0 state whose flat map cannot be attributed to one engine; the
// loop counts it toward every engine, which is what version 0 did.
const LegacyEngine = "*"

// DiffChars is a diff's size in characters between two commits.
type DiffChars struct {
	Base  string `json:"base"`
	Head  string `json:"head"`
	Chars int    `json:"chars"`
}

// State is everything the loop needs to resume on the next workflow run.
// Every value a bound depends on is here (rule SC1).
type State struct {
	Version   int       `json:"version"`
	Status    Status    `json:"status,omitempty"`
	EndReason string    `json:"end_reason,omitempty"`
	StartedAt time.Time `json:"started_at,omitzero"`
	// Iteration counts fix cycles (triage passes) of this loop.
	Iteration int `json:"iteration"`
	// Commits counts fix commits pushed by this loop (B1).
	Commits int `json:"commits"`
	// ActiveSeconds is active work, waiting excluded (B2).
	ActiveSeconds int64 `json:"active_seconds"`
	// IdleSince is when the loop last made progress: a new push or a new
	// finding (B3). An idle wake changes nothing, so it writes nothing (C2).
	IdleSince time.Time `json:"idle_since,omitzero"`
	// Engines are the engines this loop drives, sorted.
	Engines []string `json:"engines,omitempty"`
	// LastPushSHA is the last commit this loop pushed.
	LastPushSHA string `json:"last_push_sha,omitempty"`
	// PendingPushSHA is a commit about to be pushed (write-ahead, E5).
	PendingPushSHA string `json:"pending_push_sha,omitempty"`
	// LastObservedSHA is the head SHA seen by the previous cycle (W3).
	LastObservedSHA string `json:"last_observed_sha,omitempty"`
	// NoProgress counts, per engine and finding key, the cycles in which a
	// fix of that key was attempted (W2).
	NoProgress map[string]map[string]int `json:"no_progress,omitempty"`
	// EngineStates holds each engine's per-engine state.
	EngineStates map[string]EngineState `json:"engine_states,omitempty"`
	// NonBlocking lists non-blocking items from judged prose engines (J5).
	NonBlocking []Item `json:"non_blocking,omitempty"`
	// Triage is the triage table, one row per finding, latest outcome (TR5).
	Triage []TriageRow `json:"triage,omitempty"`
	// TriagePruned counts the decided rows of earlier cycles dropped from
	// Triage once their findings were no longer open (R1).
	TriagePruned int `json:"triage_pruned,omitempty"`
	// Events is the event log (H6), oldest first.
	Events []Event `json:"events,omitempty"`
	// EventsDropped counts events trimmed from the log to fit the comment.
	EventsDropped int `json:"events_dropped,omitempty"`
	// Approvals are maintainers' approvals of Tier 2 findings.
	Approvals []Approval `json:"approvals,omitempty"`
	// Skips are finding ids a maintainer asked the loop to leave alone.
	Skips []string `json:"skips,omitempty"`
	// Totals are loop-wide outcome counts.
	Totals Totals `json:"totals"`
	// Notices are one-time notices already reported, by key.
	Notices []string `json:"notices,omitempty"`
	// Installed caches, per engine, whether it is installed on the repo
	// (for example the Claude workflow), checked once per loop.
	Installed map[string]bool `json:"installed,omitempty"`
	// LargePR is set when the PR is large (H7).
	LargePR bool `json:"large_pr,omitempty"`
	// DiffChars is the PR diff's size in characters, counted for the
	// engines' character limits (CV6), for the base and head it was
	// counted on: a wake on the same commits reads it again from here.
	DiffChars *DiffChars `json:"diff_chars,omitempty"`
	// LastCycle is the plan of the cycle that last wrote the state: its
	// effects in order, each with its rule, for the reports. It is not
	// part of what an idle wake compares (C2).
	LastCycle []string `json:"last_cycle,omitempty"`
	// WontFix remembers DISAGREE and won't-fix decisions by an
	// engine-agnostic fingerprint, so a finding raised again by any engine
	// on a later head is answered with the earlier rationale (WF1). Added
	// within version 1: older states decode with none.
	WontFix []WontFix `json:"wont_fix,omitempty"`
	// Yield pauses the fixing half of the loop while a person works on
	// the PR (HY1); nil when review-loop yields to no one.
	Yield *Yield `json:"yield,omitempty"`
	// Paused are findings whose thread a person replied in (HY1).
	Paused []Pause `json:"paused,omitempty"`
	// HumanSeenID is the highest id of a person's review or thread reply
	// already seen, so each pauses once (HY1).
	HumanSeenID int64 `json:"human_seen_id,omitempty"`
	// Gate is review-loop's own check run on the head (MG1); nil before
	// the first one. Absent in states written before it existed.
	Gate *Gate `json:"gate,omitempty"`
	// Ledger is the loop's cost ledger (CL1); nil before anything was
	// counted. Absent in states written before it existed.
	Ledger *Ledger `json:"ledger,omitempty"`
	// FixCommits are this loop's fix commits with the lines each changed
	// and the findings it fixed (CV1, CV4). Added within version 1:
	// older states decode with none.
	FixCommits []FixCommit `json:"fix_commits,omitempty"`
	// Induced are findings raised on lines a fix commit changed (CV1).
	Induced []Induced `json:"induced,omitempty"`
	// AutofixOff is set when a person reverted or force-pushed over a
	// review-loop commit: no fix until `@review-loop resume` (CV4).
	AutofixOff *AutofixOff `json:"autofix_off,omitempty"`
	// Held are findings listed for a human instead of fixed (CV3, CV5, CV6).
	Held []Held `json:"held,omitempty"`
	// EngineFixed are ids of findings an engine's own fixer fixed: never
	// fixed again (CV5).
	EngineFixed []string `json:"engine_fixed,omitempty"`
	// ProseRounds counts the fix rounds that acted on prose or nitpick
	// findings (CV3).
	ProseRounds int `json:"prose_rounds,omitempty"`
	// Owner is the proof that review-loop's own workflow wrote the status
	// comment (SC4). Absent in states written before it existed.
	Owner *Owner `json:"owner,omitempty"`
	// Accepted are maintainers' `accept <engine>` words, each standing in
	// for the engine's proof of a finished review of one head (S11).
	// Added within version 1: older states decode with none.
	Accepted []Acceptance `json:"accepted,omitempty"`
	// UnreadPushes are the commits pushed since the loop's last look that
	// could not be read: no fix until they are (CV7). Added within version
	// 1: older states decode with none.
	UnreadPushes *UnreadPushes `json:"unread_pushes,omitempty"`
	// Scores are the per-engine scorecard of this loop (EQ1), a fixed
	// size per engine. Absent in states written before it existed.
	Scores map[string]Score `json:"scores,omitempty"`
}

// UnreadPushes is the range of pushed commits the loop could not read
// (CV7): it reads them again from Base on the next wake.
type UnreadPushes struct {
	Base string `json:"base"`
	Head string `json:"head"`
	Why  string `json:"why"`
}

// Acceptance is a maintainer's word that an engine finished reviewing one
// head, given with `@review-loop accept <engine>` when the loop could not
// prove it (S11). It holds for that head only.
type Acceptance struct {
	Engine string    `json:"engine"`
	SHA    string    `json:"sha"`
	By     string    `json:"by"`
	At     time.Time `json:"at,omitzero"`
}

// Owner names the workflow run that created the status comment and, once
// that is proved, the comment the proof holds for (SC4). A comment is
// review-loop's when CommentID is its own id (review-loop writes it once
// it knows the id, which no comment can know before it exists), or when
// RunID is a run of review-loop's workflow file that was running when the
// comment was created (one read of the run, then cached here).
type Owner struct {
	RunID     int64  `json:"run_id"`
	Workflow  string `json:"workflow,omitempty"`
	CommentID int64  `json:"comment_id,omitempty"`
	// Driver is "watch" when `review-loop watch` created the comment,
	// under its user's identity (LW1); empty for the Action's.
	Driver string `json:"driver,omitempty"`
}

// Yield is a pause of the fixing half of the loop (HY1).
type Yield struct {
	Until time.Time `json:"until"`
	// Reason says what review-loop yields to ("a push by @alice").
	Reason string `json:"reason"`
}

// Pause is one finding paused because a person replied in its thread (HY1).
type Pause struct {
	FindingID string `json:"id"`
	ThreadID  string `json:"thread_id,omitempty"`
	// Path and the lines StartLine..Line are where the person is working:
	// a finding re-posted there (in a new thread) is paused too.
	Path      string    `json:"path,omitempty"`
	StartLine int       `json:"start_line,omitempty"`
	Line      int       `json:"line,omitempty"`
	By        string    `json:"by"`
	Until     time.Time `json:"until"`
}

// WontFix is one remembered won't-fix decision (WF1).
type WontFix struct {
	// Path, Title (normalised when compared) and Context (a hash of the
	// code around the flagged lines) are the fingerprint.
	Path    string `json:"path"`
	Title   string `json:"title"`
	Context string `json:"context"`
	// FindingID, Engine and CommentID name the finding decided on.
	FindingID string `json:"id"`
	Engine    string `json:"engine,omitempty"`
	CommentID int64  `json:"comment_id,omitempty"`
	// Reason is the decision's rationale; ReplyURL links the reply that
	// gave it; SHA is the head it was decided on.
	Reason   string `json:"reason"`
	ReplyURL string `json:"reply_url,omitempty"`
	// ReplyID is the decline reply's comment id, for a decision read back
	// from the reply's marker (never saved: such decisions live in the
	// replies, R1).
	ReplyID int64     `json:"-"`
	SHA     string    `json:"sha,omitempty"`
	At      time.Time `json:"at,omitzero"`
	// Answered are the comment ids that raised it again and were answered;
	// ReraisedBy the engines that raised it again.
	Answered   []int64  `json:"answered,omitempty"`
	ReraisedBy []string `json:"reraised_by,omitempty"`
}

// EngineState is one engine's saved state.
type EngineState struct {
	// Review is the engine's review state for LastObservedSHA (S1).
	Review string `json:"review,omitempty"`
	// TriggeredSHA is the head SHA we last fired a trigger for (T1, T3).
	TriggeredSHA string    `json:"triggered_sha,omitempty"`
	TriggeredAt  time.Time `json:"triggered_at,omitzero"`
	// WaitSHA and WaitSince say since when the loop has waited on this
	// engine for WaitSHA (stall hatch, T4).
	WaitSHA   string    `json:"wait_sha,omitempty"`
	WaitSince time.Time `json:"wait_since,omitzero"`
	// SignalID is the last seen signal id: trigger comment, check run or review.
	SignalID int64 `json:"signal_id,omitempty"`
	// LastSeenReviewID and LastSeenReviewSHA are the latest review seen (id@sha).
	LastSeenReviewID  int64  `json:"last_seen_review_id,omitempty"`
	LastSeenReviewSHA string `json:"last_seen_review_sha,omitempty"`
	// LastSeenCommentID is the highest finding comment id seen (B3).
	LastSeenCommentID int64 `json:"last_seen_comment_id,omitempty"`
	// FirstReviewSeen is set once the engine has posted any review (T7).
	FirstReviewSeen bool `json:"first_review_seen,omitempty"`
	// Mark is HUNG or ERRORED for MarkSHA, with a reason (T4).
	Mark     string `json:"mark,omitempty"`
	MarkSHA  string `json:"mark_sha,omitempty"`
	MarkNote string `json:"mark_note,omitempty"`
	// ConsecutiveErrors counts errors in a row; LastErrorSignalID keeps
	// one error signal from being counted twice.
	ConsecutiveErrors int   `json:"consecutive_errors,omitempty"`
	LastErrorSignalID int64 `json:"last_error_signal_id,omitempty"`
	// Judge is the cached judge verdict for a head SHA (J4).
	Judge *JudgeCache `json:"judge,omitempty"`
	// QuotaUntil is when the engine's usage or rate-limit cooldown ends
	// (T8); QuotaNote is the engine's own words.
	QuotaUntil time.Time `json:"quota_until,omitzero"`
	QuotaNote  string    `json:"quota_note,omitempty"`
	// InitialWaitDone is set once Copilot-only mode's first wait happened (W4).
	InitialWaitDone bool `json:"initial_wait_done,omitempty"`
	// Per-engine hand-back counts (H1).
	Cycles    int `json:"cycles,omitempty"`
	Fixed     int `json:"fixed,omitempty"`
	Approved  int `json:"approved,omitempty"`
	Escalated int `json:"escalated,omitempty"`
	Skipped   int `json:"skipped,omitempty"`
}

// JudgeCache is a judge verdict cached for one head SHA and one set of
// review material (J4).
type JudgeCache struct {
	Verdict  string `json:"verdict"`
	SHA      string `json:"sha"`
	Material string `json:"material"`
	Reason   string `json:"reason,omitempty"`
	Items    []Item `json:"items,omitempty"`
}

// Item is a judged item of a prose engine (blocking or non-blocking).
type Item struct {
	ID     string `json:"id"`
	Engine string `json:"engine"`
	Title  string `json:"title"`
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	SHA    string `json:"sha,omitempty"`
	// Issue is the URL of the follow-up issue filed for a non-blocking
	// item (`non-blocking: issue`, J5), once filed.
	Issue string `json:"issue,omitempty"`
}

// TriageRow is one row of the triage table (TR5).
type TriageRow struct {
	FindingID     string `json:"id"`
	Engine        string `json:"engine"`
	CommentID     int64  `json:"comment_id,omitempty"`
	Tier          int    `json:"tier"`
	Justification string `json:"justification,omitempty"`
	Outcome       string `json:"outcome"`
	// Key is the no-progress key (engine finding key or category).
	Key   string `json:"key,omitempty"`
	Cycle int    `json:"cycle"`
	// FlaggedBy lists the engines whose comments were merged into this
	// row's finding as one defect (DD1); empty when one engine flagged it.
	FlaggedBy []string `json:"flagged_by,omitempty"`
}

// Approval is a maintainer's `approve <id> [direction]` command (TR2).
type Approval struct {
	FindingID string    `json:"id"`
	Direction string    `json:"direction,omitempty"`
	By        string    `json:"by,omitempty"`
	At        time.Time `json:"at,omitzero"`
}

// Totals are loop-wide outcome counts for the hand-back.
type Totals struct {
	Fixed     int `json:"fixed"`
	Reverted  int `json:"reverted"`
	Escalated int `json:"escalated"`
	Outdated  int `json:"outdated"`
	Disagreed int `json:"disagreed"`
}

// Event is one entry of the event log; it serialises as one JSON line (H6).
type Event struct {
	Time      time.Time `json:"ts"`
	Name      string    `json:"event"`
	Iteration int       `json:"iter,omitempty"`
	Engine    string    `json:"engine,omitempty"`
	SHA       string    `json:"sha,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Detail    string    `json:"detail,omitempty"`
}

// New returns the empty state of a PR with no loop yet.
func New() State { return State{Version: Version} }

// HasNotice reports whether a one-time notice was already reported.
func (s State) HasNotice(key string) bool { return slices.Contains(s.Notices, key) }

// Clone returns a deep copy, so that pure functions can change the copy
// without touching the caller's state.
func (s State) Clone() State {
	c := s
	c.Engines = slices.Clone(s.Engines)
	c.LastCycle = slices.Clone(s.LastCycle)
	if s.DiffChars != nil {
		d := *s.DiffChars
		c.DiffChars = &d
	}
	if s.NoProgress != nil {
		c.NoProgress = make(map[string]map[string]int, len(s.NoProgress))
		for e, m := range s.NoProgress {
			c.NoProgress[e] = maps.Clone(m)
		}
	}
	if s.EngineStates != nil {
		c.EngineStates = make(map[string]EngineState, len(s.EngineStates))
		for e, es := range s.EngineStates {
			if es.Judge != nil {
				j := *es.Judge
				j.Items = slices.Clone(j.Items)
				es.Judge = &j
			}
			c.EngineStates[e] = es
		}
	}
	c.NonBlocking = slices.Clone(s.NonBlocking)
	c.Triage = slices.Clone(s.Triage)
	c.Events = slices.Clone(s.Events)
	c.Approvals = slices.Clone(s.Approvals)
	c.Accepted = slices.Clone(s.Accepted)
	if s.UnreadPushes != nil {
		u := *s.UnreadPushes
		c.UnreadPushes = &u
	}
	c.Skips = slices.Clone(s.Skips)
	c.Notices = slices.Clone(s.Notices)
	c.Installed = maps.Clone(s.Installed)
	if s.Yield != nil {
		y := *s.Yield
		c.Yield = &y
	}
	c.Paused = slices.Clone(s.Paused)
	if s.WontFix != nil {
		c.WontFix = make([]WontFix, len(s.WontFix))
		for i, w := range s.WontFix {
			w.Answered, w.ReraisedBy = slices.Clone(w.Answered), slices.Clone(w.ReraisedBy)
			c.WontFix[i] = w
		}
	}
	if s.Gate != nil {
		g := *s.Gate
		c.Gate = &g
	}
	c.Ledger = s.Ledger.clone()
	cloneConverge(&c, s)
	if s.Owner != nil {
		o := *s.Owner
		c.Owner = &o
	}
	c.Scores = cloneScores(s.Scores)
	return c
}

// Validate checks the state's invariants. knownEngines, when not nil, is
// the list of engine names this build knows; every error names its field.
func (s State) Validate(knownEngines []string) error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("state: %s: %s", field, fmt.Sprintf(format, args...)))
	}
	if s.Version != Version {
		bad("version", "is %d, want %d", s.Version, Version)
	}
	switch s.Status {
	case "", StatusActive, StatusDone, StatusStopped:
	default:
		bad("status", "unknown status %q (known: active, done, stopped)", s.Status)
	}
	for _, c := range []counter{
		{"iteration", int64(s.Iteration)}, {"commits", int64(s.Commits)},
		{"active_seconds", s.ActiveSeconds},
		{"events_dropped", int64(s.EventsDropped)}, {"totals.fixed", int64(s.Totals.Fixed)},
		{"totals.reverted", int64(s.Totals.Reverted)}, {"totals.escalated", int64(s.Totals.Escalated)},
		{"totals.outdated", int64(s.Totals.Outdated)}, {"totals.disagreed", int64(s.Totals.Disagreed)},
	} {
		if c.v < 0 {
			bad(c.name, "is negative (%d)", c.v)
		}
	}
	checkEngine := func(field, e string) {
		if knownEngines != nil && !slices.Contains(knownEngines, e) && e != LegacyEngine {
			bad(field, "unknown engine %q (known: %s)", e, strings.Join(knownEngines, ", "))
		}
	}
	for _, e := range s.Engines {
		checkEngine("engines", e)
	}
	for _, e := range slices.Sorted(maps.Keys(s.NoProgress)) {
		checkEngine("no_progress", e)
		for _, k := range slices.Sorted(maps.Keys(s.NoProgress[e])) {
			if s.NoProgress[e][k] < 0 {
				bad(fmt.Sprintf("no_progress[%s][%s]", e, k), "is negative (%d)", s.NoProgress[e][k])
			}
		}
	}
	for _, e := range slices.Sorted(maps.Keys(s.EngineStates)) {
		es := s.EngineStates[e]
		f := "engine_states[" + e + "]"
		checkEngine("engine_states", e)
		if es.Review != "" && !slices.Contains(ReviewStates, es.Review) {
			bad(f+".review", "unknown review state %q (known: %s)", es.Review, strings.Join(ReviewStates, ", "))
		}
		if es.Mark != "" && es.Mark != MarkHung && es.Mark != MarkErrored && es.Mark != MarkUnproven {
			bad(f+".mark", "unknown mark %q (known: %s, %s, %s)", es.Mark, MarkHung, MarkErrored, MarkUnproven)
		}
		for _, c := range []counter{
			{"consecutive_errors", int64(es.ConsecutiveErrors)}, {"cycles", int64(es.Cycles)},
			{"fixed", int64(es.Fixed)}, {"approved", int64(es.Approved)},
			{"escalated", int64(es.Escalated)}, {"skipped", int64(es.Skipped)},
		} {
			if c.v < 0 {
				bad(f+"."+c.name, "is negative (%d)", c.v)
			}
		}
	}
	for i, ev := range s.Events {
		if !slices.Contains(EventNames, ev.Name) {
			bad(fmt.Sprintf("events[%d].event", i), "unknown event %q", ev.Name)
		}
	}
	for i, a := range s.Accepted {
		checkEngine(fmt.Sprintf("accepted[%d].engine", i), a.Engine)
		if a.SHA == "" || a.By == "" {
			bad(fmt.Sprintf("accepted[%d]", i), "needs the head it is for and who accepted it")
		}
	}
	errs = append(errs, s.Ledger.validate()...)
	errs = append(errs, validateScores(s.Scores)...)
	for i, r := range s.Triage {
		if r.Tier < 0 || r.Tier > 3 {
			bad(fmt.Sprintf("triage[%d].tier", i), "is %d, want 0 to 3", r.Tier)
		}
	}
	return errors.Join(errs...)
}

type counter struct {
	name string
	v    int64
}
