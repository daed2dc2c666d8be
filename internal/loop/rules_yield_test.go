package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// yieldState is an active loop on sha1 whose bugbot has one fresh finding
// on sha2 after an outside push.
func divFinding() Finding {
	return Finding{ID: "bugbot-11", CommentID: 11, ThreadID: "T11", Path: "calc/calc.go", Line: 15, Title: "Div panics on a zero divisor"}
}

func TestRule_HY1_HumanPushPausesTheFixingForYieldMinutes(t *testing.T) {
	cfg := DefaultConfig()
	st := active(sha1, "bugbot")
	o := obs(sha2, 0, done("bugbot", sha2, 1, divFinding()))
	o.HeadPusher = "alice"
	o.Pushes = readPushes(sha1, sha2, "alice")
	p, st2 := Decide(st, o, cfg)
	if p.Action != ActionWait || !strings.HasPrefix(p.Why, "HY1") || !p.WakeAt.Equal(t0.Add(30*time.Minute)) {
		t.Fatalf("plan = %s %v (%s), want a wait until the yield ends", p.Action, p.WakeAt, p.Why)
	}
	if st2.Yield == nil || !strings.Contains(st2.Yield.Reason, "a push by @alice") || !strings.Contains(strings.Join(p.Notices, "\n"), "yielding to a push by @alice") {
		t.Fatalf("yield %+v, notices %v", st2.Yield, p.Notices)
	}
	// Still yielding ten minutes later.
	p, st3 := Decide(st2, obs(sha2, 10*time.Minute, done("bugbot", sha2, 1, divFinding())), cfg)
	if p.Action != ActionWait || len(p.Triage) != 0 {
		t.Fatalf("at +10m: %s with triage %v", p.Action, triageIDs(p))
	}
	// Once yield-minutes are up the fixing resumes by itself.
	p, st4 := Decide(st3, obs(sha2, 31*time.Minute, done("bugbot", sha2, 1, divFinding())), cfg)
	wantAction(t, p, ActionFix, "")
	if st4.Yield != nil {
		t.Errorf("yield %+v survives its end", st4.Yield)
	}
}

func TestRule_HY1_BotPushOrOwnPushDoesNotYield(t *testing.T) {
	st := active(sha1, "bugbot")
	o := obs(sha2, 0, done("bugbot", sha2, 1, divFinding()))
	o.HeadPusher, o.HeadPusherBot = "renovate[bot]", true
	o.Pushes = readPushes(sha1, sha2, "renovate[bot]")
	if p, st2 := Decide(st, o, DefaultConfig()); p.Action != ActionFix || st2.Yield != nil {
		t.Errorf("bot push: %s, yield %+v", p.Action, st2.Yield)
	}
	own := active(sha1, "bugbot")
	own.LastPushSHA = sha2
	if p, st2 := Decide(own, obs(sha2, 0, done("bugbot", sha2, 1, divFinding())), DefaultConfig()); p.Action != ActionFix || st2.Yield != nil {
		t.Errorf("own push: %s, yield %+v", p.Action, st2.Yield)
	}
	// An outside push whose pusher is unknown is yielded to: when unsure, do not edit.
	if _, st2 := Decide(active(sha1, "bugbot"), obs(sha2, 0, done("bugbot", sha2, 1, divFinding())), DefaultConfig()); st2.Yield == nil {
		t.Error("an outside push by an unknown pusher was not yielded to")
	}
}

