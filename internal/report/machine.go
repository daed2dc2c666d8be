package report

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
)

// SchemaVersion is the version of the JSON report's schema. Fields are only
// ever added within a version; a rename or removal bumps it.
const SchemaVersion = 2

// JSONReport is the machine-readable report behind the `report-json`
// output. Its schema is stable: see SchemaVersion.
type JSONReport struct {
	// Schema is SchemaVersion.
	Schema int `json:"schema"`
	// Verdict is clean, still-finding, hung, errored or pending.
	Verdict Verdict `json:"verdict"`
	// Reason is the end reason (H5), empty while the loop runs.
	Reason string `json:"reason"`
	// Phase is trigger, wait, fix, hand-back, done or stopped.
	Phase Phase `json:"phase"`
	// PR is the pull request number; PRURL its URL.
	PR    int    `json:"pr,omitempty"`
	PRURL string `json:"pr_url,omitempty"`
	// LastCommit is the head commit at the end of the cycle.
	LastCommit string `json:"last_commit,omitempty"`
	Cycle      int    `json:"cycle"`
	Iteration  int    `json:"iteration"`
	Commits    int    `json:"commits"`
	// ActiveMinutes is active work so far, waiting excluded (B2).
	ActiveMinutes int `json:"active_minutes"`
	// IdleSince is when the loop last made progress (B3), RFC 3339.
	IdleSince string `json:"idle_since,omitempty"`
	// ActiveFindings totals the active findings of every engine.
	ActiveFindings int `json:"active_findings"`
	// Asymmetric is set at hand-back when some engines are clean and
	// others are not (H2).
	Asymmetric bool           `json:"asymmetric"`
	LargePR    bool           `json:"large_pr"`
	Engines    []JSONEngine   `json:"engines"`
	Triage     []JSONTriage   `json:"triage"`
	Totals     JSONTotals     `json:"totals"`
	NonBlock   []JSONItem     `json:"non_blocking"`
	Stale      int            `json:"stale_threads"`
	Events     int            `json:"events"`
	Dropped    int            `json:"events_dropped"`
	Notices    []string       `json:"notices"`
	Approvals  []JSONApproval `json:"approvals_pending"`
	// Scorecard is each engine's scorecard of this loop (EQ1).
	Scorecard []JSONScore `json:"scorecard"`
}

// JSONEngine is one engine of the JSON report (S4, H1).
type JSONEngine struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// Mark is HUNG or ERRORED when set; Verdict is CLEAN, HUNG, ERRORED,
	// STILL_FINDING, or empty while pending.
	Mark    string `json:"mark,omitempty"`
	Verdict string `json:"verdict"`
	Judge   string `json:"judge,omitempty"`
	// Active are the active findings' comment ids; null when this run did
	// not observe them (the `status` command).
	Active         []int64 `json:"active"`
	ActiveFindings int     `json:"active_findings"`
	LowConfidence  int     `json:"low_confidence"`
	Note           string  `json:"note,omitempty"`
	// StatedOpen is the engine's own count of open findings (S6), with
	// Counted the active findings the loop counted; absent when the
	// engine states none.
	StatedOpen *int   `json:"stated_open,omitempty"`
	Counted    *int   `json:"counted,omitempty"`
	StatedFrom string `json:"stated_from,omitempty"`
	// BelowFloor are the comment ids of the findings below the severity
	// floor (EQ3), listed for a human; null when this run did not observe
	// them.
	BelowFloor []int64 `json:"below_floor"`
	Cycles     int     `json:"cycles"`
	Fixed      int     `json:"fixed"`
	Approved   int     `json:"approved"`
	Escalated  int     `json:"escalated"`
	Skipped    int     `json:"skipped"`
}

// JSONTriage is one triage row (TR5).
type JSONTriage struct {
	ID            string `json:"id"`
	Engine        string `json:"engine"`
	CommentID     int64  `json:"comment_id,omitempty"`
	Tier          int    `json:"tier"`
	Justification string `json:"justification"`
	Outcome       string `json:"outcome"`
	Cycle         int    `json:"cycle"`
}

// JSONTotals are the loop-wide outcome counts.
type JSONTotals struct {
	Fixed     int `json:"fixed"`
	Reverted  int `json:"reverted"`
	Escalated int `json:"escalated"`
	Outdated  int `json:"outdated"`
	Disagreed int `json:"disagreed"`
}

