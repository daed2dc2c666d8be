package loop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// The decisions the Action used to make while acting, now made here on
// plain data: which effects a cycle carries out, in which order, and why.

func kinds(es []Effect) []EffectKind {
	out := make([]EffectKind, len(es))
	for i, e := range es {
		out[i] = e.Kind
	}
	return out
}

func activeState() state.State {
	st := state.New()
	st.Status = state.StatusActive
	return st
}

// C2: a wake with nothing new and nothing to do writes nothing; the same
// wake with a changed status comment writes it, unchecked.
func TestRule_C2_AnIdleWakePlansNoEffect(t *testing.T) {
	p := Plan{Action: ActionWait, Why: "waiting for bugbot"}
	c := PlanCycle(p, activeState(), Facts{Unchanged: true, Labeled: true})
	if !c.Idle || len(c.Effects) != 0 {
		t.Fatalf("idle wake: %+v", c)
	}
	c = PlanCycle(p, activeState(), Facts{Unchanged: false, Labeled: true})
	if c.Idle || len(c.Effects) != 0 {
		t.Fatalf("a changed wait needs no claim and no action effect (its save is the closing one): %+v", c)
	}
	// A command always reports, even when nothing changed.
	if c := PlanCycle(p, activeState(), Facts{Unchanged: true, Command: true}); c.Idle {
		t.Fatal("a command's cycle is never idle")
	}
}

// SC1: a cycle that acts claims the status comment first, checked; one
// that only records a wait does not.
func TestRule_SC1_ACycleThatActsClaimsTheStatusCommentFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Plan
		st   state.State
		f    Facts
		want []EffectKind
	}{
		{"trigger", Plan{Action: ActionTrigger, Triggers: []TriggerRequest{{Engine: "bugbot", SHA: "abc"}}}, activeState(), Facts{},
			[]EffectKind{EffectClaim, EffectTrigger}},
		{"fix", Plan{Action: ActionFix, Triage: []Finding{{ID: "x"}}}, activeState(), Facts{}, []EffectKind{EffectClaim, EffectFix}},
		{"draft", Plan{Action: ActionTrigger, MarkReady: true}, activeState(), Facts{}, []EffectKind{EffectClaim, EffectMarkReady, EffectTrigger}},
		{"recall", Plan{Action: ActionWait, Recalled: []Recall{{Reply: "as decided"}}}, activeState(), Facts{}, []EffectKind{EffectClaim, EffectAnswerRecalls}},
		{"wait in job", Plan{Action: ActionWait}, activeState(), Facts{InJobWait: true}, []EffectKind{EffectClaim, EffectWait}},
		{"wait, no job wait", Plan{Action: ActionWait}, activeState(), Facts{}, nil},
		{"hand-back", Plan{Action: ActionHandBack}, activeState(), Facts{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := PlanCycle(tc.p, tc.st, tc.f)
			if got := kinds(c.Effects); !slices.Equal(got, tc.want) {
				t.Fatalf("effects %v, want %v", got, tc.want)
			}
			if len(c.Effects) > 0 && c.Effects[0].Kind == EffectClaim && !c.Effects[0].Checked {
				t.Fatal("the claim is not checked")
			}
		})
	}
}

// H8: a finished loop woken by anything but a command does nothing but
// drop its live label.
func TestRule_H8_AFinishedLoopOnlyDropsItsLabel(t *testing.T) {
	st := state.New()
	st.Status = state.StatusDone
	c := PlanCycle(Plan{Action: ActionNone}, st, Facts{Labeled: true})
	if c.Skip == "" || !slices.Equal(kinds(c.Effects), []EffectKind{EffectLabel}) || c.Effects[0].Add {
		t.Fatalf("finished loop: %+v", c)
	}
	if c := PlanCycle(Plan{Action: ActionNone}, st, Facts{}); c.Skip == "" || len(c.Effects) != 0 {
		t.Fatalf("finished loop, no label: %+v", c)
	}
}

