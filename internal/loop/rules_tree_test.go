package loop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_W1_DecisionTreeInOrder(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	attempted := func(st state.State) state.State {
		st.NoProgress = map[string]map[string]int{"bugbot": {"cat-100": 1}}
		return st
	}
	tests := []struct {
		name   string
		st     func() state.State
		views  []EngineView
		action Action
		end    EndReason
		why    string
	}{
		{"a: the commit bound hands back before anything else", func() state.State {
			st := active(sha1, "bugbot", "copilot")
			st.Commits = cfg.MaxCommits
			return st
		}, []EngineView{done("bugbot", sha1, 10, f(100)), none("copilot")}, ActionHandBack, EndBound, "B1"},
		{"a: the active-time bound hands back before anything else", func() state.State {
			st := active(sha1, "bugbot")
			st.ActiveSeconds = int64(cfg.MaxActiveMinutes) * 60
			return st
		}, []EngineView{none("bugbot")}, ActionHandBack, EndBound, "B2"},
		{"b: no-progress hands back before triggering", func() state.State {
			st := attempted(active(sha1, "bugbot", "copilot"))
			st.EngineStates["copilot"] = state.EngineState{}
			return st
		}, []EngineView{done("bugbot", sha1, 10, f(100)), none("copilot")}, ActionHandBack, EndNoProgress, "W2"},
		{"c: a NOT_TRIGGERED engine is triggered before fixing another's findings", func() state.State {
			st := active(sha1, "bugbot", "copilot")
			st.EngineStates["copilot"] = state.EngineState{}
			return st
		}, []EngineView{done("bugbot", sha1, 10, f(100)), none("copilot")}, ActionTrigger, "", "T1/T2"},
		{"d: a RUNNING engine makes the loop wait", func() state.State { return active(sha1, "bugbot", "copilot") },
			[]EngineView{done("bugbot", sha1, 10, f(100)), running("copilot")}, ActionWait, "", "W1(d)"},
		{"e: a prose engine's BLOCKING verdict stands in for its findings", func() state.State {
			st := active(sha1, "claude")
			st.EngineStates["claude"] = state.EngineState{TriggeredSHA: sha1, Judge: &state.JudgeCache{
				Verdict: "BLOCKING", SHA: sha1, Material: materialKey(proseView(), sha1),
				Items: []state.Item{{ID: "claude-1", Title: "nil map"}}}}
			return st
		}, []EngineView{proseView()}, ActionFix, "", "W1(f)"},
		{"f: every engine DONE with new findings goes to triage", func() state.State { return active(sha1, "bugbot", "copilot") },
			[]EngineView{done("bugbot", sha1, 10, f(100)), done("copilot", sha1, 11)}, ActionFix, "", "W1(f)"},
		{"g: every engine DONE and clean ends clean", func() state.State { return active(sha1, "bugbot", "copilot") },
			[]EngineView{done("bugbot", sha1, 10), done("copilot", sha1, 11)}, ActionHandBack, EndClean, "W1(g)"},
		{"g: residual findings already triaged end with no-fixes", func() state.State {
			st := active(sha1, "bugbot")
			st.Triage = []state.TriageRow{{FindingID: "f-100", Engine: "bugbot", CommentID: 100, Tier: 3, Outcome: OutcomeEscalated}}
			return st
		}, []EngineView{done("bugbot", sha1, 10, f(100))}, ActionHandBack, EndNoFixes, "residual"},
		{"g: only ERRORED engines end with error", func() state.State { return active(sha1, "bugbot") },
			[]EngineView{func() EngineView { v := done("bugbot", sha1, 10); v.Material = MaterialErrored; return v }()},
			ActionHandBack, EndError, "ERRORED"},
		{"g: an engine HUNG earlier at this head ends with bound, not error", func() state.State {
			st := active(sha1, "bugbot", "copilot")
			st.EngineStates["copilot"] = state.EngineState{TriggeredSHA: sha1, Mark: state.MarkHung, MarkSHA: sha1, MarkNote: "stalled (T4)"}
			return st
		}, []EngineView{done("bugbot", sha1, 10), running("copilot")}, ActionHandBack, EndBound, "copilot HUNG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := Decide(tt.st(), obs(sha1, time.Minute, tt.views...), cfg)
			wantAction(t, p, tt.action, tt.end)
			if !strings.Contains(p.Why, tt.why) {
				t.Errorf("why %q, want it to mention %q", p.Why, tt.why)
			}
		})
	}
	t.Run("f: the fix plan lists the new findings and starts an iteration", func(t *testing.T) {
		t.Parallel()
		p, st := Decide(active(sha1, "bugbot", "copilot"), obs(sha1, 0, done("copilot", sha1, 11, f(300)), done("bugbot", sha1, 10, f(200), f(100))), cfg)
		if !slices.Equal(triageIDs(p), []int64{100, 200, 300}) || st.Iteration != 1 {
			t.Errorf("triage %v, iteration %d", triageIDs(p), st.Iteration)
		}
		if !slices.Contains(eventNames(p.Events), state.EventIterStart) || st.EngineStates["bugbot"].Cycles != 1 {
			t.Errorf("events %v, bugbot cycles %d", eventNames(p.Events), st.EngineStates["bugbot"].Cycles)
		}
	})
	t.Run("f: a fork PR is report-only", func(t *testing.T) {
		t.Parallel()
		o := obs(sha1, 0, done("bugbot", sha1, 10, f(100)))
		o.IsFork = true
		p, _ := Decide(active(sha1, "bugbot"), o, cfg)
		wantAction(t, p, ActionHandBack, EndNoFixes)
		if len(p.Triage) != 1 {
			t.Errorf("triage %v, want the finding listed for the report", triageIDs(p))
		}
	})
	t.Run("a PR that is not open stops the loop", func(t *testing.T) {
		t.Parallel()
		o := obs(sha1, 0, done("bugbot", sha1, 10))
		o.PRState = "MERGED"
		p, _ := Decide(active(sha1, "bugbot"), o, cfg)
		wantAction(t, p, ActionHandBack, EndStopped)
		if p.Why != "PR #7 is not OPEN — current state: MERGED" {
			t.Errorf("why %q", p.Why)
		}
	})
}

