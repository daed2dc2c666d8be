package loop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// fixedDiv is the finding the loop's round-1 fix commit (sha2) fixed: it
// rewrote lines 12–15 of calc.go.
var fixedDiv = Finding{ID: "bugbot-1", Engine: "bugbot", CommentID: 1, Path: "calc.go", Line: 12,
	Title: "Div panics on a zero divisor", Category: "division"}

// afterFix is an active loop whose round-1 fix commit sha2 (made on sha1,
// fixing fixedDiv, writing calc.go lines 12–15) was pushed and is the head.
func afterFix(t *testing.T) state.State {
	t.Helper()
	st := active(sha1, "bugbot")
	st.Iteration = 1
	st = RecordFixCommit(st, sha2, sha1, []state.ChangedFile{{Path: "calc.go", Ranges: []state.LineRange{{Start: 12, End: 15}}}}, []Finding{fixedDiv}, t0.Add(time.Minute))
	st = RecordPendingPush(st, sha2)
	st = RecordPush(st, sha2)
	if !st.FixCommits[0].Pushed {
		t.Fatal("RecordPush did not mark the fix commit pushed")
	}
	st.LastObservedSHA = sha2
	es := st.EngineStates["bugbot"]
	es.TriggeredSHA = sha2
	st.EngineStates["bugbot"] = es
	return st
}

var (
	// errIgnored is raised on line 14, which the fix wrote.
	errIgnored = Finding{ID: "bugbot-2", CommentID: 2, Path: "calc.go", Line: 14, Title: "Returned error is ignored by callers", Category: "error-handling"}
	// elsewhere is on lines the fix did not touch.
	elsewhere = Finding{ID: "bugbot-3", CommentID: 3, Path: "calc.go", Line: 30, Title: "Max returns the smaller value", Category: "logic"}
)

func TestRule_CV1_FindingOnTheLoopsOwnFixIsMarkedFixInduced(t *testing.T) {
	st := afterFix(t)
	cfg := DefaultConfig()
	cfg.DivergenceStop = false
	p, st := Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20, errIgnored, elsewhere)), cfg)
	wantAction(t, p, ActionFix, "")
	if len(st.Induced) != 1 {
		t.Fatalf("induced = %+v, want bugbot-2 only", st.Induced)
	}
	in := st.Induced[0]
	if in.FindingID != "bugbot-2" || in.Commit != sha2 || in.Round != 1 || !slices.Equal(in.Fixed, []string{"bugbot-1"}) || in.Same {
		t.Fatalf("induced = %+v, want bugbot-2 linked to fix %s and to bugbot-1", in, sha2)
	}
	want := "fix-induced: round 1's fix 2222222 (fixed 1) is followed by 1 new finding(s) on its own lines: bugbot-2 (CV1)"
	if !slices.Contains(p.Notices, want) {
		t.Fatalf("notices = %q, want %q", p.Notices, want)
	}
	// Counted once however often it is seen.
	_, st2 := Decide(st, obs(sha2, 11*time.Minute, done("bugbot", sha2, 20, errIgnored, elsewhere)), cfg)
	if len(st2.Induced) != 1 {
		t.Fatalf("induced twice: %+v", st2.Induced)
	}
}

func TestRule_CV1_OnlyThisLoopsPushedCommitsOnTheirOwnLines(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DivergenceStop = false
	// Not pushed: the write-ahead commit never landed.
	st := active(sha1, "bugbot")
	st.Iteration = 1
	st = RecordFixCommit(st, sha2, sha1, []state.ChangedFile{{Path: "calc.go", Ranges: []state.LineRange{{Start: 12, End: 15}}}}, []Finding{fixedDiv}, t0)
	st.LastObservedSHA, st.LastPushSHA = sha2, sha2
	_, got := Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20, errIgnored)), cfg)
	if len(got.Induced) != 0 {
		t.Fatalf("a commit never pushed induced %+v", got.Induced)
	}
	// A review of another commit is read against that commit's lines, not the fix's.
	st = afterFix(t)
	old := errIgnored
	old.ReviewSHA = sha1
	_, got = Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20, old)), cfg)
	if len(got.Induced) != 0 {
		t.Fatalf("a finding on the parent's lines was marked induced: %+v", got.Induced)
	}
	// A commit of an earlier loop does not count.
	st = afterFix(t)
	st.StartedAt = t0.Add(5 * time.Minute)
	_, got = Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20, errIgnored)), cfg)
	if len(got.Induced) != 0 {
		t.Fatalf("an earlier loop's fix induced %+v", got.Induced)
	}
}