func TestRule_HY1_ChangesRequestedReviewByAPersonPausesTheFixing(t *testing.T) {
	st := active(sha1, "bugbot")
	o := obs(sha1, time.Minute, done("bugbot", sha1, 1, divFinding()))
	o.Humans = []HumanActivity{{Kind: HumanChangesRequested, ID: 50, Login: "carol", At: t0.Add(time.Minute)}}
	p, st2 := Decide(st, o, DefaultConfig())
	if p.Action != ActionWait || st2.Yield == nil || !strings.Contains(st2.Yield.Reason, "changes-requested review by @carol") || st2.HumanSeenID != 50 {
		t.Fatalf("plan %s (%s), state yield %+v seen %d", p.Action, p.Why, st2.Yield, st2.HumanSeenID)
	}
	// Seen once: after resume the same review does not pause again.
	st3, err := ApplyCommand(st2, Command{Kind: CommandResume, By: "carol", At: t0.Add(2 * time.Minute)})
	if err != nil || st3.Yield != nil {
		t.Fatalf("resume: %v, yield %+v", err, st3.Yield)
	}
	o.Now = t0.Add(3 * time.Minute)
	if p, _ := Decide(st3, o, DefaultConfig()); p.Action != ActionFix {
		t.Errorf("after resume: %s (%s), want the fix", p.Action, p.Why)
	}
	// A review from before the loop started is history, not work in progress.
	old := active(sha1, "bugbot")
	o.Humans = []HumanActivity{{Kind: HumanChangesRequested, ID: 40, Login: "carol", At: t0.Add(-time.Hour)}}
	if p, _ := Decide(old, o, DefaultConfig()); p.Action != ActionFix {
		t.Errorf("old review: %s (%s)", p.Action, p.Why)
	}
}

func TestRule_HY1_HumanReplyPausesThatFindingOnly(t *testing.T) {
	other := Finding{ID: "bugbot-12", CommentID: 12, ThreadID: "T12", Path: "calc/calc.go", Line: 28, Title: "Sub subtracts in the wrong order"}
	st := active(sha1, "bugbot")
	o := obs(sha1, time.Minute, done("bugbot", sha1, 1, divFinding(), other))
	o.Humans = []HumanActivity{{Kind: HumanReply, ID: 60, Login: "dave", At: t0.Add(time.Minute), ThreadID: "T11"}}
	p, st2 := Decide(st, o, DefaultConfig())
	wantAction(t, p, ActionFix, "")
	if ids := triageIDs(p); len(ids) != 1 || ids[0] != 12 {
		t.Fatalf("triage %v, want only the unpaused finding 12", ids)
	}
	if len(st2.Paused) != 1 || st2.Paused[0].FindingID != "bugbot-11" || !strings.Contains(strings.Join(p.Notices, "\n"), "finding bugbot-11 paused") {
		t.Fatalf("paused %+v notices %v", st2.Paused, p.Notices)
	}
	// Re-posted in a new thread on the same lines (ST1): still paused; with
	// nothing else to fix the loop waits for the pause to end, not hands back.
	st2.Triage = append(st2.Triage, state.TriageRow{FindingID: "bugbot-12", Engine: "bugbot", CommentID: 12, Outcome: OutcomeFixed})
	moved := divFinding()
	moved.ID, moved.CommentID, moved.ThreadID = "bugbot-21", 21, "T21"
	p, _ = Decide(st2, obs(sha1, 5*time.Minute, done("bugbot", sha1, 1, moved)), DefaultConfig())
	if p.Action != ActionWait || !p.WakeAt.Equal(t0.Add(31*time.Minute)) {
		t.Fatalf("re-posted: %s %v (%s), want a wait until the pause ends", p.Action, p.WakeAt, p.Why)
	}
	// Past the pause it is fixed.
	p, _ = Decide(st2, obs(sha1, 32*time.Minute, done("bugbot", sha1, 1, moved)), DefaultConfig())
	wantAction(t, p, ActionFix, "")
}

func TestRule_HY1_ResumeIsAWritingCommand(t *testing.T) {
	if !CommandWrites(string(CommandResume)) {
		t.Error("resume must need write permission (TB3)")
	}
	st := active(sha1, "bugbot")
	st.Yield = &state.Yield{Until: t0.Add(time.Hour), Reason: "a push by @alice"}
	st.Paused = []state.Pause{{FindingID: "bugbot-11", By: "dave", Until: t0.Add(time.Hour)}}
	got, err := ApplyCommand(st, Command{Kind: CommandResume, By: "alice", At: t0})
	if err != nil || got.Yield != nil || got.Paused != nil || got.Events[len(got.Events)-1].Reason != "resume" {
		t.Errorf("resume: err %v yield %+v paused %+v", err, got.Yield, got.Paused)
	}
}

// readPushes is the commits pushed since the last look as the shell reads
// them after an outside push: one plain commit by login (CV4, CV5, CV7).
func readPushes(base, head, login string) *PushHistory {
	return &PushHistory{Base: base, Head: head, Status: "ahead", Commits: []HeadCommit{{SHA: head, Parent: base, Message: "a change", AuthorLogin: login}}}
}
