package loop

import (
	"errors"
	"fmt"
	"slices"

	"github.com/review-loop/review-loop/internal/state"
)

// This file decides what the shell's single writes need from the loop's
// state and the observation: the won't-fix decision a reply leaves
// (WF1), the non-blocking items to file (J5), the body findings said
// once (E6), the stale threads (E9), what an approval may name (TR2),
// whether a wake asks for a loop, the branch a treeless run checks out,
// and the proof of origin a new status comment carries (SC4).

// Decided is the won't-fix decision a reply that keeps a rationale
// leaves (WF1): the planned finding it answers, its rationale, and the
// reply's link when the reply was posted (replyID != 0). ok is false for
// a reply that keeps nothing.
func Decided(p Plan, r Reply, replyID int64, prURL string) (d WontFixDecision, ok bool) {
	if !r.Remember {
		return d, false
	}
	d = WontFixDecision{Finding: Finding{ID: r.FindingID}, Reason: ReplyText(r.Body)}
	if i := slices.IndexFunc(p.Triage, func(f Finding) bool { return f.ID == r.FindingID }); i >= 0 {
		d.Finding = p.Triage[i]
	}
	if replyID != 0 && prURL != "" {
		d.ReplyURL = fmt.Sprintf("%s#discussion_r%d", prURL, replyID)
	}
	return d, true
}

// ItemsToFile are the non-blocking items of st the plan files as
// follow-up issues (J5), in the state's order.
func ItemsToFile(st state.State, ids []string) []state.Item {
	var out []state.Item
	for _, it := range st.NonBlocking {
		if slices.Contains(ids, it.ID) {
			out = append(out, it)
		}
	}
	return out
}

// RecordBodyFindings remembers that the body findings fs were listed on
// the PR (E6), so no later cycle lists them again.
func RecordBodyFindings(st state.State, fs []BodyFinding) state.State {
	for _, bf := range fs {
		st, _ = RecordNotice(st, BodyFindingNotice(bf.Finding.ID))
	}
	return st
}

// StaleThreads are the open threads of engine findings that no longer
// appear on head (E9), in one list for one request.
func StaleThreads(views []EngineView, head string) []string {
	var out []string
	for _, v := range views {
		for _, f := range StaleFindings(v, head) {
			out = append(out, f.ThreadID)
		}
	}
	return out
}

// KnownFindings are the active findings the engines show on head: what
// an approval may name besides the triage table (TR2).
func KnownFindings(views []EngineView, head string) []Finding {
	var out []Finding
	for _, v := range views {
		out = append(out, ActiveFindings(v, head)...)
	}
	return out
}

// AskedToStart reports whether a wake asks for a loop (start-on:
// command): a workflow_dispatch by anyone but review-loop itself, the
// review-loop label, or a start or reset command. wake and command are
// the event's kinds ("dispatch", "start-label", "command"; "start",
// "reset"). A dispatch review-loop sent (bySelf) is a re-entry (W5, or
// the sweep's fan-out, SW2) and never starts a loop: the sweep dispatches
// every PR labelled live, and anyone with triage permission can add that
// label (TB3 asks for write).
func AskedToStart(wake, command string, bySelf bool) bool {
	switch wake {
	case "dispatch":
		return !bySelf
	case "start-label":
		return true
	case "command":
		return command == "start" || command == "reset"
	}
	return false
}

// CheckoutBranch is the branch a run with no checkout clones when a cycle
// needs the tree: the PR head, but a fork's base branch, since a fork's
// head is never checked out in a job that holds write tokens (as
// actions/checkout does in the examples).
func CheckoutBranch(fork bool, headRef, baseRef string) (string, error) {
	branch := headRef
	if fork || branch == "" {
		branch = baseRef
	}
	if branch == "" {
		return "", errors.New("checking out: the PR names no head or base branch")
	}
	return branch, nil
}

// StampOwner marks the state a run is about to write as a new status
// comment with the run and workflow that write it (SC4); the comment's
// own id is added once it exists (state.Owner.CommentID). A comment that
// exists already, or a run outside a workflow, stamps nothing.
//
// driver is "watch" for `review-loop watch` (LW1), which runs outside a
// workflow and writes as its user: its new comment is stamped with the
// driver, so that the Action, reading a state comment by a person, can
// tell watch's from a hand-written one.
func StampOwner(st state.State, exists bool, runID int64, workflow, driver string) state.State {
	switch {
	case exists:
	case driver != "":
		st.Owner = &state.Owner{Driver: driver}
	case runID != 0 && workflow != "":
		st.Owner = &state.Owner{RunID: runID, Workflow: workflow}
	}
	return st
}

// KindsOf are the kinds of a plan's effects, in order: what the
// prepare job writes down of the plan and the publish job compares with
// its own (it trusts nothing else the prepare job says of it, TB10).
func KindsOf(es []Effect) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Kind)
	}
	return out
}
