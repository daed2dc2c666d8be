package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// incremental is a Bugbot-like view: a review on sha1 that posted two
// threads, then a review on the head sha2 that posted nothing new.
func incremental(findings ...Finding) EngineView {
	v := done("bugbot", sha2, 20)
	v.Incremental = true
	v.Reviews = []ReviewRef{{ID: 10, SHA: sha1, Substantive: true, At: t0}, {ID: 20, SHA: sha2, Substantive: true, At: t0.Add(time.Hour)}}
	v.Findings = findings
	for i := range v.Findings {
		v.Findings[i].Engine = "bugbot"
		if v.Findings[i].ThreadID == "" && v.Findings[i].CommentID != 0 {
			v.Findings[i].ThreadID = "T" + itoa(v.Findings[i].CommentID)
		}
	}
	return v
}

func onReview(fd Finding, review int64, sha string) Finding {
	fd.ReviewID, fd.ReviewSHA = review, sha
	return fd
}

func TestRule_ST5_IncrementalEngineKeepsEarlierUnresolvedThreadsActive(t *testing.T) {
	resolved := onReview(f(2), 10, sha1)
	resolved.Resolved = true
	outdated := onReview(f(3), 10, sha1)
	outdated.Outdated = true
	body := Finding{ID: "bugbot-body-1", Engine: "bugbot", ReviewID: 10, ReviewSHA: sha1, Title: "body only"}
	bodyHead := Finding{ID: "bugbot-body-2", Engine: "bugbot", ReviewID: 20, ReviewSHA: sha2, Title: "body only, head"}
	cases := []struct {
		name   string
		view   func() EngineView
		active []int64
		ids    []string
	}{
		{"earlier unresolved thread stays active after a later no-new-issues review",
			func() EngineView { return incremental(onReview(f(1), 10, sha1)) }, []int64{1}, nil},
		{"resolved thread is not active", func() EngineView { return incremental(resolved) }, nil, nil},
		{"one per comment id", func() EngineView { return incremental(onReview(f(1), 10, sha1), onReview(f(1), 20, sha2)) }, []int64{1}, nil},
		{"outdated thread stays active while S6 does not hold without it", func() EngineView {
			v := incremental(outdated)
			v.Stated = &StatedCount{N: 1, Source: "check"}
			return v
		}, []int64{3}, nil},
		{"outdated thread retires once the later head is DONE and S6 holds (no stated count)",
			func() EngineView { return incremental(outdated) }, nil, nil},
		{"outdated thread retires when the others meet the stated count", func() EngineView {
			v := incremental(outdated, onReview(f(4), 20, sha2))
			v.Stated = &StatedCount{N: 1, Source: "check"}
			return v
		}, []int64{4}, nil},
		{"outdated thread stays active while the later head's review is not DONE", func() EngineView {
			v := incremental(outdated)
			v.Signal, v.Material = SignalRunning, MaterialPending
			return v
		}, []int64{3}, nil},
		{"outdated thread stays active while the latest review is of its own head", func() EngineView {
			v := incremental(onReview(outdated, 20, sha2))
			return v
		}, []int64{3}, nil},
		{"body-only findings are active only in the latest review",
			func() EngineView { return incremental(body, bodyHead) }, []int64{0}, []string{"bugbot-body-2"}},
		{"non-incremental keeps ST1: latest review wins", func() EngineView {
			v := incremental(onReview(f(1), 10, sha1))
			v.Incremental = false
			return v
		}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ActiveFindings(c.view(), sha2)
			var ids []int64
			var sids []string
			for _, g := range got {
				ids = append(ids, g.CommentID)
				if g.CommentID == 0 {
					sids = append(sids, g.ID)
				}
			}
			if !equalInts(ids, c.active) {
				t.Fatalf("active = %v, want %v", ids, c.active)
			}
			if c.ids != nil && strings.Join(sids, ",") != strings.Join(c.ids, ",") {
				t.Fatalf("body-only active = %v, want %v", sids, c.ids)
			}
		})
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRule_ST5_NoNewIssuesOnALaterHeadIsNotClean is the bug found on
// main: Bugbot's "no new issues" review of a later head retired the
// earlier, still unresolved findings and Bugbot read CLEAN.
func TestRule_ST5_NoNewIssuesOnALaterHeadIsNotClean(t *testing.T) {
	st := active(sha2, "bugbot")
	es := st.EngineStates["bugbot"]
	es.LastSeenCommentID = 1
	st.EngineStates["bugbot"] = es
	st.Triage = []state.TriageRow{{FindingID: "f-1", CommentID: 1, Engine: "bugbot"}}
	v := incremental(onReview(f(1), 10, sha1))
	p, _ := Decide(st, obs(sha2, time.Hour, v), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndNoFixes)
	if r := report(t, p, "bugbot"); r.Verdict != VerdictStillFinding || !equalInts(r.Active, []int64{1}) {
		t.Fatalf("bugbot = %+v, want STILL_FINDING with comment 1 active", r)
	}
}

func TestRule_S6_FewerCountedThanStatedIsNeverClean(t *testing.T) {
	cases := []struct {
		name    string
		stated  *StatedCount
		found   []Finding
		verdict EngineVerdict
		action  Action
		end     EndReason
		note    string
	}{
		{"stated 2, counted 0: not clean, no spin", &StatedCount{N: 2, Source: "check run: 2 total unresolved issues"}, nil,
			VerdictStillFinding, ActionHandBack, EndNoFixes, "not proven: bugbot states 2 open finding(s), 0 counted (check run: 2 total unresolved issues)"},
		{"stated 2, counted 1 already triaged: not clean", &StatedCount{N: 2, Source: "s"}, []Finding{f(1)},
			VerdictStillFinding, ActionHandBack, EndNoFixes, "not proven: bugbot states 2 open finding(s), 1 counted (s)"},
		{"stated 0, counted 0: clean", &StatedCount{N: 0, Source: "s"}, nil, VerdictClean, ActionHandBack, EndClean, ""},
		{"stated 1, counted 1: S6 holds", &StatedCount{N: 1, Source: "s"}, []Finding{f(1)}, VerdictStillFinding, ActionHandBack, EndNoFixes, ""},
		{"no stated count, none counted: clean", nil, nil, VerdictClean, ActionHandBack, EndClean, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := active(sha1, "bugbot")
			st.Triage = []state.TriageRow{{FindingID: "f-1", CommentID: 1, Engine: "bugbot"}}
			es := st.EngineStates["bugbot"]
			es.LastSeenCommentID = 1
			st.EngineStates["bugbot"] = es
			v := done("bugbot", sha1, 10, c.found...)
			v.Stated = c.stated
			p, _ := Decide(st, obs(sha1, time.Minute, v), DefaultConfig())
			wantAction(t, p, c.action, c.end)
			r := report(t, p, "bugbot")
			if r.Verdict != c.verdict {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, r.Note, c.verdict)
			}
			if c.note != "" && r.Note != c.note {
				t.Fatalf("note %q, want %q", r.Note, c.note)
			}
			if c.stated != nil && (r.Stated == nil || r.Stated.N != c.stated.N || r.Counted != len(c.found)) {
				t.Fatalf("report numbers stated=%v counted=%d, want %d and %d", r.Stated, r.Counted, c.stated.N, len(c.found))
			}
			if ok, _ := IsClean(st, v, sha1); ok != (c.verdict == VerdictClean) {
				t.Fatalf("IsClean = %v, want %v", ok, c.verdict == VerdictClean)
			}
		})
	}
}