// SW1: the live label is added while the loop is live and missing, and
// removed once it handed back or stopped; a PR that never had a loop is
// left alone.
func TestRule_SW1_TheLiveLabelFollowsTheLoop(t *testing.T) {
	done := state.New()
	done.Status = state.StatusDone
	for _, tc := range []struct {
		name    string
		st      state.State
		labeled bool
		want    []string
	}{
		{"live, missing", activeState(), false, []string{"add"}},
		{"live, present", activeState(), true, nil},
		{"done, present", done, true, []string{"remove"}},
		{"done, absent", done, false, nil},
		{"no loop, present", state.New(), true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Closing(Plan{}, tc.st, Facts{Labeled: tc.labeled}, false, false) {
				if e.Kind == EffectLabel {
					got = append(got, map[bool]string{true: "add", false: "remove"}[e.Add])
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("label effects %+v, want %+v", got, tc.want)
			}
		})
	}
}

// W5: the loop re-dispatches itself only after a cycle that triggered or
// pushed, while it is live, and only when it knows its workflow file.
func TestRule_W5_ReDispatchOnlyAfterActingWhileLive(t *testing.T) {
	done := state.New()
	done.Status = state.StatusDone
	has := func(es []Effect) bool {
		return slices.ContainsFunc(es, func(e Effect) bool { return e.Kind == EffectRedispatch })
	}
	trigger := Plan{Action: ActionTrigger}
	if !has(Closing(trigger, activeState(), Facts{Workflow: "review-loop.yml"}, true, false)) {
		t.Fatal("a live cycle that triggered is not re-dispatched")
	}
	if !has(Closing(Plan{Action: ActionFix}, activeState(), Facts{Workflow: "review-loop.yml"}, true, true)) {
		t.Fatal("a live cycle that pushed is not re-dispatched")
	}
	for name, es := range map[string][]Effect{
		"fixed, not pushed": Closing(Plan{Action: ActionFix}, activeState(), Facts{Workflow: "review-loop.yml"}, true, false),
		"waited":            Closing(Plan{Action: ActionWait}, activeState(), Facts{Workflow: "review-loop.yml"}, true, false),
		"handed back":       Closing(trigger, done, Facts{Workflow: "review-loop.yml"}, true, true),
		"no workflow":       Closing(trigger, activeState(), Facts{}, true, true),
	} {
		if has(es) {
			t.Errorf("%s: re-dispatched: %v", name, es)
		}
	}
	// The closing save is checked exactly when the cycle claimed.
	if es := Closing(Plan{}, activeState(), Facts{}, false, false); es[0].Kind != EffectSave || es[0].Checked {
		t.Fatalf("closing of an unclaimed cycle: %+v", es)
	}
	if es := Closing(Plan{}, activeState(), Facts{}, true, false); !es[0].Checked {
		t.Fatalf("closing of a claimed cycle: %+v", es)
	}
}

// J5: non-blocking items are filed as issues when asked, each once.
func TestRule_J5_NonBlockingItemsAreFiledOnce(t *testing.T) {
	st := activeState()
	st.NonBlocking = []state.Item{{ID: "a"}, {ID: "b"}}
	st, _ = RecordNotice(st, IssueNotice("a"))
	c := PlanCycle(Plan{Action: ActionHandBack}, st, Facts{FileIssues: true})
	if got := kinds(c.Effects); !slices.Equal(got, []EffectKind{EffectClaim, EffectFileIssues}) || !slices.Equal(c.Effects[1].Items, []string{"b"}) {
		t.Fatalf("effects %+v", c.Effects)
	}
	if c := PlanCycle(Plan{Action: ActionHandBack}, st, Facts{}); len(c.Effects) != 0 {
		t.Fatalf("filed without non-blocking: issue: %+v", c.Effects)
	}
}