func TestRule_CV2_AsManyNewFindingsOnTheFixAsItFixedHandsBackDiverging(t *testing.T) {
	st := afterFix(t)
	p, st := Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20, errIgnored, elsewhere)), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndDiverging)
	if !strings.Contains(p.Why, "bugbot-1 → fix 2222222 → bugbot-2") || !strings.Contains(p.Why, "CV2") {
		t.Fatalf("why = %q, want the chain bugbot-1 → fix 2222222 → bugbot-2", p.Why)
	}
	if st.Status != state.StatusDone || st.EndReason != "diverging" {
		t.Fatalf("state = %s/%s", st.Status, st.EndReason)
	}
	if !slices.Equal(triageIDs(p), []int64{2, 3}) {
		t.Fatalf("listed = %v, want both findings listed for a human", triageIDs(p))
	}
}

func TestRule_CV2_FewerNewFindingsThanFixedGoesOn(t *testing.T) {
	st := active(sha1, "bugbot")
	st.Iteration = 1
	other := Finding{ID: "bugbot-9", Engine: "bugbot", CommentID: 9, Path: "calc.go", Line: 40, Title: "Sub has its operands swapped"}
	st = RecordFixCommit(st, sha2, sha1, []state.ChangedFile{{Path: "calc.go", Ranges: []state.LineRange{{Start: 12, End: 15}, {Start: 40, End: 40}}}},
		[]Finding{fixedDiv, other}, t0.Add(time.Minute))
	st = RecordPush(st, sha2)
	st.LastObservedSHA = sha2
	p, _ := Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20, errIgnored)), DefaultConfig())
	wantAction(t, p, ActionFix, "")
}

func TestRule_CV2_SameDefectBackOnTheFixedLinesHandsBackDiverging(t *testing.T) {
	// Copilot flags, on the fix's own lines, the defect Bugbot's finding
	// named and the loop fixed; with two findings fixed the count alone
	// would not stop.
	st := active(sha1, "bugbot", "copilot")
	st.Iteration = 1
	other := Finding{ID: "bugbot-9", Engine: "bugbot", CommentID: 9, Path: "b.go", Line: 4, Title: "Sub has its operands swapped"}
	st = RecordFixCommit(st, sha2, sha1, []state.ChangedFile{{Path: "calc.go", Ranges: []state.LineRange{{Start: 12, End: 15}}}, {Path: "b.go", Ranges: []state.LineRange{{Start: 4, End: 4}}}},
		[]Finding{fixedDiv, other}, t0.Add(time.Minute))
	st = RecordPush(st, sha2)
	st.LastObservedSHA = sha2
	back := Finding{ID: "copilot-7", CommentID: 7, Path: "calc.go", Line: 13, Title: "Div panics on a zero divisor", Category: "division"}
	p, st2 := Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20), done("copilot", sha2, 21, back)), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndDiverging)
	if !strings.Contains(p.Why, "same defect as bugbot-1") || !strings.Contains(p.Why, "bugbot-1 → fix 2222222 → copilot-7") {
		t.Fatalf("why = %q", p.Why)
	}
	if len(st2.Induced) != 1 || !st2.Induced[0].Same {
		t.Fatalf("induced = %+v, want copilot-7 marked the same defect", st2.Induced)
	}
	// Off by config: marked, and fixed again.
	cfg := DefaultConfig()
	cfg.DivergenceStop = false
	p, _ = Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20), done("copilot", sha2, 21, back)), cfg)
	wantAction(t, p, ActionFix, "")
}

