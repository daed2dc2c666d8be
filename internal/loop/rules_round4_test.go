package loop

import (
	"testing"
	"time"
)

// TestRule_S10_AQuotaAnswerInTheTriggersSecondIsSeen: GitHub stamps the
// engine's answer in whole seconds while the loop records its trigger on
// its own clock; a quota notice posted in the same second as the trigger
// answers that trigger and must start the cooldown, not be read as older
// than the trigger.
func TestRule_S10_AQuotaAnswerInTheTriggersSecondIsSeen(t *testing.T) {
	st := active(sha1, "bugbot")
	es := st.EngineStates["bugbot"]
	es.TriggeredAt = t0.Add(5*time.Minute + 700*time.Millisecond)
	st.EngineStates["bugbot"] = es
	notice := t0.Add(5 * time.Minute) // the same second, as GitHub stamps it

	p, st2 := Decide(st, obs(sha1, 6*time.Minute, quotaView(notice, 0)), DefaultConfig())
	if want := notice.Add(time.Hour); !st2.EngineStates["bugbot"].QuotaUntil.Equal(want) {
		t.Fatalf("quota until %v, want %v: the answer in the trigger's second was taken for an older one", st2.EngineStates["bugbot"].QuotaUntil, want)
	}
	if r := report(t, p, "bugbot"); r.Verdict != VerdictErrored || r.State != Done {
		t.Fatalf("bugbot = %+v, want DONE and ERRORED with reason quota", r)
	}

	// A notice a whole second before the trigger is older: superseded.
	_, st3 := Decide(st, obs(sha1, 6*time.Minute, quotaView(notice.Add(-time.Second), 0)), DefaultConfig())
	if !st3.EngineStates["bugbot"].QuotaUntil.IsZero() {
		t.Fatalf("a notice from the second before the trigger started a cooldown until %v", st3.EngineStates["bugbot"].QuotaUntil)
	}
}
