package loop

// These tests hold what the loop does with what it cannot prove or read:
// an UNPROVEN engine handed back at once and answered by a maintainer's
// accept (S11), a paused engine asked for one review (ST6), pushes that
// cannot be read (CV7).

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// signalled is an engine with a completion signal of its own (S11) whose
// signal is in for the head while nothing it posted proves the review.
func signalled(engine, sha, text string) EngineView {
	v := unprovenView(engine, sha, text)
	v.CompletionSignal = true
	return v
}

func TestRule_S11_UnprovenWithItsSignalInHandsBackAtOnceQuotingTheText(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "bugbot", "coderabbit")
	ack := signalled("coderabbit", sha1, "⚠️ Action not completed\n\nAlready reviewed the last commit")
	clean := done("bugbot", sha1, 20)
	// One minute after the trigger: well inside the T4 stall bound.
	p, st2 := Decide(st, obs(sha1, time.Minute, clean, ack), cfg)
	wantAction(t, p, ActionHandBack, EndBound)
	r := report(t, p, "coderabbit")
	if r.Verdict != VerdictUnproven || !strings.Contains(r.Note, "Already reviewed the last commit") {
		t.Fatalf("report %+v: want UNPROVEN quoting the text", r)
	}
	if !strings.Contains(r.Note, "@review-loop accept coderabbit") {
		t.Fatalf("note %q does not offer the accept command", r.Note)
	}
	if es := st2.EngineStates["coderabbit"]; es.Mark != state.MarkUnproven || es.MarkSHA != sha1 || es.ConsecutiveErrors != 0 {
		t.Fatalf("state %+v: want the UNPROVEN mark on the head and no error counted", es)
	}
}

func TestRule_S11_WithoutASignalUnprovenHandsBackOnceItsLatencyHasPassed(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "gemini")
	v := unprovenView("gemini", sha1, placeholder) // Gemini: no completion signal
	lat := cfg.Latency("gemini")
	p, st2 := Decide(st, obs(sha1, lat/2, v), cfg)
	wantAction(t, p, ActionWait, "")
	// Past one normal latency (not StallFactor of them): handed back.
	p, _ = Decide(st2, obs(sha1, lat+time.Second, v), cfg)
	wantAction(t, p, ActionHandBack, EndBound)
	if r := report(t, p, "gemini"); r.Verdict != VerdictUnproven || !strings.Contains(r.Note, "currently reviewing") ||
		!strings.Contains(r.Note, "@review-loop accept gemini") {
		t.Fatalf("report %+v: want UNPROVEN quoting the text and offering accept", r)
	}
}