// JSONItem is a non-blocking item (J5) with the issue filed for it, if any.
type JSONItem struct {
	ID     string `json:"id"`
	Engine string `json:"engine"`
	Title  string `json:"title"`
	Issue  string `json:"issue,omitempty"`
}

// JSONApproval is a Tier 2 finding waiting for `@review-loop approve`.
type JSONApproval struct {
	ID     string `json:"id"`
	Engine string `json:"engine"`
}

// Report builds the JSON report's value; JSON marshals it.
func Report(in Input) JSONReport {
	s, st := Summarize(in), in.State
	r := JSONReport{
		Schema: SchemaVersion, Verdict: s.Verdict, Reason: string(s.Reason), Phase: s.Phase,
		PR: in.Number, PRURL: in.prURL(), LastCommit: lastCommit(in),
		Cycle: s.Cycle, Iteration: st.Iteration, Commits: st.Commits, ActiveMinutes: int(st.ActiveSeconds / 60),
		IdleSince: rfc3339(st.IdleSince), ActiveFindings: s.ActiveFindings, Asymmetric: s.Asymmetric, LargePR: s.LargePR,
		Engines: []JSONEngine{}, Triage: []JSONTriage{}, NonBlock: []JSONItem{}, Approvals: []JSONApproval{},
		Totals: JSONTotals(st.Totals), Stale: in.StaleThreads, Events: len(st.Events), Dropped: st.EventsDropped,
		Notices:   append([]string{}, in.notices()...),
		Scorecard: jsonScores(loop.Scorecard(st, in.Prices.Review)),
	}
	for _, e := range s.Engines {
		je := JSONEngine{Name: e.Name, State: string(e.State), Mark: e.Mark, Verdict: string(e.Verdict),
			Judge: string(e.Judge), ActiveFindings: len(e.Active), LowConfidence: e.LowConfidence, Note: e.Note,
			Cycles: e.Cycles, Fixed: e.Fixed, Approved: e.Approved, Escalated: e.Escalated, Skipped: e.Skipped}
		if e.ActiveKnown {
			je.Active = append([]int64{}, e.Active...)
			je.BelowFloor = append([]int64{}, e.BelowFloor...)
		}
		if e.Stated != nil {
			n, c := e.Stated.N, e.Counted
			je.StatedOpen, je.Counted, je.StatedFrom = &n, &c, e.Stated.Source
		}
		r.Engines = append(r.Engines, je)
	}
	for _, t := range st.Triage {
		r.Triage = append(r.Triage, JSONTriage{ID: t.FindingID, Engine: t.Engine, CommentID: t.CommentID, Tier: t.Tier,
			Justification: t.Justification, Outcome: t.Outcome, Cycle: t.Cycle})
	}
	for _, it := range st.NonBlocking {
		r.NonBlock = append(r.NonBlock, JSONItem{ID: it.ID, Engine: it.Engine, Title: it.Title, Issue: in.NonBlockingIssues[it.ID]})
	}
	for _, t := range awaitingApproval(st) {
		r.Approvals = append(r.Approvals, JSONApproval{ID: t.FindingID, Engine: t.Engine})
	}
	return r
}

// JSON renders the machine-readable report (JSONReport), indented, for
// the `report-json` output.
func JSON(in Input) ([]byte, error) {
	b, err := json.MarshalIndent(Report(in), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("rendering report JSON: %w", err)
	}
	return append(b, '\n'), nil
}

// Output names of the action.
const (
	OutputVerdict        = "verdict"
	OutputReason         = "reason"
	OutputPhase          = "phase"
	OutputCommits        = "commits"
	OutputActiveFindings = "active-findings"
	// OutputPublish is set by the prepare job only: whether its publish
	// job has anything to write (C3).
	OutputPublish = "publish"
)

// Outputs returns the action's outputs: verdict, reason, phase, commits
// and active-findings, all from Summarize, and the cost ledger (CL1).
func Outputs(in Input) map[string]string {
	s := Summarize(in)
	return map[string]string{
		OutputVerdict:        string(s.Verdict),
		OutputReason:         string(s.Reason),
		OutputPhase:          string(s.Phase),
		OutputCommits:        itoa(in.State.Commits),
		OutputActiveFindings: itoa(s.ActiveFindings),
		OutputCost:           CostJSON(in),
	}
}

// rfc3339 is t in RFC 3339, UTC; empty for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
