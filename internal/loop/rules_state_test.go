package loop

import (
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_S1_ReviewStateFollowsSignalAndOurTrigger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		es   state.EngineState
		sig  Signal
		want ReviewState
	}{
		{"no signal and nothing fired is NOT_TRIGGERED", state.EngineState{}, SignalNone, NotTriggered},
		{"no signal after firing for the head is TRIGGERED", state.EngineState{TriggeredSHA: sha1}, SignalNone, Triggered},
		{"a trigger for an older SHA does not count for the head", state.EngineState{TriggeredSHA: sha2}, SignalNone, NotTriggered},
		{"a queued or running check is RUNNING", state.EngineState{TriggeredSHA: sha1}, SignalRunning, Running},
		{"a running check we did not fire is RUNNING", state.EngineState{}, SignalRunning, Running},
		{"a completed check is DONE", state.EngineState{}, SignalDone, Done},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ReviewStateOf(tt.es, EngineView{Signal: tt.sig}, sha1); got != tt.want {
				t.Errorf("ReviewStateOf = %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("Decide saves the derived state per engine", func(t *testing.T) {
		t.Parallel()
		_, st := Decide(active(sha1, "bugbot", "copilot"), obs(sha1, 0, running("bugbot"), none("copilot")), DefaultConfig())
		if got := st.EngineStates["bugbot"].Review; got != state.ReviewRunning {
			t.Errorf("bugbot review = %s, want RUNNING", got)
		}
		if got := st.EngineStates["copilot"].Review; got != state.ReviewTriggered {
			t.Errorf("copilot review = %s, want TRIGGERED", got)
		}
	})
}

