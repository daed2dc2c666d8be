package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

const placeholder = "## Summary of Changes\n\nHello @dev, I'm Gemini Code Assist! I'm currently reviewing this pull request and will post my feedback shortly."

// unprovenView is an engine that completed and posted a text its adapter
// does not take as a finished review of the head.
func unprovenView(engine, sha string, text string) EngineView {
	v := done(engine, sha, 10)
	v.Proof, v.Unproven = nil, text
	return v
}

func TestRule_S8_CleanNeedsProofOfAFinishedReviewOfTheHead(t *testing.T) {
	t.Parallel()
	st := active(sha1, "gemini")
	v := unprovenView("gemini", sha1, placeholder)
	if ok, why := IsClean(st, v, sha1); ok || !strings.Contains(why, "UNPROVEN") || !strings.Contains(why, "currently reviewing") {
		t.Fatalf("IsClean = %v (%s); want UNPROVEN quoting the text", ok, why)
	}
	proofOfOther := done("gemini", sha1, 10)
	proofOfOther.Proof = &Proof{Kind: "code-review", SHA: sha2, ID: 10}
	if ok, why := IsClean(st, proofOfOther, sha1); ok || !strings.Contains(why, "is of "+short(sha2)) {
		t.Fatalf("a finished review of another commit proved the head: %v (%s)", ok, why)
	}
	noKind := done("gemini", sha1, 10)
	noKind.Proof = &Proof{SHA: sha1}
	if ok, _ := IsClean(st, noKind, sha1); ok {
		t.Fatal("a proof without a recognised kind is no proof")
	}
	// An engine without proof whose threads are open is still finding:
	// its findings are fixed, it is not waited on.
	withFinding := unprovenView("gemini", sha1, placeholder)
	withFinding.Findings = []Finding{{ID: "f-1", Engine: "gemini", CommentID: 1, ReviewID: 10, ReviewSHA: sha1, ThreadID: "T1"}}
	p, _ := Decide(st, obs(sha1, 0, withFinding), DefaultConfig())
	wantAction(t, p, ActionFix, "")
}

func TestRule_S8_UnprovenIsAwaitedWithinTheWaitingBoundThenHandedBackQuotingTheText(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "bugbot", "gemini")
	v := unprovenView("gemini", sha1, placeholder)
	clean := done("bugbot", sha1, 20)

	// Awaited like a running engine: no clean hand-back, a wait.
	p, st2 := Decide(st, obs(sha1, time.Minute, clean, v), cfg)
	wantAction(t, p, ActionWait, "")
	if r := report(t, p, "gemini"); r.Verdict != "" || !strings.Contains(r.Note, "UNPROVEN") || !strings.Contains(r.Note, "currently reviewing") {
		t.Fatalf("report %+v: want pending with the UNPROVEN note quoting the text", r)
	}
	if st2.EngineStates["gemini"].WaitSince.IsZero() {
		t.Fatal("the wait on the unproven engine was not recorded (its bound could never be reached)")
	}

	// The finished review arrives within the bound: clean.
	proven := done("gemini", sha1, 11)
	p3, _ := Decide(st2, obs(sha1, 5*time.Minute, clean, proven), cfg)
	wantAction(t, p3, ActionHandBack, EndClean)

	// It never arrives: past the T4 stall bound the engine is UNPROVEN and
	// the loop hands back naming it and quoting its text.
	lim := time.Duration(cfg.StallFactor) * cfg.Latency("gemini")
	p4, st4 := Decide(st2, obs(sha1, time.Minute+lim+time.Second, clean, v), cfg)
	wantAction(t, p4, ActionHandBack, EndBound)
	if !strings.Contains(p4.Why, "gemini") || !strings.Contains(p4.Why, "currently reviewing") {
		t.Fatalf("hand-back why %q does not name the engine and quote its text", p4.Why)
	}
	if r := report(t, p4, "gemini"); r.Verdict != VerdictUnproven {
		t.Fatalf("verdict %s, want UNPROVEN", r.Verdict)
	}
	if es := st4.EngineStates["gemini"]; es.Mark != state.MarkUnproven || es.ConsecutiveErrors != 0 {
		t.Fatalf("state %+v: want the UNPROVEN mark and no error counted (not an engine error)", es)
	}
	if g := GateFor(st4, false); g.Conclusion != GateFailure {
		t.Fatalf("gate %+v after an UNPROVEN hand-back, want failure", g)
	}
}

func TestRule_S8_UnprovenAtTheIdleBoundAndAtHandBackForAnotherReason(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.StallFactor = 1000 // only B3 can end the wait
	st := active(sha1, "gemini")
	v := unprovenView("gemini", sha1, "✅ Action performed")
	p, _ := Decide(st, obs(sha1, cfg.MaxIdle, v), cfg)
	wantAction(t, p, ActionHandBack, EndBound)
	if r := report(t, p, "gemini"); r.Verdict != VerdictUnproven || !strings.Contains(r.Note, "Action performed") {
		t.Fatalf("report %+v", r)
	}

	// B1 ends the loop while the engine is unproven: UNPROVEN, not
	// STILL_FINDING, quoting its text.
	st = active(sha1, "gemini")
	st.Commits = cfg.MaxCommits
	p, _ = Decide(st, obs(sha1, time.Minute, v), cfg)
	wantAction(t, p, ActionHandBack, EndBound)
	if r := report(t, p, "gemini"); r.Verdict != VerdictUnproven || !strings.Contains(r.Note, "Action performed") {
		t.Fatalf("report %+v", r)
	}
}

// T8 with S8: only a finished review of the head ends a quota cooldown
// early; an ack or a placeholder posted during it does not.
func TestRule_T8_AnUnprovenPostDoesNotEndTheCooldown(t *testing.T) {
	t.Parallel()
	st := active(sha1, "coderabbit")
	es := st.EngineStates["coderabbit"]
	es.QuotaUntil, es.QuotaNote = t0.Add(time.Hour), "Review rate limited"
	st.EngineStates["coderabbit"] = es
	ack := unprovenView("coderabbit", sha1, "✅ Action performed\n\nReview finished.")
	p, st2 := Decide(st, obs(sha1, 10*time.Minute, ack), DefaultConfig())
	if st2.EngineStates["coderabbit"].QuotaUntil.IsZero() || p.Action != ActionWait || !p.WakeAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("an ack ended the cooldown: plan %s (%s), quota until %v", p.Action, p.Why, st2.EngineStates["coderabbit"].QuotaUntil)
	}
	proven := done("coderabbit", sha1, 11)
	if _, st3 := Decide(st, obs(sha1, 10*time.Minute, proven), DefaultConfig()); !st3.EngineStates["coderabbit"].QuotaUntil.IsZero() {
		t.Fatal("a finished review of the head did not end the cooldown")
	}
}