func proseView() EngineView {
	v := done("claude", sha1, 10)
	v.Prose, v.MultiVerdict, v.VerdictSetProven = true, true, true
	return v
}

func TestRule_W2_NoProgress(t *testing.T) {
	t.Parallel()
	keyed := f(200)
	keyed.Key = "bug-uuid-1"
	tests := []struct {
		name string
		np   map[string]map[string]int
		find Finding
		want EndReason
	}{
		{"a category flagged again after an attempted fix hands back", map[string]map[string]int{"bugbot": {"cat-100": 1}}, f(100), EndNoProgress},
		{"the engine's stable key is the category when it has one", map[string]map[string]int{"bugbot": {"bug-uuid-1": 1}}, keyed, EndNoProgress},
		{"the same category from another engine is not a repeat", map[string]map[string]int{"copilot": {"cat-100": 1}}, f(100), ""},
		{"a category never attempted is not a repeat", nil, f(100), ""},
		{"a count migrated from version 0 counts for every engine", map[string]map[string]int{state.LegacyEngine: {"cat-100": 1}}, f(100), EndNoProgress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := active(sha1, "bugbot")
			st.NoProgress = tt.np
			p, _ := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, tt.find)), DefaultConfig())
			if p.EndReason != tt.want {
				t.Errorf("end %q (%s), want %q", p.EndReason, p.Why, tt.want)
			}
		})
	}
	t.Run("only attempted fixes (kept or reverted) count, once per cycle", func(t *testing.T) {
		t.Parallel()
		st := RecordFixCycle(active(sha1, "bugbot"), FixResult{Rows: []state.TriageRow{
			{FindingID: "a", Engine: "bugbot", CommentID: 1, Key: "k1", Tier: 1, Outcome: OutcomeFixed},
			{FindingID: "b", Engine: "bugbot", CommentID: 2, Key: "k1", Tier: 1, Outcome: OutcomeReverted},
			{FindingID: "c", Engine: "bugbot", CommentID: 3, Key: "k2", Tier: 3, Outcome: OutcomeEscalated},
		}}, t0)
		if got := st.NoProgress["bugbot"]; got["k1"] != 1 || got["k2"] != 0 {
			t.Errorf("no-progress %v, want k1 once and no k2", got)
		}
	})
}