func TestRule_CV3_NitpicksAndProseAreFixedForAtMostNRounds(t *testing.T) {
	nit := Finding{ID: "coderabbit-5", CommentID: 5, Path: "calc.go", Line: 3, Title: "Prefer a named constant", Category: "🧹 Nitpick"}
	if !IsNitpick(nit) || IsNitpick(errIgnored) {
		t.Fatal("IsNitpick misreads the category")
	}
	st := active(sha1, "coderabbit")
	st.ProseRounds = 1
	p, got := Decide(st, obs(sha1, 10*time.Minute, done("coderabbit", sha1, 20, nit)), DefaultConfig())
	wantAction(t, p, ActionFix, "")
	if got.ProseRounds != 2 {
		t.Fatalf("prose rounds = %d, want 2 after a second round acting on a nitpick", got.ProseRounds)
	}
	st.ProseRounds = 2
	p, got = Decide(st, obs(sha1, 10*time.Minute, done("coderabbit", sha1, 20, nit)), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndNoFixes)
	if len(got.Held) != 1 || got.Held[0].FindingID != "coderabbit-5" || got.Held[0].Rule != "CV3" {
		t.Fatalf("held = %+v, want the nitpick listed for a human", got.Held)
	}
	if !slices.ContainsFunc(p.Notices, func(n string) bool {
		return strings.HasPrefix(n, "for a human: coderabbit-5") && strings.HasSuffix(n, "(CV3)")
	}) {
		t.Fatalf("notices = %q", p.Notices)
	}
	// A cooled nitpick shows no lack of progress (W2): it is listed, not fixed.
	st.NoProgress = map[string]map[string]int{"coderabbit": {"🧹 Nitpick": 1}}
	p, _ = Decide(st, obs(sha1, 10*time.Minute, done("coderabbit", sha1, 20, nit)), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndNoFixes)
	// A prose-only engine's findings cool down the same way; others do not.
	prose := done("claude", sha1, 30, Finding{ID: "claude-1", CommentID: 31, Path: "calc.go", Line: 8, Title: "Consider documenting Div"})
	prose.Prose = true
	st = active(sha1, "bugbot", "claude")
	st.ProseRounds = 2
	st.EngineStates["claude"] = state.EngineState{TriggeredSHA: sha1, FirstReviewSeen: true,
		Judge: &state.JudgeCache{Verdict: string(JudgeBlocking), SHA: sha1, Material: materialKey(prose, sha1)}}
	p, got = Decide(st, obs(sha1, 10*time.Minute, done("bugbot", sha1, 20, elsewhere), prose), DefaultConfig())
	wantAction(t, p, ActionFix, "")
	if !slices.Equal(triageIDs(p), []int64{3}) || !slices.ContainsFunc(got.Held, func(h state.Held) bool { return h.FindingID == "claude-1" }) {
		t.Fatalf("triage = %v, held = %+v; want bugbot's finding fixed and claude's listed", triageIDs(p), got.Held)
	}
}

// revertOf is git's message for a revert of sha.
func revertOf(sha string) string {
	return "Revert \"review-loop: fix 1 finding\"\n\nThis reverts commit " + sha + ".\n"
}