func TestRule_S2_ACheckRunConclusionIsNeverAVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		view   EngineView
		action Action
		want   EngineVerdict
	}{
		{"a completed check with findings is not clean", done("bugbot", sha1, 10, f(100)), ActionFix, VerdictStillFinding},
		{"a completed check that errored is not clean", func() EngineView {
			v := done("bugbot", sha1, 10)
			v.Material, v.MaterialNote = MaterialErrored, "Copilot encountered an error"
			return v
		}(), ActionHandBack, VerdictErrored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := Decide(active(sha1, "bugbot"), obs(sha1, 0, tt.view), DefaultConfig())
			if p.Action != tt.action || p.EndReason == EndClean {
				t.Fatalf("plan %s/%s, want %s and never clean", p.Action, p.EndReason, tt.action)
			}
			if got := report(t, p, "bugbot").Verdict; got != tt.want {
				t.Errorf("verdict %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRule_S3_CleanIsDoneWithZeroActiveFindings(t *testing.T) {
	t.Parallel()
	withMaterial := func(m Material) EngineView {
		v := done("bugbot", sha1, 10)
		v.Material = m
		return v
	}
	prose := done("claude", sha1, 10)
	prose.Prose = true
	tests := []struct {
		name      string
		view      EngineView
		clean     bool
		whyPrefix string
	}{
		{"DONE with no findings is clean", done("bugbot", sha1, 10), true, ""},
		{"DONE with an active finding is not clean", done("bugbot", sha1, 10, f(1)), false, "1 active"},
		{"a finding of an older review does not count", done("bugbot", sha1, 10, Finding{CommentID: 1, ReviewID: 9}), true, ""},
		{"RUNNING is not clean", running("bugbot"), false, "not DONE"},
		{"SILENT material is never clean", withMaterial(MaterialSilent), false, "review material SILENT"},
		{"NOOP material is never clean", withMaterial(MaterialNoop), false, "review material NOOP"},
		{"DRAFT material is never clean", withMaterial(MaterialDraft), false, "review material DRAFT"},
		{"ERRORED material is never clean", withMaterial(MaterialErrored), false, "review material ERRORED"},
		{"a prose engine without a judge verdict is never clean and says why", prose, false, "no judge verdict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clean, why := IsClean(active(sha1, tt.view.Engine), tt.view, sha1)
			if clean != tt.clean || !strings.HasPrefix(why, tt.whyPrefix) {
				t.Errorf("IsClean = %v %q, want %v %q…", clean, why, tt.clean, tt.whyPrefix)
			}
		})
	}
	t.Run("all engines clean ends the loop clean", func(t *testing.T) {
		t.Parallel()
		p, st := Decide(active(sha1, "bugbot", "copilot"), obs(sha1, 0, done("bugbot", sha1, 10), done("copilot", sha1, 11)), DefaultConfig())
		wantAction(t, p, ActionHandBack, EndClean)
		if st.Status != state.StatusDone || st.EndReason != "clean" {
			t.Errorf("state %s/%s", st.Status, st.EndReason)
		}
	})
}

func TestRule_ST1_SingleVerdictOnlyTheLatestReviewIsActive(t *testing.T) {
	t.Parallel()
	v := done("bugbot", sha2, 20,
		Finding{CommentID: 1, ReviewID: 10, ReviewSHA: sha1}, // older review: stale
		Finding{CommentID: 2},                                // latest review
		Finding{CommentID: 3, Resolved: true},                // latest, resolved
	)
	tests := []struct {
		name string
		v    EngineView
		want []int64
	}{
		{"only findings of the latest review id are active", v, []int64{2}},
		{"no review means no active finding", EngineView{Findings: []Finding{{CommentID: 5, ReviewID: 0}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []int64
			for _, f := range ActiveFindings(tt.v, sha2) {
				got = append(got, f.CommentID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("active = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRule_ST2_MultiVerdictKeepsEverySubstantiveVerdictForTheHead(t *testing.T) {
	t.Parallel()
	base := EngineView{Engine: "claude", MultiVerdict: true}
	tests := []struct {
		name  string
		build func() EngineView
		want  []int64
	}{
		{"a newer clean verdict does not retire an older findings-bearing one", func() EngineView {
			v := base
			v.Reviews = []ReviewRef{{ID: 1, SHA: sha1, Substantive: true, At: t0}, {ID: 2, SHA: sha1, Substantive: true, At: t0.Add(1)}}
			v.LatestReviewID = 2
			v.Findings = []Finding{{CommentID: 11, ReviewID: 1, ReviewSHA: sha1}}
			return v
		}, []int64{11}},
		{"both verdicts' findings for the head stay active", func() EngineView {
			v := base
			v.Findings = []Finding{{CommentID: 11, ReviewID: 1, ReviewSHA: sha1}, {CommentID: 12, ReviewID: 2, ReviewSHA: sha1}}
			return v
		}, []int64{11, 12}},
		{"latest wins across SHAs", func() EngineView {
			v := base
			v.Reviews = []ReviewRef{{ID: 1, SHA: sha2, Substantive: true, At: t0}, {ID: 2, SHA: sha3, Substantive: true, At: t0.Add(5)}}
			v.Findings = []Finding{{CommentID: 11, ReviewID: 1, ReviewSHA: sha2}, {CommentID: 12, ReviewID: 2, ReviewSHA: sha3}}
			return v
		}, []int64{12}},
		{"the head SHA's verdicts beat older SHAs", func() EngineView {
			v := base
			v.Verdicts = []Verdict{{ReviewID: 1, SHA: sha2, Substantive: true, At: t0.Add(9)}, {ReviewID: 2, SHA: sha1, Substantive: true, At: t0}}
			v.Findings = []Finding{{CommentID: 11, ReviewID: 1, ReviewSHA: sha2}}
			return v
		}, nil},
		{"a resolved finding is not active", func() EngineView {
			v := base
			v.Findings = []Finding{{CommentID: 11, ReviewID: 1, ReviewSHA: sha1, Resolved: true}}
			return v
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []int64
			for _, f := range ActiveFindings(tt.build(), sha1) {
				got = append(got, f.CommentID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("active = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRule_ST3_AFindingThatMovedIsTheSameFinding(t *testing.T) {
	t.Parallel()
	moved := f(100)
	moved.Line = 77
	t.Run("one comment listed twice counts once", func(t *testing.T) {
		t.Parallel()
		got := ActiveFindings(done("bugbot", sha1, 10, f(100), moved), sha1)
		if len(got) != 1 {
			t.Fatalf("active = %+v, want one finding", got)
		}
	})
	t.Run("a triaged finding that moved lines is not triaged again", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot")
		st.Triage = []state.TriageRow{{FindingID: "f-100", Engine: "bugbot", CommentID: 100, Tier: 3, Outcome: OutcomeEscalated}}
		p, _ := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, moved)), DefaultConfig())
		wantAction(t, p, ActionHandBack, EndNoFixes)
		if len(p.Triage) != 0 {
			t.Errorf("triage = %v, want none", triageIDs(p))
		}
	})
}

func TestRule_J2_OnlyBlockingKeepsTheLoopGoing(t *testing.T) {
	t.Parallel()
	prose := done("claude", sha1, 10, f(5))
	prose.Prose, prose.VerdictSetProven = true, true
	tests := []struct {
		name    string
		verdict JudgeVerdict
		action  Action
		end     EndReason
		want    EngineVerdict
	}{
		{"NON_BLOCKING counts as clean", JudgeNonBlocking, ActionHandBack, EndClean, VerdictClean},
		{"CLEAN with a proven verdict set is clean", JudgeClean, ActionHandBack, EndClean, VerdictClean},
		{"BLOCKING sends the engine's findings to triage", JudgeBlocking, ActionFix, "", VerdictStillFinding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := obs(sha1, 0, prose)
			o.Judge = map[string]JudgeResult{"claude": {Verdict: tt.verdict, Items: []Finding{{ID: "nb-1", Title: "rename x"}}}}
			p, st := Decide(active(sha1, "claude"), o, DefaultConfig())
			wantAction(t, p, tt.action, tt.end)
			if got := report(t, p, "claude"); got.Verdict != tt.want || got.Judge != tt.verdict {
				t.Errorf("report %+v", got)
			}
			if tt.verdict == JudgeNonBlocking && (len(st.NonBlocking) != 1 || st.NonBlocking[0].ID != "nb-1") {
				t.Errorf("non-blocking items = %+v", st.NonBlocking)
			}
			if tt.verdict == JudgeBlocking && !slices.Equal(triageIDs(p), []int64{0, 5}) {
				t.Errorf("triage = %v, want the finding and the judge's item", triageIDs(p))
			}
		})
	}
}

func TestRule_J3_FailClosed(t *testing.T) {
	t.Parallel()
	prose := done("claude", sha1, 10)
	prose.Prose = true
	t.Run("CLEAN is refused when the verdict set is not proven", func(t *testing.T) {
		t.Parallel()
		o := obs(sha1, 0, prose)
		o.Judge = map[string]JudgeResult{"claude": {Verdict: JudgeClean}}
		p, st := Decide(active(sha1, "claude"), o, DefaultConfig())
		wantAction(t, p, ActionHandBack, EndNoFixes)
		r := report(t, p, "claude")
		if r.Verdict != VerdictStillFinding || !strings.Contains(r.Note, "J3") {
			t.Errorf("report %+v", r)
		}
		if st.EngineStates["claude"].Judge.Verdict != "" {
			t.Errorf("cached verdict %q, want none", st.EngineStates["claude"].Judge.Verdict)
		}
	})
	t.Run("no judge means never clean and the report says why", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(active(sha1, "claude"), obs(sha1, 0, prose), DefaultConfig())
		r := report(t, p, "claude")
		if p.EndReason == EndClean || r.Verdict != VerdictStillFinding || !strings.Contains(r.Note, "no judge") {
			t.Errorf("plan %s, report %+v", p.EndReason, r)
		}
	})
}

func TestRule_J4_JudgeVerdictIsCachedPerHeadSHA(t *testing.T) {
	t.Parallel()
	prose := done("claude", sha1, 10)
	prose.Prose, prose.VerdictSetProven = true, true
	judged := RecordJudge(active(sha1, "claude"), prose, sha1, JudgeResult{Verdict: JudgeClean})
	newMaterial := prose
	newMaterial.LatestReviewID = 11
	running := prose
	running.Signal = SignalRunning
	silent := prose
	silent.Material = MaterialSilent
	structured := done("bugbot", sha1, 10)
	onSha2 := prose
	onSha2.Proof = &Proof{Kind: "review", SHA: sha2, ID: 12}
	unproven := prose
	unproven.Proof = nil
	tests := []struct {
		name string
		st   state.State
		v    EngineView
		head string
		want bool
	}{
		{"a DONE prose engine with no verdict needs the judge", active(sha1, "claude"), prose, sha1, true},
		{"a cached verdict for the same SHA and material is reused", judged, prose, sha1, false},
		{"a new head SHA needs a new verdict", judged, onSha2, sha2, true},
		{"no judge for a head the engine has not proven it reviewed (S8)", judged, prose, sha2, false},
		{"an unproven engine is not judged (S8)", active(sha1, "claude"), unproven, sha1, false},
		{"new material needs a new verdict", judged, newMaterial, sha1, true},
		{"a running engine is not judged", active(sha1, "claude"), running, sha1, false},
		{"silent material is not judged", active(sha1, "claude"), silent, sha1, false},
		{"a structured engine is never judged", active(sha1, "bugbot"), structured, sha1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := NeedsJudge(tt.st, tt.v, tt.head); got != tt.want {
				t.Errorf("NeedsJudge = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("Decide uses the cached verdict without a new one", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(judged, obs(sha1, 0, prose), DefaultConfig())
		wantAction(t, p, ActionHandBack, EndClean)
	})
}

func TestRule_E9_StaleThreadsAreOpenInactiveFindingsThatNoLongerAppear(t *testing.T) {
	t.Parallel()
	v := done("bugbot", sha2, 20,
		Finding{CommentID: 1, ReviewID: 10, ReviewSHA: sha1, ThreadID: "T1"},                 // older review: stale
		Finding{CommentID: 2, ThreadID: "T2"},                                                // latest review: active
		Finding{CommentID: 3, ReviewID: 10, ReviewSHA: sha1, ThreadID: "T3", Resolved: true}, // already resolved
		Finding{CommentID: 4, ReviewID: 10, ReviewSHA: sha1, ThreadID: "T4", Key: "bug-7"},   // re-posted below: still appears
		Finding{CommentID: 5, ThreadID: "T5", Key: "bug-7"},                                  // the re-post, active
		Finding{CommentID: 6, ReviewID: 10, ReviewSHA: sha1},                                 // body-only: no thread
	)
	var got []int64
	for _, f := range StaleFindings(v, sha2) {
		got = append(got, f.CommentID)
	}
	if !slices.Equal(got, []int64{1}) {
		t.Errorf("stale = %v, want [1]", got)
	}
}