func TestRule_W3_NewPushDetection(t *testing.T) {
	t.Parallel()
	t.Run("an outside push restarts the idle clock and puts every engine back to NOT_TRIGGERED", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot", "copilot")
		st.IdleSince = t0.Add(-30 * time.Minute)
		st.LastPushSHA = sha1
		es := st.EngineStates["bugbot"]
		es.Mark, es.MarkSHA = state.MarkHung, sha1
		st.EngineStates["bugbot"] = es
		p, st2 := Decide(st, obs(sha2, 0, none("bugbot"), none("copilot")), DefaultConfig())
		wantAction(t, p, ActionTrigger, "")
		if !slices.Equal(triggered(p), []string{"bugbot", "copilot"}) || !st2.IdleSince.Equal(t0) || st2.LastObservedSHA != sha2 {
			t.Errorf("triggers %v, idle since %v, observed %s", triggered(p), st2.IdleSince, st2.LastObservedSHA)
		}
		if st2.EngineStates["bugbot"].Mark != "" || len(p.Notices) == 0 || !strings.Contains(p.Notices[0], "outside push") {
			t.Errorf("mark %q, notices %v", st2.EngineStates["bugbot"].Mark, p.Notices)
		}
	})
	t.Run("our own push is not an outside push but restarts the idle clock", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot")
		st.IdleSince = t0.Add(-30 * time.Minute)
		st = RecordPush(st, sha2)
		st = RecordTriggers(st, []TriggerResult{{Engine: "bugbot", SHA: sha2, SignalID: 99}}, t0)
		p, st2 := Decide(st, obs(sha2, 0, none("bugbot")), DefaultConfig())
		wantAction(t, p, ActionWait, "")
		if !st2.IdleSince.Equal(t0) || len(p.Notices) != 0 || st2.Commits != 1 {
			t.Errorf("idle since %v, notices %v, commits %d", st2.IdleSince, p.Notices, st2.Commits)
		}
	})
	t.Run("the same head as last cycle is no push", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot")
		st.IdleSince = t0.Add(-30 * time.Minute)
		_, st2 := Decide(st, obs(sha1, 0, running("bugbot")), DefaultConfig())
		if !st2.IdleSince.Equal(st.IdleSince) {
			t.Errorf("idle since %v, want %v (unchanged)", st2.IdleSince, st.IdleSince)
		}
	})
}

func TestRule_E5_WriteAheadPendingPush(t *testing.T) {
	t.Parallel()
	base := active(sha1, "bugbot", "copilot")
	pending := RecordPendingPush(base, sha2)
	if pending.PendingPushSHA != sha2 {
		t.Fatalf("pending %q", pending.PendingPushSHA)
	}
	t.Run("a run killed between push and save is not mistaken for an outside push", func(t *testing.T) {
		t.Parallel()
		p, st := Decide(pending, obs(sha2, 0, none("bugbot"), none("copilot")), DefaultConfig())
		if st.LastPushSHA != sha2 || st.PendingPushSHA != "" || st.Commits != 1 || len(p.Notices) != 0 {
			t.Errorf("last %s pending %q commits %d notices %v", st.LastPushSHA, st.PendingPushSHA, st.Commits, p.Notices)
		}
		if !slices.Equal(triggered(p), []string{"bugbot", "copilot"}) {
			t.Errorf("triggers %v: engines not yet retriggered for the push are triggered once", triggered(p))
		}
	})
	t.Run("a retrigger already recorded is not repeated", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(pending, []TriggerResult{{Engine: "bugbot", SHA: sha2, SignalID: 5}, {Engine: "copilot", SHA: sha2}}, t0)
		p, st2 := Decide(st, obs(sha2, 0, none("bugbot"), none("copilot")), DefaultConfig())
		wantAction(t, p, ActionWait, "")
		if st2.Commits != 1 {
			t.Errorf("commits %d, want the push counted once", st2.Commits)
		}
	})
	t.Run("a completed save is not counted twice", func(t *testing.T) {
		t.Parallel()
		st := RecordPush(pending, sha2)
		_, st2 := Decide(st, obs(sha2, 0, none("bugbot"), none("copilot")), DefaultConfig())
		if st2.Commits != 1 || st2.PendingPushSHA != "" {
			t.Errorf("commits %d pending %q", st2.Commits, st2.PendingPushSHA)
		}
	})
}