// TB3, TR2: a command the sender may not give gets 😕 and nothing else;
// one that fails gets 👀, 😕 and a one-line reply naming the sender; a
// carried-out one gets 👀 then 👍, and reports or decides.
func TestRule_TB3_CommandEffects(t *testing.T) {
	p := PlanCommand("approve", activeState(), "@eve may not approve", "", "eve", "@review-loop")
	if p.End != CommandDenied || len(p.Effects) != 1 || p.Effects[0].Reaction != "confused" {
		t.Fatalf("denied: %+v", p)
	}
	p = PlanCommand("approve", activeState(), "", "no finding x", "ann", "@review-loop")
	if p.End != CommandRefused || !slices.Equal(kinds(p.Effects), []EffectKind{EffectReact, EffectReact, EffectRefuse}) ||
		p.Effects[2].Text != "@ann no finding x" {
		t.Fatalf("refused: %+v", p)
	}
	for _, tc := range []struct {
		kind string
		st   state.State
		end  CommandEnd
	}{
		{"status", activeState(), CommandReports},
		{"stop", activeState(), CommandReports},
		{"approve", activeState(), CommandDecides},
		{"approve", func() state.State { s := state.New(); s.Status = state.StatusDone; return s }(), CommandReports},
		{"start", activeState(), CommandDecides},
		{"resolve-stale", activeState(), CommandReports},
	} {
		p := PlanCommand(tc.kind, tc.st, "", "", "ann", "@review-loop")
		if p.End != tc.end {
			t.Errorf("%s on %q: end %s, want %s", tc.kind, tc.st.Status, p.End, tc.end)
		}
		first, last := p.Effects[0], p.Effects[len(p.Effects)-1]
		if first.Reaction != "eyes" || last.Reaction != "+1" {
			t.Errorf("%s: reactions %v", tc.kind, p.Effects)
		}
		if (tc.kind == "resolve-stale") != slices.ContainsFunc(p.Effects, func(e Effect) bool { return e.Kind == EffectResolveStale }) {
			t.Errorf("%s: resolve-stale effect %v", tc.kind, p.Effects)
		}
	}
	if p := PlanCommand("status", state.New(), "", "", "ann", "@review-loop"); len(p.Notices) != 1 {
		t.Fatalf("status with no loop says nothing of it: %+v", p)
	}
}

// E6, E7, DD1: after a pushed fix the fixed findings' threads and their
// merged sources' threads are resolved and each source hears it; a
// disagreement is answered, remembered and resolved; Tier 3 stays open;
// without a push nothing fixed is resolved.
func TestRule_E6_AfterFixRepliesAndResolves(t *testing.T) {
	fixed := Finding{ID: "bugbot-1", Engine: "bugbot", CommentID: 1, ThreadID: "T1",
		Sources: []SourceRef{{ID: "copilot-2", Engine: "copilot", CommentID: 2, ThreadID: "T2"}}}
	dis := Finding{ID: "bugbot-3", Engine: "bugbot", CommentID: 3, ThreadID: "T3"}
	t3 := Finding{ID: "bugbot-4", Engine: "bugbot", CommentID: 4, ThreadID: "T4"}
	o := FixOutcome{Pushed: "abc1234", Findings: map[string]Finding{fixed.ID: fixed, dis.ID: dis, t3.ID: t3},
		Results: []FixResultRow{{ID: fixed.ID, Outcome: OutcomeFixed}, {ID: dis.ID, Outcome: OutcomeDisagreed, Reply: "not a bug: x is checked above"}},
		Rows:    []TriageReply{{FindingID: t3.ID, Tier: 3, Reply: "needs a person"}}}
	es := AfterFix(activeState(), o, []TriggerRequest{{Engine: "bugbot", SHA: "abc1234"}}, Facts{})
	if got := kinds(es); !slices.Equal(got, []EffectKind{EffectReply, EffectResolve, EffectTrigger}) {
		t.Fatalf("effects %v", got)
	}
	var to []int64
	for _, r := range es[0].Replies {
		to = append(to, r.CommentID)
		if r.CommentID == 3 && !r.Remember {
			t.Error("the disagreement is not remembered (WF1)")
		}
	}
	if !slices.Equal(to, []int64{2, 3}) {
		t.Errorf("replied to %v, want the merged source 2 (DD1) and the disagreement 3; never the Tier 3 row", to)
	}
	if !slices.Equal(es[1].Threads, []string{"T1", "T2", "T3"}) {
		t.Errorf("resolved %v, want T1, T2, T3: the Tier 3 thread T4 stays open and unanswered", es[1].Threads)
	}
	if es[2].Rule != "T7" {
		t.Errorf("retrigger rule %q", es[2].Rule)
	}
	o.Pushed = ""
	es = AfterFix(activeState(), o, nil, Facts{})
	if slices.ContainsFunc(es, func(e Effect) bool { return e.Kind == EffectResolve && slices.Contains(e.Threads, "T1") }) {
		t.Fatalf("a fix not pushed resolved its thread: %+v", es)
	}
}