func TestRule_S7_UnprovenIsNeverClean(t *testing.T) {
	st := active(sha1, "bugbot")
	v := done("bugbot", sha1, 0)
	v.Reviews, v.LatestReviewID, v.LatestSHA = nil, 0, ""
	v.Material, v.MaterialNote = MaterialUnproven, "check run concluded neutral with no review of the head (cancelled by a newer commit?)"
	p, next := Decide(st, obs(sha1, time.Minute, v), DefaultConfig())
	r := report(t, p, "bugbot")
	if r.Verdict != VerdictErrored || !strings.Contains(r.Note, "no review of the head") {
		t.Fatalf("bugbot = %+v, want ERRORED with the reason", r)
	}
	if p.EndReason == EndClean {
		t.Fatalf("plan %s/%s: unproven counted as a clean hand-back", p.Action, p.EndReason)
	}
	if ok, why := IsClean(st, v, sha1); ok || !strings.Contains(why, "no review of the head") {
		t.Fatalf("IsClean = %v, %q", ok, why)
	}
	if next.EngineStates["bugbot"].ConsecutiveErrors != 1 {
		t.Fatalf("an unproven review counts as an engine error (T4): %+v", next.EngineStates["bugbot"])
	}
}

func quotaView(at time.Time, wait time.Duration) EngineView {
	v := done("bugbot", sha1, 0)
	v.Reviews, v.LatestReviewID, v.LatestSHA = nil, 0, ""
	v.Material = MaterialQuota
	v.Quota = &QuotaNotice{At: at, Wait: wait, Text: "Bugbot couldn't run - usage limit reached"}
	return v
}