func TestRule_CV4_HumanRevertTurnsAutoFixOffUntilResume(t *testing.T) {
	st := afterFix(t)
	cfg := DefaultConfig()
	cfg.YieldFor = 0 // HY1 apart
	o := obs(sha3, 10*time.Minute, done("bugbot", sha3, 20, elsewhere))
	o.HeadPusher = "alice"
	o.Pushes = &PushHistory{Base: sha2, Head: sha3, Status: "ahead", Commits: []HeadCommit{{SHA: sha3, Message: revertOf(sha2), AuthorLogin: "alice"}}}
	p, got := Decide(st, o, cfg)
	wantAction(t, p, ActionHandBack, EndNoFixes)
	if got.AutofixOff == nil || !strings.Contains(got.AutofixOff.Reason, "@alice reverted review-loop's commit 2222222") || !got.AutofixOff.At.Equal(o.Now) {
		t.Fatalf("autofix off = %+v, want the revert by @alice and its time", got.AutofixOff)
	}
	if !strings.Contains(p.Why, "CV4") || !slices.ContainsFunc(p.Notices, func(n string) bool { return strings.HasPrefix(n, "auto-fix is off since") }) {
		t.Fatalf("why = %q, notices = %q", p.Why, p.Notices)
	}
	// Resume turns it back on and reopens the loop.
	got, err := ApplyCommand(got, Command{Kind: CommandResume, By: "maintainer", At: o.Now.Add(time.Minute)})
	if err != nil || got.AutofixOff != nil || got.Status != state.StatusActive {
		t.Fatalf("after resume: %v, %+v, %s", err, got.AutofixOff, got.Status)
	}
	p, _ = Decide(got, obs(sha3, 12*time.Minute, done("bugbot", sha3, 20, elsewhere)), cfg)
	wantAction(t, p, ActionFix, "")
}

func TestRule_CV4_ForcePushOverTheLoopsCommitTurnsAutoFixOff(t *testing.T) {
	st := afterFix(t)
	cfg := DefaultConfig()
	cfg.YieldFor = 0
	o := obs(sha3, 10*time.Minute, done("bugbot", sha3, 20, elsewhere))
	o.Pushes = &PushHistory{Base: sha2, Head: sha3, Status: "diverged", Commits: []HeadCommit{{SHA: sha3, Message: "Rework Div", AuthorLogin: "alice"}}}
	p, got := Decide(st, o, cfg)
	wantAction(t, p, ActionHandBack, EndNoFixes)
	if got.AutofixOff == nil || !strings.Contains(got.AutofixOff.Reason, "force-pushed") {
		t.Fatalf("autofix off = %+v", got.AutofixOff)
	}
	// It stays off in later cycles and across a restart.
	got = restart(got, o.Now.Add(time.Hour))
	if got.AutofixOff == nil {
		t.Fatal("start forgot the revert memory")
	}
	// A push that keeps the loop's commit changes nothing.
	o.Pushes.Status = "ahead"
	_, got = Decide(afterFix(t), o, cfg)
	if got.AutofixOff != nil {
		t.Fatalf("autofix off after a plain push: %+v", got.AutofixOff)
	}
}