func TestRule_W4_CopilotOnlyMode(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.CopilotOnly = true
	fresh := func() state.State {
		st := state.New()
		st.Status, st.StartedAt, st.LastObservedSHA = state.StatusActive, t0, sha1
		return st
	}
	t.Run("the first cycle with no prior review waits without push or retrigger", func(t *testing.T) {
		t.Parallel()
		p, st := Decide(fresh(), obs(sha1, 0, none("copilot")), cfg)
		wantAction(t, p, ActionWait, "")
		if len(p.Triggers) != 0 || p.Wait != cfg.WaitInitial || !st.EngineStates["copilot"].InitialWaitDone {
			t.Errorf("triggers %v wait %s", triggered(p), p.Wait)
		}
		p, _ = Decide(st, obs(sha1, cfg.WaitInitial, none("copilot")), cfg)
		if !slices.Equal(triggered(p), []string{"copilot"}) {
			t.Errorf("second cycle triggers %v, want copilot", triggered(p))
		}
	})
	t.Run("no review within poll-timeout of the retrigger ends with timeout", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(fresh(), []TriggerResult{{Engine: "copilot", SHA: sha1}}, t0.Add(time.Hour))
		p, _ := Decide(st, obs(sha1, time.Hour+cfg.PollTimeout-time.Second, none("copilot")), cfg)
		wantAction(t, p, ActionWait, "")
		p, st2 := Decide(st, obs(sha1, time.Hour+cfg.PollTimeout, none("copilot")), cfg)
		wantAction(t, p, ActionHandBack, EndTimeout)
		if !slices.Contains(eventNames(st2.Events), state.EventTimeout) {
			t.Errorf("events %v", eventNames(st2.Events))
		}
	})
	t.Run("a new review is one with an id above the last seen", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(fresh(), []TriggerResult{{Engine: "copilot", SHA: sha1}}, t0)
		es := st.EngineStates["copilot"]
		es.LastSeenReviewID = 10
		st.EngineStates["copilot"] = es
		p, st2 := Decide(st, obs(sha1, time.Minute, done("copilot", sha1, 11, f(5))), cfg)
		wantAction(t, p, ActionFix, "")
		if !slices.Contains(eventNames(p.Events), state.EventReviewDetected) || st2.EngineStates["copilot"].LastSeenReviewID != 11 {
			t.Errorf("events %v", eventNames(p.Events))
		}
	})
	t.Run("a review with no comments ends with no-comments", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(fresh(), []TriggerResult{{Engine: "copilot", SHA: sha1}}, t0)
		p, _ := Decide(st, obs(sha1, time.Minute, done("copilot", sha1, 11)), cfg)
		wantAction(t, p, ActionHandBack, EndNoComments)
	})
	t.Run("the iteration cap ends with max-iterations", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(fresh(), []TriggerResult{{Engine: "copilot", SHA: sha1}}, t0)
		st.Iteration = cfg.MaxIterations
		p, _ := Decide(st, obs(sha1, time.Minute, done("copilot", sha1, 11, f(5))), cfg)
		wantAction(t, p, ActionHandBack, EndMaxIterations)
	})
	t.Run("only OUTDATED and DISAGREE replies end with no-fixes", func(t *testing.T) {
		t.Parallel()
		st := RecordFixCycle(fresh(), FixResult{Rows: []state.TriageRow{
			{FindingID: "a", Engine: "copilot", CommentID: 1, Outcome: OutcomeOutdated},
			{FindingID: "b", Engine: "copilot", CommentID: 2, Outcome: OutcomeDisagreed},
		}}, t0)
		if st.Status != state.StatusDone || st.EndReason != string(EndNoFixes) || st.Totals.Outdated != 1 || st.Totals.Disagreed != 1 {
			t.Errorf("status %s/%s totals %+v", st.Status, st.EndReason, st.Totals)
		}
	})
}