func TestRule_T8_QuotaCooldown(t *testing.T) {
	cfg := DefaultConfig()
	st := active(sha1, "bugbot", "copilot")
	cop := done("copilot", sha1, 30)
	notice := t0.Add(5 * time.Minute)

	// The notice: ERRORED with reason quota, cooldown stored, no error count,
	// the next wake planned after the cooldown (the other engine is clean).
	p, st2 := Decide(st, obs(sha1, 6*time.Minute, quotaView(notice, 0), cop), cfg)
	es := st2.EngineStates["bugbot"]
	if want := notice.Add(time.Hour); !es.QuotaUntil.Equal(want) || es.QuotaNote == "" {
		t.Fatalf("quota until %v note %q, want %v", es.QuotaUntil, es.QuotaNote, want)
	}
	if es.ConsecutiveErrors != 0 {
		t.Fatalf("quota counted as an error: %d", es.ConsecutiveErrors)
	}
	r := report(t, p, "bugbot")
	if r.Verdict != VerdictErrored || !strings.HasPrefix(r.Note, "quota: ") || !strings.Contains(r.Note, "usage limit reached") {
		t.Fatalf("bugbot = %+v, want ERRORED quota with the engine's words", r)
	}
	wantAction(t, p, ActionWait, "")
	if !p.WakeAt.Equal(notice.Add(time.Hour)) || p.Wait != notice.Add(time.Hour).Sub(t0.Add(6*time.Minute)) {
		t.Fatalf("wake at %v (wait %s), want after the cooldown", p.WakeAt, p.Wait)
	}

	// A stated wait is honoured.
	_, st3 := Decide(st, obs(sha1, 6*time.Minute, quotaView(notice, 22*time.Minute), cop), cfg)
	if want := notice.Add(22 * time.Minute); !st3.EngineStates["bugbot"].QuotaUntil.Equal(want) {
		t.Fatalf("quota until %v, want %v", st3.EngineStates["bugbot"].QuotaUntil, want)
	}

	// During the cooldown, long past the stall limit: not triggered, not
	// HUNG.
	later := st2
	for i := 1; i <= 12; i++ {
		p, later = Decide(later, obs(sha1, 6*time.Minute+time.Duration(i)*4*time.Minute, quotaView(notice, 0), cop), cfg)
		if len(p.Triggers) > 0 || report(t, p, "bugbot").Verdict == VerdictHung || p.Action == ActionHandBack {
			t.Fatalf("cycle %d during cooldown: %s %v %+v", i, p.Action, triggered(p), report(t, p, "bugbot"))
		}
	}

	// After the cooldown: triggered again for the head.
	p, after := Decide(later, obs(sha1, 2*time.Hour, quotaView(notice, 0), cop), cfg)
	if got := triggered(p); len(got) != 1 || got[0] != "bugbot" {
		t.Fatalf("after the cooldown: %s %v, want a trigger of bugbot", p.Action, got)
	}
	after = RecordTriggers(after, []TriggerResult{{Engine: "bugbot", SHA: sha1}}, t0.Add(2*time.Hour))
	// The old notice is superseded by our trigger: the engine is awaited.
	p, _ = Decide(after, obs(sha1, 2*time.Hour+time.Minute, quotaView(notice, 0), cop), cfg)
	if p.Action != ActionWait || report(t, p, "bugbot").State != Triggered {
		t.Fatalf("after retrigger: %s, bugbot %+v", p.Action, report(t, p, "bugbot"))
	}

	// A hand-back for another reason meanwhile names the quota.
	bound := st2.Clone()
	bound.Commits = cfg.MaxCommits
	p, _ = Decide(bound, obs(sha1, 10*time.Minute, quotaView(notice, 0), cop), cfg)
	wantAction(t, p, ActionHandBack, EndBound)
	if r := report(t, p, "bugbot"); r.Verdict != VerdictErrored || !strings.Contains(r.Note, "quota") || !strings.Contains(r.Note, "until") {
		t.Fatalf("hand-back names no quota: %+v", r)
	}
}

