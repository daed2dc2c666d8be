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

// TestRule_S10_AHumanActInTheLoopsFirstSecondCounts: the loop's start is
// its own time, with fractions; a person's review stamped by GitHub in
// that same second came after the start and must be seen.
func TestRule_S10_AHumanActInTheLoopsFirstSecondCounts(t *testing.T) {
	st := active(sha1, "bugbot")
	st.StartedAt = t0.Add(400 * time.Millisecond)
	o := obs(sha1, time.Minute, done("bugbot", sha1, 1, divFinding()))
	o.Humans = []HumanActivity{{Kind: HumanChangesRequested, ID: 50, Login: "carol", At: t0}}
	if p, st2 := Decide(st, o, DefaultConfig()); p.Action != ActionWait || st2.Yield == nil {
		t.Fatalf("a changes-requested review in the loop's first second: plan %s (%s), yield %+v; want the loop to yield", p.Action, p.Why, st2.Yield)
	}
	// One from the second before the start is history.
	o.Humans[0].At = t0.Add(-time.Second)
	if p, _ := Decide(st, o, DefaultConfig()); p.Action != ActionFix {
		t.Fatalf("a review from before the loop started: %s (%s), want the fix", p.Action, p.Why)
	}
}
