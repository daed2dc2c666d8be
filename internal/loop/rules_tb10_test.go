package loop

import (
	"strings"
	"testing"
)

// TB10: the publish job runs no judge; the verdicts it has are the prepare
// job's word, written where repository code ran. A verdict that would make
// an engine clean is not proof there (S8): it can cost a hand-back, never
// a green gate. A BLOCKING verdict is kept: it can only hold the loop.
func TestRule_TB10_APrepareJobsCleanJudgeVerdictIsNotProof(t *testing.T) {
	t.Parallel()
	prose := done("claude", sha1, 10)
	prose.Prose, prose.VerdictSetProven = true, true
	for _, v := range []JudgeVerdict{JudgeClean, JudgeNonBlocking} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			// Control: the same verdict from a judge of this job is clean.
			o := obs(sha1, 0, prose)
			o.Judge = map[string]JudgeResult{"claude": {Verdict: v}}
			if p, _ := Decide(active(sha1, "claude"), o, DefaultConfig()); p.EndReason != EndClean {
				t.Fatalf("control: a %s verdict of this job's judge ends %q (%s), want clean", v, p.EndReason, p.Why)
			}
			o.JudgeUntrusted = true
			p, st := Decide(active(sha1, "claude"), o, DefaultConfig())
			if p.EndReason == EndClean {
				t.Fatalf("the prepare job's %s verdict ended the loop clean (TB10)", v)
			}
			if got := st.EngineStates["claude"].Judge; got == nil || got.Verdict != "" || !strings.Contains(got.Reason, "TB10") {
				t.Errorf("cached judge %+v, want no verdict with a reason naming TB10", got)
			}
			if r := report(t, p, "claude"); r.Verdict == VerdictClean || !strings.Contains(r.Note, "TB10") {
				t.Errorf("report %+v, want not clean, naming TB10", r)
			}
		})
	}
	t.Run("BLOCKING is kept", func(t *testing.T) {
		t.Parallel()
		o := obs(sha1, 0, prose)
		o.Judge = map[string]JudgeResult{"claude": {Verdict: JudgeBlocking, Reason: "a real problem"}}
		o.JudgeUntrusted = true
		_, st := Decide(active(sha1, "claude"), o, DefaultConfig())
		if got := st.EngineStates["claude"].Judge; got == nil || got.Verdict != string(JudgeBlocking) {
			t.Errorf("cached judge %+v, want BLOCKING kept", got)
		}
	})
}