// E6: a fixed finding listed only in a review body (no thread, no
// comment) is listed once on the PR after the push that fixed it; a
// threaded one never is.
func TestRule_E6_BodyOnlyFindingIsListedOncePerFinding(t *testing.T) {
	body := Finding{ID: "coderabbit-9-ab", Engine: "coderabbit", Path: "a.go", Line: 3, Title: "Body finding."}
	thread := Finding{ID: "coderabbit-10", Engine: "coderabbit", CommentID: 10, ThreadID: "T", Path: "b.go", Line: 1}
	o := FixOutcome{Findings: map[string]Finding{body.ID: body, thread.ID: thread},
		Results: []FixResultRow{{ID: body.ID, Outcome: OutcomeFixed}, {ID: thread.ID, Outcome: OutcomeFixed}}}
	st := activeState()
	listed := func(es []Effect) []string {
		var ids []string
		for _, e := range es {
			for _, l := range e.Lines {
				ids = append(ids, l.Finding.ID)
			}
		}
		return ids
	}
	if got := listed(AfterFix(st, o, nil, Facts{})); len(got) != 0 {
		t.Fatalf("listed before any push: %v", got)
	}
	o.Pushed = "abc123"
	if got := listed(AfterFix(st, o, nil, Facts{})); !slices.Equal(got, []string{body.ID}) {
		t.Fatalf("listed %v, want the body finding alone", got)
	}
	st, _ = RecordNotice(st, BodyFindingNotice(body.ID))
	o.Pushed = "def456"
	if got := listed(AfterFix(st, o, nil, Facts{})); len(got) != 0 {
		t.Fatalf("listed again: %v", got)
	}
}

// CI1: CI is dispatched after a push only when the push starts no
// workflow, on the head branch, and never a workflow already reported
// undispatchable.
func TestRule_CI1_CIIsDispatchedOnlyForAPushThatStartsNoWorkflow(t *testing.T) {
	o := FixOutcome{Pushed: "abc"}
	st := activeState()
	st, _ = RecordNotice(st, CINotice("lint.yml"))
	f := Facts{CIWorkflows: []string{"ci.yml", "lint.yml"}, PushStartsNoWorkflow: true, HeadRef: "feature"}
	es := AfterFix(st, o, nil, f)
	if len(es) != 1 || es[0].Kind != EffectDispatchCI || !slices.Equal(es[0].Items, []string{"ci.yml"}) {
		t.Fatalf("effects %+v", es)
	}
	f.PushStartsNoWorkflow = false
	if es := AfterFix(st, o, nil, f); len(es) != 0 {
		t.Fatalf("a push with a push token dispatched CI: %+v", es)
	}
	f.PushStartsNoWorkflow, o.Pushed = true, ""
	if es := AfterFix(st, o, nil, f); len(es) != 0 {
		t.Fatalf("no push, yet CI dispatched: %+v", es)
	}
}

// SW1, SW2: the sweep cycles only live loops (a finished one still
// labelled is unlabelled); under start-on: command a PR with no loop is
// left alone unless the wake asks.
func TestRule_SW1_AdmitVisitsOnlyLiveLoops(t *testing.T) {
	done := state.New()
	done.Status = state.StatusDone
	if skip, es := Admit(done, WakeFacts{Sweep: true}, Facts{Labeled: true}); skip == "" || len(es) != 1 || es[0].Add {
		t.Fatalf("sweep on a finished loop: %q %+v", skip, es)
	}
	if skip, _ := Admit(activeState(), WakeFacts{Sweep: true}, Facts{}); skip != "" {
		t.Fatalf("sweep skipped a live loop: %q", skip)
	}
	if skip, _ := Admit(state.New(), WakeFacts{Policy: StartOnCommand, Phrase: "@review-loop"}, Facts{}); !strings.Contains(skip, "start-on is command") {
		t.Fatalf("start-on command started a loop unasked: %q", skip)
	}
	if skip, _ := Admit(state.New(), WakeFacts{Policy: StartOnCommand, Asked: true}, Facts{}); skip != "" {
		t.Fatalf("an asked start was skipped: %q", skip)
	}
}