func TestRule_CV5_EngineFixerCommitIsAForeignPushAndItsFixIsNotRedone(t *testing.T) {
	for _, c := range []struct{ login, email, want string }{
		{"cursor[bot]", "", "Bugbot Autofix"},
		{"", "206951365+cursor[bot]@users.noreply.github.com", "Bugbot Autofix"},
		{"coderabbitai[bot]", "", "CodeRabbit autofix"},
		{"Copilot", "", "Copilot coding agent"},
		{"alice", "alice@example.com", ""},
		{"dependabot[bot]", "", ""},
	} {
		if got := EngineFixer(c.login, c.email); got != c.want {
			t.Errorf("EngineFixer(%q, %q) = %q, want %q", c.login, c.email, got, c.want)
		}
	}
	st := active(sha1, "bugbot")
	bug := Finding{ID: "bugbot-4", CommentID: 4, Path: "calc.go", Line: 20, Title: "Sub has its operands swapped", ReviewSHA: sha1}
	o := obs(sha3, 10*time.Minute, done("bugbot", sha1, 20, bug, elsewhere))
	o.HeadPusher, o.HeadPusherBot = "cursor[bot]", true
	o.Pushes = &PushHistory{Base: sha1, Head: sha3, Status: "ahead", Commits: []HeadCommit{{SHA: sha3, Message: "fix: swap Sub's operands",
		AuthorLogin: "cursor[bot]", Touched: []state.ChangedFile{{Path: "calc.go", Ranges: []state.LineRange{{Start: 20, End: 20}}}}}}}
	p, got := Decide(st, o, DefaultConfig())
	if got.Yield == nil || !strings.Contains(got.Yield.Reason, "Bugbot Autofix") {
		t.Fatalf("yield = %+v, want a yield to Bugbot Autofix's push (plan %s: %s)", got.Yield, p.Action, p.Why)
	}
	if !slices.Equal(got.EngineFixed, []string{"bugbot-4"}) {
		t.Fatalf("engine fixed = %v, want bugbot-4", got.EngineFixed)
	}
	// After the pause the finding Autofix fixed is not fixed again.
	es := got.EngineStates["bugbot"]
	es.TriggeredSHA = sha3
	got.EngineStates["bugbot"] = es
	p, _ = Decide(got, obs(sha3, 45*time.Minute, done("bugbot", sha3, 21, bug, elsewhere)), DefaultConfig())
	wantAction(t, p, ActionFix, "")
	if !slices.Equal(triageIDs(p), []int64{3}) {
		t.Fatalf("triage = %v, want only bugbot-3", triageIDs(p))
	}
	// The push event's sender alone is enough to yield.
	o.Pushes = nil
	_, got = Decide(active(sha1, "bugbot"), o, DefaultConfig())
	if got.Yield == nil || !strings.Contains(got.Yield.Reason, "Bugbot Autofix") {
		t.Fatalf("yield = %+v, want a yield to the engine fixer's push", got.Yield)
	}
}

func TestRule_CV6_GeneratedAndIgnoredFilesAreNeverFixed(t *testing.T) {
	for _, c := range []struct {
		path string
		pats []string
		want bool
	}{
		{"gen/api.pb.go", []string{"*.pb.go"}, true},
		{"api.pb.go", []string{"*.pb.go"}, true},
		{"vendor/x/y.go", []string{"vendor/"}, true},
		{"src/vendor/y.go", []string{"/vendor/**"}, false},
		{"docs/a/b.md", []string{"docs/**/*.md"}, true},
		{"calc.go", []string{"gen/**", "*.pb.go"}, false},
		{"calc.go", []string{"# calc.go"}, false},
	} {
		if got := OutOfScope(c.path, c.pats); got != c.want {
			t.Errorf("OutOfScope(%q, %q) = %v, want %v", c.path, c.pats, got, c.want)
		}
	}
	gen := Finding{ID: "bugbot-5", CommentID: 5, Path: "gen/api.pb.go", Line: 3, Title: "Unchecked nil"}
	ign := Finding{ID: "bugbot-6", CommentID: 6, Path: "third_party/lib.go", Line: 9, Title: "Shadowed err"}
	cfg := DefaultConfig()
	cfg.PathsIgnore = []string{"third_party/**"}
	o := obs(sha1, 10*time.Minute, done("bugbot", sha1, 20, gen, ign, elsewhere))
	o.Generated = []string{"*.pb.go"}
	p, got := Decide(active(sha1, "bugbot"), o, cfg)
	wantAction(t, p, ActionFix, "")
	if !slices.Equal(triageIDs(p), []int64{3}) {
		t.Fatalf("triage = %v, want only calc.go's finding", triageIDs(p))
	}
	if len(got.Held) != 2 || got.Held[0].Rule != "CV6" || got.Held[1].Rule != "CV6" {
		t.Fatalf("held = %+v", got.Held)
	}
}

