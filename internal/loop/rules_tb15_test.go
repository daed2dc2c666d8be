package loop

import (
	"strings"
	"testing"
	"time"
)

// TB15: a changes-requested review, a thread reply or a push by someone
// who is neither the PR's author nor a user with write permission changes
// nothing: the loop fixes on, says once that it ignored the act, and does
// not say it again on the next cycle.
func TestRule_TB15_AnUnentitledActIsReportedOnceAndIgnored(t *testing.T) {
	t.Parallel()
	for name, acts := range map[string][]HumanActivity{
		"a changes-requested review": {{Kind: HumanChangesRequested, ID: 50, Login: "stranger", At: t0.Add(time.Minute), Unentitled: true}},
		"a thread reply":             {{Kind: HumanReply, ID: 60, Login: "stranger", At: t0.Add(time.Minute), ThreadID: "T11", Unentitled: true}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := obs(sha1, time.Minute, done("bugbot", sha1, 1, divFinding()))
			o.Humans = acts
			p, st := Decide(active(sha1, "bugbot"), o, DefaultConfig())
			wantAction(t, p, ActionFix, "")
			if st.Yield != nil || len(st.Paused) != 0 {
				t.Fatalf("yield %+v, paused %+v", st.Yield, st.Paused)
			}
			notices := strings.Join(p.Notices, "\n")
			if !strings.Contains(notices, "ignored") || !strings.Contains(notices, "@stranger") || !strings.Contains(notices, "TB15") {
				t.Fatalf("notices %q, want the act reported", notices)
			}
			o.Now = t0.Add(2 * time.Minute)
			if p, _ := Decide(st, o, DefaultConfig()); strings.Contains(strings.Join(p.Notices, "\n"), "@stranger") {
				t.Errorf("reported again: %q", p.Notices)
			}
		})
	}
	o := obs(sha2, 0, done("bugbot", sha2, 1, divFinding()))
	o.HeadPusher, o.HeadPusherUnentitled = "stranger", true
	p, st := Decide(active(sha1, "bugbot"), o, DefaultConfig())
	if st.Yield != nil || !strings.Contains(strings.Join(p.Notices, "\n"), "ignored the push by @stranger") {
		t.Errorf("an unentitled push: yield %+v, notices %q", st.Yield, p.Notices)
	}
}

// TB15: GitHub's times are whole seconds. A changes-requested review in
// the loop's first second (the loop started at .4 s, the review says .0 s)
// is not from before the loop: the loop yields to it.
func TestRule_TB15_AnActInTheLoopsFirstSecondCounts(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	st.StartedAt = t0.Add(400 * time.Millisecond)
	o := obs(sha1, time.Minute, done("bugbot", sha1, 1, divFinding()))
	o.Humans = []HumanActivity{{Kind: HumanChangesRequested, ID: 50, Login: "carol", At: t0}}
	p, st2 := Decide(st, o, DefaultConfig())
	if p.Action != ActionWait || st2.Yield == nil {
		t.Fatalf("plan %s (%s), yield %+v: the review in the loop's first second was lost", p.Action, p.Why, st2.Yield)
	}
}
