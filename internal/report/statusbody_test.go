package report

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// TestRule_C2_AnIdleWakeSaysWhatTheCommentAlreadySays: the body carries
// the state and the run's claim; a later run with the same state and
// report says the same, whatever its link, clock and last cycle's plan;
// any change to the state does not.
func TestRule_C2_AnIdleWakeSaysWhatTheCommentAlreadySays(t *testing.T) {
	t.Parallel()
	in := midLoop()
	in.RunURL, in.Now = "https://github.com/o/r/actions/runs/1", at(50)
	in.State.LastCycle = []string{"trigger copilot (W2)"}
	body, err := StatusBody(in, "1-7-100")
	if err != nil {
		t.Fatal(err)
	}
	st, found, err := state.Decode(body)
	if !found || err != nil || st.Iteration != in.State.Iteration || len(st.LastCycle) != 1 {
		t.Fatalf("decoded state %+v, %v", st, err)
	}
	if !strings.HasPrefix(body, StatusComment(in)) {
		t.Errorf("body does not open with the status comment:\n%s", body)
	}
	later := in
	later.RunURL, later.Now = "https://github.com/o/r/actions/runs/2", at(90)
	later.State = in.State.Clone()
	later.State.LastCycle = nil
	if !SaysAlready(body, later) {
		t.Error("a wake with the same state and report does not say the same")
	}
	changed := later
	changed.State = later.State.Clone()
	changed.State.Commits++
	if SaysAlready(body, changed) {
		t.Error("a changed state says the same")
	}
	if SaysAlready(strings.ReplaceAll(body, contentMarker, "<!-- x "), later) {
		t.Error("a body without the content hash says the same")
	}
}

// TestRule_CC_TheClaimIsTheLastMarkersToken: the claim read back is the
// writer's; a claim planted in the visible text before ours does not
// count, one written after ours (another run's write) does.
func TestRule_CC_TheClaimIsTheLastMarkersToken(t *testing.T) {
	t.Parallel()
	in := midLoop()
	in.Notices = []string{ClaimMarker + "planted -->"}
	in.Now = time.Time{}
	body, err := StatusBody(in, "42-7-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := ClaimOf(body); got != "42-7-1" {
		t.Errorf("ClaimOf = %q, want 42-7-1", got)
	}
	other := body[:strings.LastIndex(body, ClaimMarker)] + ClaimMarker + "other-run -->"
	if got := ClaimOf(other); got != "other-run" {
		t.Errorf("ClaimOf after another run's claim = %q", got)
	}
	if got := ClaimOf("no marker"); got != "" {
		t.Errorf("ClaimOf without a marker = %q", got)
	}
}