// The plan prints one effect per line, with its rule.
func TestPlan_EffectsPrintWithTheirRules(t *testing.T) {
	c := PlanCycle(Plan{Action: ActionTrigger, Why: "T2: bugbot has not reviewed abc1234", Triggers: []TriggerRequest{{Engine: "bugbot", SHA: "abc1234def"}}},
		activeState(), Facts{Workflow: "review-loop.yml"})
	es := append(c.Effects, Closing(c.Plan, activeState(), Facts{Workflow: "review-loop.yml"}, true, false)...)
	got := FormatEffects(es)
	for _, want := range []string{"1. claim the status comment", "(SC1)", "2. trigger bugbot on abc1234", "(T2)", "3. save the status comment (checked)", "add label review-loop:live", "(SW1)", "re-dispatch", "(W5)"} {
		if !strings.Contains(got, want) {
			t.Errorf("plan lacks %q:\n%s", want, got)
		}
	}
}

// T8, B7: a wait with a planned wake says when, under the rule that
// planned it, whether or not the job waits.
func TestRule_T8_APlannedWakeIsNoted(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		why, rule string
		inJob     bool
		want      []EffectKind
	}{
		{"T8: bugbot's quota resets at 03:00", "T8", false, []EffectKind{EffectNoteWake}},
		{"B7: the REST budget is under the floor", "B7", true, []EffectKind{EffectNoteWake, EffectWait}},
	} {
		es := ActionEffects(Plan{Action: ActionWait, Why: tc.why, WakeAt: at}, activeState(), Facts{InJobWait: tc.inJob})
		if !slices.Equal(kinds(es), tc.want) || es[0].Rule != tc.rule || !es[0].WakeAt.Equal(at) {
			t.Errorf("%s: %+v", tc.why, es)
		}
	}
	if es := ActionEffects(Plan{Action: ActionWait}, activeState(), Facts{}); len(es) != 0 {
		t.Errorf("a wait with no planned wake noted one: %+v", es)
	}
}

// WF1: the decision needs the tree only to fingerprint placed findings
// against remembered won't-fix decisions, or to run a judge command on
// something to judge.
func TestRule_WF1_TheTreeIsCheckedOutOnlyWhenTheDecisionReadsIt(t *testing.T) {
	placed := []EngineView{{Engine: "bugbot", Findings: []Finding{{ID: "a", Path: "a.go", Line: 3}}}}
	st := activeState()
	if why := TreeToDecide(st, nil, placed, "h", false); why != "" {
		t.Fatalf("no memory, no judge: %q", why)
	}
	st.WontFix = []state.WontFix{{Title: "x"}}
	if why := TreeToDecide(st, nil, placed, "h", false); !strings.Contains(why, "won't-fix") {
		t.Fatalf("memory and a placed finding: %q", why)
	}
	outdated := []EngineView{{Engine: "bugbot", Findings: []Finding{{ID: "a", Path: "a.go", Line: 3, Outdated: true}}}}
	if why := TreeToDecide(st, nil, outdated, "h", false); why != "" {
		t.Fatalf("only an outdated finding: %q", why)
	}
}

// J5: the filed issue's URL is kept and the item never filed again.
func TestRule_J5_RecordIssueKeepsTheURLAndFilesOnce(t *testing.T) {
	st := activeState()
	st.NonBlocking = []state.Item{{ID: "a"}}
	st = RecordIssue(st, "a", "https://example.test/issues/7")
	if st.NonBlocking[0].Issue != "https://example.test/issues/7" || len(issuesToFile(st, Facts{FileIssues: true})) != 0 {
		t.Fatalf("state %+v", st.NonBlocking)
	}
}

