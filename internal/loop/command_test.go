package loop

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// TestRule_TB3_ACommandChangesTheStateOnlyWhenItMayAndIsUnderstood: a
// command its sender may not give, status and resolve-stale leave the
// state as it is; one not understood fails with what is understood; the
// others are applied, and a start naming engines sets them, unless they
// are no known engines: then it fails and changes nothing (H8).
func TestRule_TB3_ACommandChangesTheStateOnlyWhenItMayAndIsUnderstood(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stopped := state.New()
	stopped.Status, stopped.EndReason = state.StatusStopped, string(EndStopped)
	stopped.Engines = []string{"copilot"}
	start := Command{Kind: CommandStart, By: "maint", At: at}
	for _, tc := range []struct {
		name       string
		req        CommandRequest
		wantStatus state.Status
		wantFailed string
	}{
		{"denied", CommandRequest{Word: "start", Denied: "`start` by @x refused", Command: start}, state.StatusStopped, ""},
		{"status", CommandRequest{Word: CommandStatus}, state.StatusStopped, ""},
		{"resolve-stale", CommandRequest{Word: CommandResolveStale}, state.StatusStopped, ""},
		{"unknown", CommandRequest{Word: CommandUnknown, Unknown: "`frobnicate` is no command; known: start, stop"}, state.StatusStopped, "`frobnicate` is no command; known: start, stop"},
		{"approve without id", CommandRequest{Word: "approve", Command: Command{Kind: CommandApprove, By: "maint", At: at}}, state.StatusStopped, "approve: a finding id is required"},
		{"start", CommandRequest{Word: "start", Command: start}, state.StatusActive, ""},
		{"start with unknown engines", CommandRequest{Word: "start", Command: start, EnginesErr: errors.New(`unknown engine "nosuch"`)}, state.StatusStopped, `start: unknown engine "nosuch"`},
	} {
		st, failed := CommandChange(stopped, tc.req)
		if st.Status != tc.wantStatus || failed != tc.wantFailed {
			t.Errorf("%s: status %q, failed %q; want %q, %q", tc.name, st.Status, failed, tc.wantStatus, tc.wantFailed)
		}
	}
	st, failed := CommandChange(stopped, CommandRequest{Word: "start", Command: start, Engines: []string{"bugbot", "claude"}})
	if failed != "" || !slices.Equal(st.Engines, []string{"bugbot", "claude"}) {
		t.Errorf("start naming engines: engines %q, failed %q", st.Engines, failed)
	}
	if !slices.Equal(stopped.Engines, []string{"copilot"}) {
		t.Errorf("CommandChange changed the state it was given: %q", stopped.Engines)
	}
}
