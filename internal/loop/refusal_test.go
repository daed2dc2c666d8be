package loop

import (
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_B5_RefusedPushHandsBackInTheSameCycle(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	p, st := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1), f(2))), DefaultConfig())
	wantAction(t, p, ActionFix, "")
	st = RecordFixCycle(st, FixResult{Rows: []state.TriageRow{
		{FindingID: "f-1", Engine: "bugbot", CommentID: 1, Tier: 1, Outcome: OutcomeFixed, Key: "cat-1"},
		{FindingID: "f-2", Engine: "bugbot", CommentID: 2, Tier: 3, Outcome: OutcomeEscalated},
	}}, t0)
	st = RecordPendingPush(st, sha2)

	p, st = RecordRefusal(st, p, `B5: branch "feature" is protected`, t0)

	wantAction(t, p, ActionHandBack, EndBound)
	if st.Status != state.StatusDone || st.EndReason != string(EndBound) {
		t.Errorf("status %s/%s, want done/bound", st.Status, st.EndReason)
	}
	if got := st.Triage[0].Outcome; got != OutcomeRefused {
		t.Errorf("fixed row outcome %q, want %q", got, OutcomeRefused)
	}
	if got := st.Triage[1].Outcome; got != OutcomeEscalated {
		t.Errorf("escalated row outcome %q, want it unchanged", got)
	}
	if st.Totals.Fixed != 0 || st.EngineStates["bugbot"].Fixed != 0 {
		t.Errorf("a refused fix still counts as auto-fixed: totals %+v, engine %+v", st.Totals, st.EngineStates["bugbot"])
	}
	if st.PendingPushSHA != "" {
		t.Errorf("the refused commit %s is still the pending push", st.PendingPushSHA)
	}
	if r := report(t, p, "bugbot"); r.Verdict != VerdictStillFinding {
		t.Errorf("verdict %s, want STILL_FINDING", r.Verdict)
	}
	if n := len(st.Events); n == 0 || st.Events[n-1].Name != state.EventTerminate || st.Events[n-1].Reason != string(EndBound) {
		t.Errorf("last event %+v, want terminate/bound", st.Events[len(st.Events)-1])
	}
}

func TestRule_H9_RefusalKeepsEarlierCyclesFixedRows(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	st.Iteration = 2
	st.Totals.Fixed = 1
	st.EngineStates["bugbot"] = state.EngineState{Fixed: 1}
	st.Triage = []state.TriageRow{
		{FindingID: "old", Engine: "bugbot", CommentID: 5, Tier: 1, Outcome: OutcomeFixed, Cycle: 1},
		{FindingID: "new", Engine: "bugbot", CommentID: 6, Tier: 1, Outcome: OutcomeFixed, Cycle: 2},
	}
	st.Totals.Fixed = 2
	st.EngineStates["bugbot"] = state.EngineState{Fixed: 2}
	_, st = RecordRefusal(st, Plan{Action: ActionFix}, "B5: protected", t0)
	if st.Triage[0].Outcome != OutcomeFixed || st.Triage[1].Outcome != OutcomeRefused {
		t.Errorf("outcomes %s, %s: want fixed (cycle 1) and refused (this cycle)", st.Triage[0].Outcome, st.Triage[1].Outcome)
	}
	if st.Totals.Fixed != 1 || st.EngineStates["bugbot"].Fixed != 1 {
		t.Errorf("fixed counts %d/%d, want 1/1", st.Totals.Fixed, st.EngineStates["bugbot"].Fixed)
	}
}