// CL1: the status comment's write counts itself and the single writes
// planned after it: a checked write reads twice and writes once, a new
// comment is written twice, and the label and the re-dispatch once each;
// a later write counts what comes after it.
func TestRule_CL1_RequestsAheadOfTheWrite(t *testing.T) {
	closing := Closing(Plan{Action: ActionTrigger}, activeState(), Facts{Workflow: "review-loop.yml"}, true, false)
	for _, tc := range []struct {
		name          string
		es            []Effect
		new           bool
		reads, writes int64
	}{
		{"checked, label, re-dispatch", closing, false, 2, 3},
		{"new comment", closing, true, 0, 4},
		{"unchecked", []Effect{{Kind: EffectSave}}, false, 0, 1},
		{"claim before a fix", []Effect{{Kind: EffectClaim, Checked: true}, {Kind: EffectFix}, {Kind: EffectSave, Checked: true}, {Kind: EffectLabel}}, false, 2, 1},
	} {
		if r, w := RequestsAhead(tc.es, tc.new); r != tc.reads || w != tc.writes {
			t.Errorf("%s: %d reads, %d writes, want %d, %d", tc.name, r, w, tc.reads, tc.writes)
		}
	}
}

// B5, B1, B6: a fork PR's fix is triage only; a fix's changes are
// committed and pushed only while the loop is live.
func TestRule_B5_AForkIsTriagedOnlyAndAnEndedLoopCommitsNothing(t *testing.T) {
	es := ActionEffects(Plan{Action: ActionFix, Triage: []Finding{{ID: "a"}}}, activeState(), Facts{Fork: true})
	if len(es) != 1 || es[0].Kind != EffectFix || !es[0].ReportOnly || es[0].Rule != "B5" {
		t.Fatalf("fork: %+v", es)
	}
	if es := ActionEffects(Plan{Action: ActionFix}, activeState(), Facts{}); es[0].ReportOnly {
		t.Fatalf("not a fork: %+v", es)
	}
	if es := CommitEffects(activeState(), true); len(es) != 1 || es[0].Kind != EffectCommit {
		t.Fatalf("live loop with changes: %+v", es)
	}
	done := state.New()
	done.Status = state.StatusDone
	if es := CommitEffects(done, true); len(es) != 0 {
		t.Fatalf("an ended loop commits: %+v", es)
	}
	if es := CommitEffects(activeState(), false); len(es) != 0 {
		t.Fatalf("no changes, yet a commit: %+v", es)
	}
}

// H8: a closed or merged PR gets no new loop; an existing loop goes on
// to hand back.
func TestRule_H8_AClosedPRGetsNoNewLoop(t *testing.T) {
	if why := MayAct(state.New(), "MERGED"); !strings.Contains(why, "MERGED") {
		t.Fatalf("merged, no loop: %q", why)
	}
	if why := MayAct(activeState(), "CLOSED"); why != "" {
		t.Fatalf("closed with a loop: %q", why)
	}
	if why := MayAct(state.New(), "OPEN"); why != "" {
		t.Fatalf("open: %q", why)
	}
}

// T8: an in-job wait is worth it only when the next planned wake falls
// within its budget.
func TestRule_T8_NoInJobWaitBeforeThePlannedWake(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	if !WorthWaiting(Plan{}, now, time.Minute) || !WorthWaiting(Plan{WakeAt: now.Add(time.Minute)}, now, time.Minute) {
		t.Fatal("a wait within the budget is not worth it")
	}
	if WorthWaiting(Plan{WakeAt: now.Add(time.Hour)}, now, time.Minute) {
		t.Fatal("waited in the job for a wake an hour away")
	}
}

// CV4, CV5: the pushes since the last look are read only when the head
// moved by a push that is not the loop's, from the loop's last push.
func TestRule_CV4_PushesAreReadOnlyAfterAnOutsidePush(t *testing.T) {
	st := activeState()
	st.LastObservedSHA = "seen"
	for _, tc := range []struct {
		head, lastPush, pending, want string
	}{
		{"seen", "", "", ""},
		{"moved", "", "", "seen"},
		{"moved", "ours", "", "ours"},
		{"ours", "ours", "", ""},
		{"pending", "", "pending", ""},
		{"", "", "", ""},
	} {
		s := st
		s.LastPushSHA, s.PendingPushSHA = tc.lastPush, tc.pending
		if got := PushesSince(s, tc.head); got != tc.want {
			t.Errorf("head %q, last push %q, pending %q: %q, want %q", tc.head, tc.lastPush, tc.pending, got, tc.want)
		}
	}
}
