package loop

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_MG1_gateConclusionAtEveryHandBackKind(t *testing.T) {
	t.Parallel()
	done := func(r EndReason) state.State {
		st := state.New()
		st.Status, st.EndReason = state.StatusDone, string(r)
		return st
	}
	stopped := state.New()
	stopped.Status, stopped.EndReason = state.StatusStopped, string(EndStopped)
	active := state.New()
	active.Status = state.StatusActive
	for _, c := range []struct {
		name       string
		st         state.State
		reportOnly bool
		want       GateView
	}{
		{"no loop", state.New(), false, GateView{}},
		{"mid-loop", active, false, GateView{Status: GateInProgress}},
		{"mid-loop report-only", active, true, GateView{Status: GateInProgress}},
		{"clean", done(EndClean), false, GateView{GateCompleted, GateSuccess}},
		{"copilot-only no comments", done(EndNoComments), false, GateView{GateCompleted, GateSuccess}},
		{"no-fixes", done(EndNoFixes), false, GateView{GateCompleted, GateFailure}},
		{"bound", done(EndBound), false, GateView{GateCompleted, GateFailure}},
		{"no-progress", done(EndNoProgress), false, GateView{GateCompleted, GateFailure}},
		{"error", done(EndError), false, GateView{GateCompleted, GateFailure}},
		{"timeout", done(EndTimeout), false, GateView{GateCompleted, GateFailure}},
		{"max-iterations", done(EndMaxIterations), false, GateView{GateCompleted, GateFailure}},
		{"stopped", stopped, false, GateView{GateCompleted, GateFailure}},
		{"report-only clean", done(EndClean), true, GateView{GateCompleted, GateNeutral}},
		{"report-only no-fixes", done(EndNoFixes), true, GateView{GateCompleted, GateNeutral}},
	} {
		if got := GateFor(c.st, c.reportOnly); got != c.want {
			t.Errorf("%s: gate %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestRule_MG1_gateWritesOnlyOnChangeAndAnewPerHead(t *testing.T) {
	t.Parallel()
	run := GateView{Status: GateInProgress}
	fail := GateView{GateCompleted, GateFailure}
	saved := &state.Gate{SHA: "a", ID: 5, Status: GateInProgress, Digest: "x"}
	for _, c := range []struct {
		name   string
		saved  *state.Gate
		head   string
		want   GateView
		digest string
		write  GateWrite
	}{
		{"first cycle", nil, "a", run, "x", GateCreate},
		{"same status, same head, new table", saved, "a", run, "y", GateNoWrite},
		{"status changes", saved, "a", fail, "y", GateUpdate},
		{"a push made the old gate stale", saved, "b", run, "x", GateCreate},
		{"no loop", saved, "a", GateView{}, "x", GateNoWrite},
		{"completed, summary changed", &state.Gate{SHA: "a", ID: 5, Status: GateCompleted, Conclusion: GateFailure, Digest: "x"}, "a", fail, "y", GateUpdate},
		{"completed, unchanged", &state.Gate{SHA: "a", ID: 5, Status: GateCompleted, Conclusion: GateFailure, Digest: "x"}, "a", fail, "x", GateNoWrite},
	} {
		if got := PlanGate(c.saved, c.head, c.want, c.digest); got != c.write {
			t.Errorf("%s: write %v, want %v", c.name, got, c.write)
		}
	}
}

func TestRule_CL1_jobMinutesRoundUpPerJob(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]int{0: 1, time.Second: 1, time.Minute: 1, time.Minute + time.Millisecond: 2, 5*time.Minute + 30*time.Second: 6} {
		if got := JobMinutes(d); got != want {
			t.Errorf("JobMinutes(%v) = %d, want %d", d, got, want)
		}
	}
	st := LedgerCycle(state.New(), JobMinutes(90*time.Second), true, 10, 3)
	st = LedgerCycle(st, JobMinutes(10*time.Second), true, 5, 1)
	if l := st.Ledger; l.JobMinutes != 3 || l.Cycles != 2 || l.APIReads != 15 || l.APIWrites != 4 {
		t.Errorf("ledger %+v", *l)
	}
}

func TestRule_CL1_automaticReviewsOnlyOnTheLoopsOwnPushes(t *testing.T) {
	t.Parallel()
	st := state.New()
	views := []EngineView{{Engine: "bugbot", Installed: true, Signal: SignalDone}, {Engine: "copilot", Installed: true, Signal: SignalDone}}
	// The PR's own head: Bugbot's review of it is not the loop's doing.
	if got := LedgerAutomatic(st, views, "a"); got.Ledger != nil {
		t.Errorf("counted a review of a head the loop did not push: %+v", got.Ledger)
	}
	st.LastPushSHA = "b"
	st = LedgerRequested(st, []string{"copilot"}, "b")
	st = LedgerAutomatic(st, views, "b")
	st = LedgerAutomatic(st, views, "b") // the next wake sees the same review
	st = LedgerRequested(st, []string{"copilot"}, "b")
	l := st.Ledger
	if l.Automatic["bugbot"] != 1 || l.Automatic["copilot"] != 0 || l.Requested["copilot"] != 1 {
		t.Errorf("ledger %+v, want bugbot 1 automatic, copilot 1 requested", *l)
	}
}

func TestRule_MG2_theOldHeadsGateIsConcludedSuperseded(t *testing.T) {
	t.Parallel()
	running := &state.Gate{SHA: "aaaaaaaaaa", ID: 9, Status: GateInProgress}
	if v, ok := SupersededGate(running, "bbbbbbbbbb"); !ok || v != (GateView{GateCompleted, GateNeutral}) {
		t.Fatalf("a gate left in progress on the old head: %+v %v, want completed neutral", v, ok)
	}
	if SupersededTitle("bbbbbbbbbb") != "superseded by bbbbbbb" {
		t.Errorf("title %q", SupersededTitle("bbbbbbbbbb"))
	}
	for name, g := range map[string]*state.Gate{
		"no gate":       nil,
		"same head":     {SHA: "bbbbbbbbbb", ID: 9, Status: GateInProgress},
		"completed":     {SHA: "aaaaaaaaaa", ID: 9, Status: GateCompleted, Conclusion: GateFailure},
		"never written": {SHA: "aaaaaaaaaa", Status: "unavailable"},
	} {
		if _, ok := SupersededGate(g, "bbbbbbbbbb"); ok {
			t.Errorf("%s: concluded", name)
		}
	}
}