func TestRule_S11_AMaintainersAcceptIsProofForThatHeadAndTheLoopGoesOn(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "bugbot", "coderabbit")
	ack := signalled("coderabbit", sha1, "⚠️ Action not completed")
	clean := done("bugbot", sha1, 20)
	_, handed := Decide(st, obs(sha1, time.Minute, clean, ack), cfg)
	if handed.Status != state.StatusDone {
		t.Fatalf("status %s, want done", handed.Status)
	}
	accepted, err := ApplyCommand(handed, Command{Kind: CommandAccept, Engine: "coderabbit", Head: sha1, By: "alice", At: t0.Add(2 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if accepted.Status != state.StatusActive || len(accepted.Accepted) != 1 || accepted.Accepted[0].By != "alice" || accepted.Accepted[0].SHA != sha1 {
		t.Fatalf("state after accept: status %s, accepted %+v; want the loop going on with alice's word for %s", accepted.Status, accepted.Accepted, short(sha1))
	}
	p, st3 := Decide(accepted, obs(sha1, 3*time.Minute, clean, ack), cfg)
	wantAction(t, p, ActionHandBack, EndClean)
	r := report(t, p, "coderabbit")
	if r.Verdict != VerdictClean || !strings.Contains(r.Note, "accepted by @alice") {
		t.Fatalf("report %+v: want CLEAN naming who accepted", r)
	}
	if g := GateFor(st3, false); g.Conclusion != GateSuccess {
		t.Fatalf("gate %+v, want success on the maintainer's word", g)
	}
	if ok, why := IsClean(accepted, ack, sha1); !ok {
		t.Fatalf("status disagrees with the loop: IsClean = false (%s)", why)
	}

	// A new head needs new proof: the word was for sha1 only.
	ack2 := signalled("coderabbit", sha2, "⚠️ Action not completed")
	if ok, _ := IsClean(st3, ack2, sha2); ok {
		t.Fatal("an accept for one head proved another")
	}
	st4 := st3.Clone()
	st4.Status = state.StatusActive
	p, _ = Decide(st4, obs(sha2, 10*time.Minute, done("bugbot", sha2, 21), ack2), cfg)
	if r := report(t, p, "coderabbit"); r.Verdict == VerdictClean {
		t.Fatalf("report %+v: an accept for %s made %s clean", r, short(sha1), short(sha2))
	}
}

func TestRule_S11_AcceptNeedsAnEngineOfTheLoopAndAHead(t *testing.T) {
	t.Parallel()
	st := active(sha1, "coderabbit")
	for _, c := range []Command{
		{Kind: CommandAccept, Engine: "nosuch", Head: sha1, By: "alice"},
		{Kind: CommandAccept, Engine: "coderabbit", By: "alice"},
		{Kind: CommandAccept, Engine: "", Head: sha1, By: "alice"},
	} {
		if next, err := ApplyCommand(st, c); err == nil || len(next.Accepted) != 0 {
			t.Fatalf("ApplyCommand(%+v) = %v, accepted %+v; want an error and nothing recorded", c, err, next.Accepted)
		}
	}
}

func TestRule_S11_AcceptWritesAndNeedsWritePermission(t *testing.T) {
	t.Parallel()
	if !CommandWrites("accept") {
		t.Fatal("accept is not a writing command (TB3)")
	}
	if why := CommandRefusal("accept", "mallory", "o/r", "read", "", nil); !strings.Contains(why, "refused") {
		t.Fatalf("a reader's accept was not refused: %q", why)
	}
	st := active(sha1, "coderabbit")
	p := PlanCommand("accept", st, CommandRefusal("accept", "mallory", "o/r", "read", "", nil), "", "mallory", "@review-loop")
	if p.End != CommandDenied {
		t.Fatalf("a stranger's accept plan ends %s, want denied", p.End)
	}
	if next, _ := CommandChange(st, CommandRequest{Word: "accept", Denied: "refused", Command: Command{Kind: CommandAccept, Engine: "coderabbit", Head: sha1, By: "mallory"}}); len(next.Accepted) != 0 {
		t.Fatalf("a refused accept was recorded: %+v", next.Accepted)
	}
}

// S11 keeps S8: an engine without a signal of its own, and an engine with
// one whose signal is not in yet, are not handed back at once.
func TestRule_S11_ARunningSignalIsStillAwaited(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	v := running("bugbot")
	v.CompletionSignal = true
	p, _ := Decide(st, obs(sha1, time.Minute, v), DefaultConfig())
	wantAction(t, p, ActionWait, "")
}

const pausedNote = "coderabbit paused its reviews: «Reviews paused»; review-loop asks for one review of the head with `@coderabbitai review`, never `@coderabbitai resume` (ST6)"

// ST6: a paused engine is PAUSED, not pending. With a way to ask it, the
// loop asks for one review of the head (its trigger) and says so; without
// one it is not waited on until a stall bound: it is handed back PAUSED.
func TestRule_ST6_APausedEngineIsAskedForOneReviewNotAwaited(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "coderabbit")
	st.EngineStates["coderabbit"] = state.EngineState{FirstReviewSeen: true}
	v := none("coderabbit")
	v.Paused = pausedNote
	p, _ := Decide(st, obs(sha1, time.Minute, v), cfg)
	wantAction(t, p, ActionTrigger, "")
	if r := report(t, p, "coderabbit"); !strings.Contains(r.Note, "PAUSED") || !strings.Contains(r.Note, "@coderabbitai review") {
		t.Fatalf("report %+v: the status comment does not say it is paused and asked for one review", r)
	}

	// No trigger token: it cannot be asked, and a paused engine reviews
	// no push by itself: handed back at once, PAUSED.
	v.TriggerAvailable = false
	p, st2 := Decide(st, obs(sha1, time.Minute, v), cfg)
	if p.Action != ActionHandBack {
		t.Fatalf("plan %s (%s): a paused engine that cannot be asked is waited on", p.Action, p.Why)
	}
	if r := report(t, p, "coderabbit"); r.Verdict != VerdictPaused || !strings.Contains(r.Note, "PAUSED") {
		t.Fatalf("report %+v: want PAUSED", r)
	}
	if g := GateFor(st2, false); g.Conclusion != GateFailure {
		t.Fatalf("gate %+v, want failure", g)
	}
}

// CV7: the commits pushed since the loop's last look could not be read (a
// failed compare): the loop does not guess that no one reverted its fix
// or that no engine fixer pushed. It makes no fix that cycle, says why,
// and reads them again on the next wake; once they are read it fixes.
func TestRule_CV7_UnreadablePushesMeanNoFixThisCycle(t *testing.T) {
	st := afterFix(t)
	cfg := DefaultConfig()
	cfg.YieldFor = 0 // HY1 apart
	o := obs(sha3, 10*time.Minute, done("bugbot", sha3, 20, elsewhere))
	o.HeadPusher = "alice"
	o.Pushes = &PushHistory{Base: sha2, Head: sha3, Unread: "compare 2222222...3333333: 502 Bad Gateway"}
	p, got := Decide(st, o, cfg)
	if p.Action == ActionFix {
		t.Fatalf("plan %s (%s): fixed without reading the pushes", p.Action, p.Why)
	}
	if !strings.Contains(p.Why, "CV7") || !strings.Contains(p.Why, "502 Bad Gateway") {
		t.Fatalf("why %q does not say why no fix was made", p.Why)
	}
	if !slices.ContainsFunc(p.Notices, func(n string) bool { return strings.Contains(n, "CV7") }) {
		t.Fatalf("notices %q do not say it on the status comment", p.Notices)
	}
	// The next wake reads them again, from the same base.
	if base := PushesSince(got, sha3); base != sha2 {
		t.Fatalf("PushesSince after an unread push = %q, want %s (read again)", base, short(sha2))
	}
	// Read then, a plain push: the fix goes ahead.
	o.Now = o.Now.Add(time.Minute)
	o.Pushes = &PushHistory{Base: sha2, Head: sha3, Status: "ahead", Commits: []HeadCommit{{SHA: sha3, Message: "Rework Max", AuthorLogin: "alice"}}}
	p, got = Decide(got, o, cfg)
	wantAction(t, p, ActionFix, "")
	if got.UnreadPushes != nil || PushesSince(got, sha3) != "" {
		t.Fatalf("read pushes still marked unread: %+v", got.UnreadPushes)
	}
	// Not read at all after an outside push is not read either.
	o = obs(sha3, 10*time.Minute, done("bugbot", sha3, 20, elsewhere))
	if p, _ := Decide(afterFix(t), o, cfg); p.Action == ActionFix {
		t.Fatalf("plan %s (%s): fixed after an outside push whose commits were never read", p.Action, p.Why)
	}
}

// S11 with S7: a completed signal with nothing of the head at all (Bugbot
// neutral, no review) is not proven either; the hand-back offers accept,
// and a maintainer's accept is its proof for that head.
func TestRule_S11_AcceptAnswersACompletedRunWithNoReviewOfTheHead(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "bugbot")
	v := EngineView{Engine: "bugbot", Installed: true, TriggerAvailable: true, CompletionSignal: true, Signal: SignalDone,
		Material: MaterialUnproven, MaterialNote: "check run \"Cursor Bugbot\" concluded neutral with no Bugbot review of the head"}
	p, handed := Decide(st, obs(sha1, time.Minute, v), cfg)
	if p.Action != ActionHandBack {
		t.Fatalf("plan %s (%s), want a hand-back", p.Action, p.Why)
	}
	if r := report(t, p, "bugbot"); !strings.Contains(r.Note, "@review-loop accept bugbot") {
		t.Fatalf("report %+v does not offer accept", r)
	}
	accepted, err := ApplyCommand(handed, Command{Kind: CommandAccept, Engine: "bugbot", Head: sha1, By: "alice", At: t0.Add(2 * time.Minute)})
	if err != nil || accepted.Status != state.StatusActive {
		t.Fatalf("accept: %v, status %s; want the loop going on", err, accepted.Status)
	}
	p, _ = Decide(accepted, obs(sha1, 3*time.Minute, v), cfg)
	wantAction(t, p, ActionHandBack, EndClean)
	if r := report(t, p, "bugbot"); r.Verdict != VerdictClean || !strings.Contains(r.Note, "accepted by @alice") {
		t.Fatalf("report %+v", r)
	}
	// A real error is no question of proof: accept does not make it clean.
	errored := v
	errored.Material, errored.MaterialNote = MaterialErrored, "check run concluded failure"
	_, h2 := Decide(active(sha1, "bugbot"), obs(sha1, time.Minute, errored), cfg)
	a2, _ := ApplyCommand(h2, Command{Kind: CommandAccept, Engine: "bugbot", Head: sha1, By: "alice", At: t0.Add(2 * time.Minute)})
	if p, _ := Decide(a2, obs(sha1, 3*time.Minute, errored), cfg); p.EndReason == EndClean {
		t.Fatal("accept made an errored engine clean")
	}
}