func TestRule_T8_OtherEnginesGoOnDuringTheCooldown(t *testing.T) {
	st := active(sha1, "bugbot", "copilot")
	cop := done("copilot", sha1, 30, f(7))
	p, _ := Decide(st, obs(sha1, 6*time.Minute, quotaView(t0.Add(5*time.Minute), 0), cop), DefaultConfig())
	if p.Action != ActionFix || !equalInts(triageIDs(p), []int64{7}) {
		t.Fatalf("plan %s %v, want the other engine's finding fixed", p.Action, triageIDs(p))
	}
}

func TestRule_T8_QuotaOnTriggerIsRecordedNotAnError(t *testing.T) {
	st := active(sha1, "copilot")
	es := st.EngineStates["copilot"]
	es.TriggeredSHA = ""
	st.EngineStates["copilot"] = es
	now := t0.Add(time.Minute)
	st = RecordTriggers(st, []TriggerResult{{Engine: "copilot", SHA: sha1, Quota: &QuotaNotice{At: now, Text: "429 quota exceeded"}}}, now)
	es = st.EngineStates["copilot"]
	if es.ConsecutiveErrors != 0 || !es.QuotaUntil.Equal(now.Add(time.Hour)) || es.Mark != "" {
		t.Fatalf("state after a quota trigger: %+v", es)
	}
	p, _ := Decide(st, obs(sha1, 2*time.Minute, none("copilot")), DefaultConfig())
	if len(p.Triggers) > 0 || report(t, p, "copilot").Verdict != VerdictErrored {
		t.Fatalf("during the cooldown: %s %v %+v", p.Action, triggered(p), report(t, p, "copilot"))
	}
	p, _ = Decide(st, obs(sha1, 62*time.Minute, none("copilot")), DefaultConfig())
	if got := triggered(p); len(got) != 1 {
		t.Fatalf("after the cooldown: %s %v, want copilot triggered", p.Action, got)
	}
}

// TestRule_S3_OneImplementationForDecideAndStatus runs the same views
// through Decide (classify) and IsClean (status): a material that is not
// OK is never clean on either path.
func TestRule_S3_OneImplementationForDecideAndStatus(t *testing.T) {
	for _, m := range []Material{MaterialSilent, MaterialNoop, MaterialDraft, MaterialErrored, MaterialUnproven, MaterialQuota, MaterialPending, MaterialOK} {
		t.Run(string(m), func(t *testing.T) {
			st := active(sha1, "claude")
			v := done("claude", sha1, 10)
			v.Material = m
			p, _ := Decide(st, obs(sha1, time.Minute, v), DefaultConfig())
			decided := report(t, p, "claude").Verdict == VerdictClean
			status, _ := IsClean(st, v, sha1)
			if want := m == MaterialOK; decided != want || status != want {
				t.Fatalf("material %s: Decide clean %v, IsClean %v, want %v", m, decided, status, want)
			}
		})
	}
}

func TestRule_T8_NoRetriggerAfterAPushDuringTheCooldown(t *testing.T) {
	st := active(sha1, "bugbot", "copilot")
	es := st.EngineStates["bugbot"]
	es.QuotaUntil, es.QuotaNote = t0.Add(time.Hour), "usage limit reached"
	st.EngineStates["bugbot"] = es
	views := []EngineView{none("bugbot"), none("copilot")}
	reqs := RetriggerAfterPushAt(st, views, sha2, DefaultConfig(), t0.Add(10*time.Minute))
	if len(reqs) != 1 || reqs[0].Engine != "copilot" {
		t.Fatalf("during the cooldown: %+v, want only copilot", reqs)
	}
	if reqs := RetriggerAfterPushAt(st, views, sha2, DefaultConfig(), t0.Add(time.Hour)); len(reqs) != 2 {
		t.Fatalf("after the cooldown: %+v, want both", reqs)
	}
}

func TestRule_T8_AReviewOfTheHeadEndsTheCooldown(t *testing.T) {
	st := active(sha1, "copilot")
	es := st.EngineStates["copilot"]
	es.QuotaUntil, es.QuotaNote = t0.Add(time.Hour), "429"
	st.EngineStates["copilot"] = es
	p, next := Decide(st, obs(sha1, 10*time.Minute, done("copilot", sha1, 30)), DefaultConfig())
	wantAction(t, p, ActionHandBack, EndClean)
	if !next.EngineStates["copilot"].QuotaUntil.IsZero() {
		t.Fatalf("cooldown kept after a review of the head: %+v", next.EngineStates["copilot"])
	}
}
