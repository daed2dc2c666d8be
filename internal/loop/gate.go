package loop

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/review-loop/review-loop/internal/state"
)

// GateName is the name of review-loop's own check run, the merge gate
// (MG1): branch protection can require it.
const GateName = "review-loop"

// Gate statuses and conclusions, as the checks API spells them.
const (
	GateInProgress = "in_progress"
	GateCompleted  = "completed"
	GateSuccess    = "success"
	GateFailure    = "failure"
	GateNeutral    = "neutral"
)

// GateView is what the merge gate shows for a head.
type GateView struct {
	Status     string // "" when the loop publishes no gate
	Conclusion string // set when Status is completed
}

// GateFor is rule MG1: the merge gate in progress while the loop runs;
// when it has ended, success when every engine is clean (end reason clean,
// or no-comments in Copilot-only mode; non-blocking items a judge approved
// do not block), failure for every other end (no-fixes, bound,
// no-progress, error, stopped, timeout, max-iterations), and neutral when
// the loop only reports (a fork PR, which it never fixes). A PR with no
// loop gets no gate. The gate never merges and never approves.
func GateFor(st state.State, reportOnly bool) GateView {
	switch st.Status {
	case state.StatusActive:
		return GateView{Status: GateInProgress}
	case state.StatusDone, state.StatusStopped:
	default:
		return GateView{}
	}
	switch {
	case reportOnly:
		return GateView{Status: GateCompleted, Conclusion: GateNeutral}
	case st.Status == state.StatusDone && (st.EndReason == string(EndClean) || st.EndReason == string(EndNoComments)):
		return GateView{Status: GateCompleted, Conclusion: GateSuccess}
	}
	return GateView{Status: GateCompleted, Conclusion: GateFailure}
}

// GateWrite says what the cycle must write for the gate: create a new
// check run (the head has none of ours: a push by anyone made the old one
// stale), update the one on this head, or nothing (the gate already shows
// this status and summary: at most one write per change).
type GateWrite int

// Gate writes.
const (
	GateNoWrite GateWrite = iota
	GateCreate
	GateUpdate
)

// GateDigest is the digest of a gate summary, saved to tell a changed
// summary from an unchanged one.
func GateDigest(summary string) string {
	h := sha256.Sum256([]byte(summary))
	return hex.EncodeToString(h[:8])
}

// PlanGate decides the gate write for head (MG1). The saved gate is for
// one head SHA; another head needs a new check run. On the same head a
// cycle writes only when the status or the conclusion changes, or when a
// completed gate's summary changes: an in-progress gate keeps the engine
// table it started with, since rewriting it on every wake would cost a
// request per wake.
func PlanGate(saved *state.Gate, head string, want GateView, digest string) GateWrite {
	if want.Status == "" || head == "" {
		return GateNoWrite
	}
	if saved != nil && saved.SHA == head && saved.Status == GateUnavailable {
		return GateNoWrite // no `checks: write`: not asked again until a new head
	}
	if saved == nil || saved.SHA != head || saved.ID == 0 {
		return GateCreate
	}
	if saved.Status != want.Status || saved.Conclusion != want.Conclusion {
		return GateUpdate
	}
	if want.Status == GateCompleted && saved.Digest != digest {
		return GateUpdate
	}
	return GateNoWrite
}

// SupersededGate is rule MG2: when the head moved, the gate saved for the
// old head, if still in progress, is concluded neutral ("superseded by
// <sha>") before the new head gets its own; ok is false when there is
// nothing to conclude (no gate, the same head, a gate already completed,
// or none written).
func SupersededGate(saved *state.Gate, head string) (GateView, bool) {
	if saved == nil || saved.ID == 0 || saved.SHA == "" || head == "" || saved.SHA == head || saved.Status != GateInProgress {
		return GateView{}, false
	}
	return GateView{Status: GateCompleted, Conclusion: GateNeutral}, true
}

// SupersededTitle is the title of a gate concluded by SupersededGate.
func SupersededTitle(head string) string { return "superseded by " + short(head) }

// GateUnavailable marks a saved gate whose check run could not be created
// on its head (no `checks: write`): the loop does not ask again until a
// new head.
const GateUnavailable = "unavailable"

// RecordGateUnavailable saves that the gate could not be written on head
// for want of permission, and whether this is the first time the loop
// learns it (then the set-up notice is shown, once).
func RecordGateUnavailable(st state.State, head string) (state.State, bool) {
	s := st.Clone()
	s.Gate = &state.Gate{SHA: head, Status: GateUnavailable}
	return RecordNotice(s, "gate-setup")
}

// RecordGate saves the gate written for head.
func RecordGate(st state.State, head string, id int64, v GateView, digest string) state.State {
	s := st.Clone()
	s.Gate = &state.Gate{SHA: head, ID: id, Status: v.Status, Conclusion: v.Conclusion, Digest: digest}
	return s
}