func TestRule_CV6_DiffOverTheEnginesLimitIsSaidNotAwaited(t *testing.T) {
	st := active(sha1, "bugbot")
	st.EngineStates["bugbot"] = state.EngineState{}
	o := obs(sha1, 0, none("bugbot"))
	o.ChangedLines = 100_001
	p, _ := Decide(st, o, DefaultConfig())
	wantAction(t, p, ActionHandBack, EndTooLarge)
	if len(p.Triggers) != 0 {
		t.Fatalf("triggered %v for a diff it will not review", triggered(p))
	}
	if !slices.ContainsFunc(p.Notices, func(n string) bool { return strings.Contains(n, "skipped: too large") }) {
		t.Fatalf("notices = %q, want \"skipped: too large\"", p.Notices)
	}
	// Another engine without such a limit goes on; bugbot is out.
	o = obs(sha1, 0, none("bugbot"), none("copilot"))
	o.ChangedLines = 100_001
	st = active(sha1, "bugbot", "copilot")
	st.EngineStates = map[string]state.EngineState{}
	p, _ = Decide(st, o, DefaultConfig())
	if p.Action != ActionTrigger || !slices.Equal(triggered(p), []string{"copilot"}) {
		t.Fatalf("plan %s %v, want copilot triggered alone", p.Action, triggered(p))
	}
	// At the limit it is reviewed.
	o = obs(sha1, 0, none("bugbot"))
	o.ChangedLines = 100_000
	p, _ = Decide(active(sha1, "bugbot"), o, DefaultConfig())
	if p.Action == ActionHandBack {
		t.Fatalf("handed back at the limit: %s", p.Why)
	}
}

func TestRule_CV4_AHandMadeUndoOfTheLoopsCommitTurnsAutoFixOff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.YieldFor = 0
	o := obs(sha3, 10*time.Minute, done("bugbot", sha3, 20, elsewhere))
	o.HeadPusher = "alice"
	o.Pushes = &PushHistory{Base: sha2, Head: sha3, Status: "ahead", Undone: []string{sha2},
		Commits: []HeadCommit{{SHA: sha3, Message: "Put Div back", AuthorLogin: "alice"}}}
	p, got := Decide(afterFix(t), o, cfg)
	wantAction(t, p, ActionHandBack, EndNoFixes)
	if got.AutofixOff == nil || !strings.Contains(got.AutofixOff.Reason, "undid review-loop's commit 2222222") || got.AutofixOff.By != "alice" {
		t.Fatalf("autofix off = %+v", got.AutofixOff)
	}
	// Only the loop's own commits count.
	o.Pushes.Undone = []string{sha1}
	if _, got = Decide(afterFix(t), o, cfg); got.AutofixOff != nil {
		t.Fatalf("autofix off for a commit that is not the loop's: %+v", got.AutofixOff)
	}
}

func TestRule_CV5_AnEngineFixerAtWorkOnTheHeadIsNeverRaced(t *testing.T) {
	if EngineFixerCheck("cursor", "Cursor / Cursor Bugbot Autofix") != "Bugbot Autofix" || EngineFixerCheck("cursor", "Cursor Bugbot") != "" ||
		EngineFixerCheck("github-actions", "autofix") != "" {
		t.Fatal("EngineFixerCheck misreads a check run")
	}
	o := obs(sha1, 10*time.Minute, done("bugbot", sha1, 20, elsewhere))
	o.FixersRunning = []FixerRun{{Fixer: "Bugbot Autofix", StartedAt: o.Now.Add(-2 * time.Minute)}}
	p, _ := Decide(active(sha1, "bugbot"), o, DefaultConfig())
	if p.Action != ActionWait || !strings.Contains(p.Why, "CV5: Bugbot Autofix is at work on the head") {
		t.Fatalf("plan %s (%s), want a wait for Bugbot Autofix", p.Action, p.Why)
	}
	// A fixer run stuck past the stall bound no longer holds the loop.
	o.FixersRunning[0].StartedAt = o.Now.Add(-time.Hour)
	p, _ = Decide(active(sha1, "bugbot"), o, DefaultConfig())
	wantAction(t, p, ActionFix, "")
}
