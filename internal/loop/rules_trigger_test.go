package loop

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_T1_AnEngineNotTriggeredIsTriggeredOnce(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	st.EngineStates["bugbot"] = state.EngineState{}
	p, st := Decide(st, obs(sha1, 0, none("bugbot")), DefaultConfig())
	if !slices.Equal(triggered(p), []string{"bugbot"}) || p.Triggers[0].SHA != sha1 {
		t.Fatalf("triggers %+v", p.Triggers)
	}
	st = RecordTriggers(st, []TriggerResult{{Engine: "bugbot", SHA: sha1, SignalID: 4242}}, t0)
	t.Run("the trigger's signal id is recorded", func(t *testing.T) {
		t.Parallel()
		es := st.EngineStates["bugbot"]
		if es.SignalID != 4242 || es.TriggeredSHA != sha1 || es.Review != state.ReviewTriggered {
			t.Errorf("engine state %+v", es)
		}
		if got := eventNames(st.Events); !slices.Contains(got, state.EventRetrigger) {
			t.Errorf("events %v", got)
		}
	})
	t.Run("the next wake waits instead of triggering again", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(st, obs(sha1, time.Minute, none("bugbot")), DefaultConfig())
		wantAction(t, p, ActionWait, "")
	})
}

func TestRule_T2_ATriggerOnlyCycleDoesNothingElse(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot", "copilot")
	st.EngineStates["copilot"] = state.EngineState{}
	p, st2 := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1)), none("copilot")), DefaultConfig())
	wantAction(t, p, ActionTrigger, "")
	if len(p.Triage) != 0 || st2.Iteration != 0 || p.Wait != DefaultConfig().PollInterval {
		t.Errorf("triage %v iteration %d wait %s", triageIDs(p), st2.Iteration, p.Wait)
	}
}

func TestRule_T3_NeverRetriggerARunningEngineNorOnABareWake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		view EngineView
		es   state.EngineState
	}{
		{"a RUNNING engine we never triggered is not triggered", running("bugbot"), state.EngineState{}},
		{"a bare wake on a triggered engine does not retrigger", none("bugbot"), state.EngineState{TriggeredSHA: sha1, TriggeredAt: t0}},
		{"an engine whose trigger failed for this SHA is not retried by the loop", none("bugbot"), state.EngineState{TriggeredSHA: sha1, Mark: state.MarkErrored, MarkSHA: sha1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := active(sha1, "bugbot")
			st.EngineStates["bugbot"] = tt.es
			p, _ := Decide(st, obs(sha1, time.Minute, tt.view), DefaultConfig())
			if len(p.Triggers) != 0 {
				t.Errorf("triggers %v", triggered(p))
			}
		})
	}
}

func TestRule_T4_MultiEngineSyncAndItsEscapeHatches(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	t.Run("no fix while another engine is RUNNING", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(active(sha1, "bugbot", "claude"), obs(sha1, time.Minute, done("bugbot", sha1, 10, f(1)), running("claude")), cfg)
		wantAction(t, p, ActionWait, "")
	})
	t.Run("an engine stalled past 3x its normal latency is HUNG and the others go on", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot", "claude")
		_, st = Decide(st, obs(sha1, time.Minute, done("bugbot", sha1, 10, f(1)), running("claude")), cfg)
		at := 3*cfg.Latency("claude") + time.Second // TriggeredAt is t0
		p, st := Decide(st, obs(sha1, at, done("bugbot", sha1, 10, f(1)), running("claude")), cfg)
		wantAction(t, p, ActionFix, "")
		if r := report(t, p, "claude"); r.Verdict != VerdictHung || !strings.Contains(r.Note, "stalled") {
			t.Errorf("claude %+v", r)
		}
		if st.EngineStates["claude"].Mark != state.MarkHung {
			t.Errorf("mark %q", st.EngineStates["claude"].Mark)
		}
	})
	t.Run("a stalled engine with the others clean hands back with bound, not error", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot", "copilot")
		_, st = Decide(st, obs(sha1, time.Minute, done("bugbot", sha1, 10), running("copilot")), cfg)
		p, _ := Decide(st, obs(sha1, 3*cfg.Latency("copilot")+time.Minute, done("bugbot", sha1, 10), running("copilot")), cfg)
		wantAction(t, p, ActionHandBack, EndBound)
		if r := report(t, p, "copilot"); r.Verdict != VerdictHung {
			t.Errorf("copilot %+v", r)
		}
		if r := report(t, p, "bugbot"); r.Verdict != VerdictClean {
			t.Errorf("bugbot %+v", r)
		}
	})
	t.Run("not stalled at exactly 3x", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(active(sha1, "bugbot", "claude"), obs(sha1, 3*cfg.Latency("claude"), done("bugbot", sha1, 10, f(1)), running("claude")), cfg)
		wantAction(t, p, ActionWait, "")
	})
	t.Run("an engine errored twice in a row is ERRORED for the loop and the others go on", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot", "copilot")
		st = RecordTriggers(st, []TriggerResult{{Engine: "copilot", SHA: sha1, Err: "HTTP 502"}}, t0)
		st.EngineStates["copilot"] = func(es state.EngineState) state.EngineState { es.ConsecutiveErrors = 2; return es }(st.EngineStates["copilot"])
		p, _ := Decide(st, obs(sha1, time.Minute, done("bugbot", sha1, 10, f(1)), none("copilot")), cfg)
		wantAction(t, p, ActionFix, "")
		if r := report(t, p, "copilot"); r.Verdict != VerdictErrored || !strings.Contains(r.Note, "2 times in a row") {
			t.Errorf("copilot %+v", r)
		}
		if reqs := RetriggerAfterPush(st, []EngineView{none("bugbot"), none("copilot")}, sha2, cfg); len(reqs) != 1 || reqs[0].Engine != "bugbot" {
			t.Errorf("retrigger %v, want bugbot only", reqs)
		}
	})
	t.Run("an errored review counts once per SHA and a good one resets the count", func(t *testing.T) {
		t.Parallel()
		errored := done("copilot", sha1, 10)
		errored.Material, errored.SignalID = MaterialErrored, 77
		_, st := Decide(active(sha1, "copilot"), obs(sha1, 0, errored), cfg)
		st.Status = state.StatusActive
		_, st = Decide(st, obs(sha1, time.Minute, errored), cfg)
		if got := st.EngineStates["copilot"].ConsecutiveErrors; got != 1 {
			t.Errorf("errors %d, want 1", got)
		}
		st.Status = state.StatusActive
		_, st = Decide(st, obs(sha2, 2*time.Minute, done("copilot", sha2, 11)), cfg)
		if got := st.EngineStates["copilot"].ConsecutiveErrors; got != 0 {
			t.Errorf("errors %d after a good review, want 0", got)
		}
	})
}

func TestRule_T5_IdempotentRetrigger(t *testing.T) {
	t.Parallel()
	const body = "bugbot run"
	w := DefaultConfig().DuplicateWindow
	tests := []struct {
		name string
		last Comment
		want bool
	}{
		{"our identical trigger from a minute ago is skipped", Comment{Author: "review-loop[bot]", Body: body, CreatedAt: t0.Add(-time.Minute)}, true},
		{"our identical trigger from six minutes ago is not", Comment{Author: "review-loop", Body: body, CreatedAt: t0.Add(-6 * time.Minute)}, false},
		{"someone else's identical comment is not ours", Comment{Author: "alice", Body: body, CreatedAt: t0}, false},
		{"a different body is not a duplicate", Comment{Author: "review-loop", Body: "cursor review", CreatedAt: t0}, false},
		{"no last comment is no duplicate", Comment{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ShouldSkipDuplicateTrigger(active(sha1, "bugbot"), TriggerRequest{Engine: "bugbot", SHA: sha1}, tt.last, "review-loop", body, t0, w); got != tt.want {
				t.Errorf("skip = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("our recent trigger recorded for the previous head is no duplicate for the new head", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(active(sha1, "gemini"), []TriggerResult{{Engine: "gemini", SHA: sha1, SignalID: 42}}, t0)
		last := Comment{ID: 42, Author: "review-loop[bot]", Body: "/gemini review", CreatedAt: t0}
		now := t0.Add(2 * time.Minute)
		if ShouldSkipDuplicateTrigger(st, TriggerRequest{Engine: "gemini", SHA: sha2}, last, "review-loop", "/gemini review", now, w) {
			t.Error("the retrigger after a fix push was skipped")
		}
		if !ShouldSkipDuplicateTrigger(st, TriggerRequest{Engine: "gemini", SHA: sha1}, last, "review-loop", "/gemini review", now, w) {
			t.Error("a second trigger for the same head was not skipped")
		}
		// A run killed after triggering, before saving: the comment is not
		// the recorded trigger, so it may be for this head; skip it.
		last.ID = 43
		if !ShouldSkipDuplicateTrigger(st, TriggerRequest{Engine: "gemini", SHA: sha2}, last, "review-loop", "/gemini review", now, w) {
			t.Error("an unrecorded recent trigger was not skipped")
		}
	})
	t.Run("a skipped trigger is logged as retrigger-skipped recent-duplicate and counts as fired", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(active(sha1, "bugbot"), []TriggerResult{{Engine: "bugbot", SHA: sha2, Skipped: true}}, t0)
		ev := st.Events[len(st.Events)-1]
		if ev.Name != state.EventRetriggerSkipped || ev.Reason != "recent-duplicate" || st.EngineStates["bugbot"].TriggeredSHA != sha2 {
			t.Errorf("event %+v", ev)
		}
	})
	t.Run("a failed trigger is logged as retrigger-failed and counts as an engine error", func(t *testing.T) {
		t.Parallel()
		st := RecordTriggers(active(sha1, "bugbot"), []TriggerResult{{Engine: "bugbot", SHA: sha2, Err: "403"}}, t0)
		ev := st.Events[len(st.Events)-1]
		if ev.Name != state.EventRetriggerFailed || st.EngineStates["bugbot"].ConsecutiveErrors != 1 || st.EngineStates["bugbot"].Mark != state.MarkErrored {
			t.Errorf("event %+v state %+v", ev, st.EngineStates["bugbot"])
		}
	})
}

func TestRule_T7_RetriggerAfterPushAlphabeticallyWithWithholds(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	claudeFirst := none("claude")
	claudeFirst.Prose, claudeFirst.WithholdUntilFirstReview = true, true
	noToken := none("bugbot")
	noToken.TriggerAvailable = false
	st := active(sha1, "bugbot", "claude", "copilot", "gemini")
	st.EngineStates["claude"] = state.EngineState{}
	tests := []struct {
		name  string
		st    state.State
		views []EngineView
		want  []string
	}{
		{"every engine once, alphabetically", st, []EngineView{none("gemini"), none("copilot"), none("bugbot")}, []string{"bugbot", "copilot", "gemini"}},
		{"not one that is RUNNING", st, []EngineView{running("bugbot"), none("copilot")}, []string{"copilot"}},
		{"not a prose engine before its first review", st, []EngineView{claudeFirst, none("copilot")}, []string{"copilot"}},
		{"not an engine we cannot trigger", st, []EngineView{noToken, none("copilot")}, []string{"copilot"}},
		{"not one already triggered for the pushed SHA", RecordTriggers(st, []TriggerResult{{Engine: "copilot", SHA: sha2}}, t0), []EngineView{none("bugbot"), none("copilot")}, []string{"bugbot"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, r := range RetriggerAfterPush(tt.st, tt.views, sha2, cfg) {
				got = append(got, r.Engine)
				if r.SHA != sha2 {
					t.Errorf("sha %s", r.SHA)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("retrigger %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("Decide waits for a withheld engine's push-triggered run instead of triggering it", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(st, obs(sha1, 0, claudeFirst), cfg)
		wantAction(t, p, ActionWait, "")
		if r := report(t, p, "claude"); r.State != Triggered || !strings.Contains(r.Note, "push-triggered") {
			t.Errorf("claude %+v", r)
		}
	})
}

func TestRule_B1_FixCommitBound(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		commits int
		want    Action
	}{
		{"below the bound the loop goes on", 19, ActionFix},
		{"at the bound it hands back", 20, ActionHandBack},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := active(sha1, "bugbot")
			st.Commits = tt.commits
			p, _ := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1))), DefaultConfig())
			if p.Action != tt.want {
				t.Errorf("action %s, want %s", p.Action, tt.want)
			}
		})
	}
	t.Run("a push counts one commit", func(t *testing.T) {
		t.Parallel()
		if st := RecordPush(RecordPush(active(sha1), sha2), sha2); st.Commits != 1 || st.LastPushSHA != sha2 {
			t.Errorf("commits %d", st.Commits)
		}
	})
}

func TestRule_B2_ActiveWorkBoundExcludesWaiting(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "bugbot")
	st = AddActiveWork(st, 239*time.Minute+59*time.Second)
	st = AddActiveWork(st, -time.Hour) // nonsense input is ignored
	p, _ := Decide(st, obs(sha1, 48*time.Hour, done("bugbot", sha1, 10, f(1))), cfg)
	wantAction(t, p, ActionFix, "")
	st = AddActiveWork(st, time.Second)
	p, _ = Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1))), cfg)
	wantAction(t, p, ActionHandBack, EndBound)
	if !strings.Contains(p.Why, "B2") {
		t.Errorf("why %q", p.Why)
	}
}

// TestRule_H1_EngineReviewingAtBoundHandBackIsNotHung: when B1 or B2
// hands back while an engine reviews the loop's last push, the engine did
// not hang (no waiting bound tripped); it is not clean either.
func TestRule_H1_EngineReviewingAtBoundHandBackIsNotHung(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	for _, tt := range []struct {
		name  string
		bound func(*state.State)
		why   string
	}{
		{"B1", func(st *state.State) { st.Commits = cfg.MaxCommits }, "B1"},
		{"B2", func(st *state.State) { st.ActiveSeconds = int64(cfg.MaxActiveMinutes) * 60 }, "B2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := active(sha2, "bugbot")
			tt.bound(&st)
			p, _ := Decide(st, obs(sha2, time.Minute, running("bugbot")), cfg)
			wantAction(t, p, ActionHandBack, EndBound)
			if !strings.Contains(p.Why, tt.why) {
				t.Errorf("why %q", p.Why)
			}
			r := report(t, p, "bugbot")
			if r.Verdict != VerdictStillFinding || !strings.Contains(r.Note, "not awaited") {
				t.Errorf("bugbot %+v, want STILL_FINDING, not awaited", r)
			}
		})
	}
}

func TestRule_B3_IdleBoundIsTheTimeSinceTheLastProgress(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.StallFactor = 1000
	if cfg.MaxIdle != 45*time.Minute {
		t.Fatalf("default idle bound %s, want 45m (the seeds' 10 polls of ~270 s)", cfg.MaxIdle)
	}
	t.Run("waiting engines are HUNG once the loop has been idle for the bound", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot", "copilot")
		var p Plan
		for at := time.Minute; at < cfg.MaxIdle; at += 270 * time.Second {
			p, st = Decide(st, obs(sha1, at, done("bugbot", sha1, 10), running("copilot")), cfg)
			wantAction(t, p, ActionWait, "")
		}
		p, _ = Decide(st, obs(sha1, cfg.MaxIdle, done("bugbot", sha1, 10), running("copilot")), cfg)
		wantAction(t, p, ActionHandBack, EndBound)
		if r := report(t, p, "copilot"); r.Verdict != VerdictHung || !strings.Contains(p.Why, "B3: idle since 2026-11-30 12:00 UTC") {
			t.Errorf("copilot %+v, why %q", r, p.Why)
		}
	})
	t.Run("at the bound the others go on when they have findings", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot", "copilot")
		st.IdleSince = t0
		st.EngineStates["bugbot"] = state.EngineState{TriggeredSHA: sha1, LastSeenCommentID: 1}
		p, _ := Decide(st, obs(sha1, cfg.MaxIdle, done("bugbot", sha1, 10, f(1)), running("copilot")), cfg)
		wantAction(t, p, ActionFix, "")
	})
	t.Run("a new finding restarts the idle clock", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot", "copilot")
		st.IdleSince = t0.Add(-40 * time.Minute)
		_, st = Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1)), running("copilot")), cfg)
		if !st.IdleSince.Equal(t0) || st.EngineStates["bugbot"].LastSeenCommentID != 1 {
			t.Errorf("idle since %v, want %v", st.IdleSince, t0)
		}
		p, _ := Decide(st, obs(sha1, 44*time.Minute, done("bugbot", sha1, 10, f(1)), running("copilot")), cfg)
		wantAction(t, p, ActionWait, "")
	})
	t.Run("a trigger restarts the idle clock", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "copilot")
		st.IdleSince = t0.Add(-3 * time.Hour)
		p, _ := Decide(st, obs(sha1, 44*time.Minute, running("copilot")), cfg)
		wantAction(t, p, ActionWait, "")
	})
}

// C2: a wake that changes nothing writes nothing. Decide on the same
// observation at later times returns the state it was given: nothing for
// the status comment to record until the bound trips.
func TestRule_C2_AnIdleWakeChangesNoState(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.StallFactor = 1000
	st := active(sha1, "bugbot", "copilot")
	o := func(at time.Duration) Observation {
		return obs(sha1, at, done("bugbot", sha1, 10), running("copilot"))
	}
	_, first := Decide(st, o(time.Minute), cfg)
	for at := 2 * time.Minute; at < cfg.MaxIdle; at += 270 * time.Second {
		p, next := Decide(first, o(at), cfg)
		wantAction(t, p, ActionWait, "")
		a, _ := json.Marshal(first)
		b, _ := json.Marshal(next)
		if string(a) != string(b) {
			t.Fatalf("an idle wake at %s changed the state:\n%s\n%s", at, a, b)
		}
	}
}

func TestRule_H7_LargePR(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name           string
		commits, lines int
		want           bool
	}{
		{"a small PR is not large", 3, 100, false},
		{"25 commits is large", 25, 10, true},
		{"2,000 changed lines is large", 1, 2000, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := obs(sha1, 0, done("bugbot", sha1, 10))
			o.Commits, o.ChangedLines = tt.commits, tt.lines
			p, st := Decide(active(sha1, "bugbot"), o, DefaultConfig())
			if p.LargePR != tt.want || st.LargePR != tt.want {
				t.Errorf("large %v/%v, want %v", p.LargePR, st.LargePR, tt.want)
			}
		})
	}
}

func TestRule_H8_ResumeOrRestartOnlyByCommand(t *testing.T) {
	t.Parallel()
	t.Run("no state starts a loop with run-start", func(t *testing.T) {
		t.Parallel()
		p, st := Decide(state.New(), obs(sha1, 0, none("bugbot")), DefaultConfig())
		if st.Status != state.StatusActive || !st.StartedAt.Equal(t0) || p.Events[0].Name != state.EventRunStart {
			t.Errorf("status %s events %v", st.Status, eventNames(p.Events))
		}
		wantAction(t, p, ActionTrigger, "")
	})
	t.Run("an incomplete loop resumes without a new run-start", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot")
		st.Commits = 3
		p, st2 := Decide(st, obs(sha1, 0, running("bugbot")), DefaultConfig())
		if slices.Contains(eventNames(p.Events), state.EventRunStart) || st2.Commits != 3 || !st2.StartedAt.Equal(t0) {
			t.Errorf("events %v commits %d", eventNames(p.Events), st2.Commits)
		}
	})
	t.Run("a finished loop does nothing until a command restarts it", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot")
		st.Status, st.EndReason, st.Commits = state.StatusDone, "clean", 4
		p, st2 := Decide(st, obs(sha2, 0, none("bugbot")), DefaultConfig())
		wantAction(t, p, ActionNone, EndClean)
		if len(p.Triggers) != 0 || st2.Status != state.StatusDone {
			t.Errorf("plan %+v", p)
		}
		st3, err := ApplyCommand(st2, Command{Kind: CommandStart, By: "alice", At: t0.Add(time.Hour)})
		if err != nil || st3.Status != state.StatusActive || st3.Commits != 0 || !st3.StartedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("start: %v %+v", err, st3)
		}
		p, _ = Decide(st3, obs(sha2, time.Hour, none("bugbot")), DefaultConfig())
		wantAction(t, p, ActionTrigger, "")
	})
}

func TestApplyCommand(t *testing.T) {
	t.Parallel()
	ended := active(sha1, "bugbot")
	ended.Status, ended.EndReason = state.StatusDone, string(EndNoFixes)
	tests := []struct {
		name   string
		st     state.State
		cmd    Command
		check  func(state.State) bool
		errIs  error
		errMsg string
	}{
		{"stop ends an active loop as stopped", active(sha1), Command{Kind: CommandStop, By: "alice"},
			func(s state.State) bool { return s.Status == state.StatusStopped && s.EndReason == "stopped" }, nil, ""},
		{"approve records the direction and reopens a no-fixes loop", ended, Command{Kind: CommandApprove, FindingID: "bugbot-1", Direction: "use a mutex", Known: []Finding{{ID: "bugbot-1", CommentID: 1}}},
			func(s state.State) bool {
				return s.Status == state.StatusActive && len(s.Approvals) == 1 && s.Approvals[0].Direction == "use a mutex"
			}, nil, ""},
		{"approving twice keeps one approval", func() state.State {
			s, _ := ApplyCommand(active(sha1), Command{Kind: CommandApprove, FindingID: "x", Known: []Finding{{ID: "x"}}})
			return s
		}(), Command{Kind: CommandApprove, FindingID: "x", Direction: "d2", Known: []Finding{{ID: "x"}}},
			func(s state.State) bool { return len(s.Approvals) == 1 && s.Approvals[0].Direction == "d2" }, nil, ""},
		{"skip records the finding once", active(sha1), Command{Kind: CommandSkip, FindingID: "x"},
			func(s state.State) bool { return slices.Equal(s.Skips, []string{"x"}) }, nil, ""},
		{"reset starts over keeping the event log", func() state.State {
			s := active(sha1)
			s.Commits = 9
			s.Events = []state.Event{{Name: "run-start"}}
			return s
		}(),
			Command{Kind: CommandReset},
			func(s state.State) bool {
				return s.Commits == 0 && len(s.Events) == 2 && s.Status == state.StatusActive
			}, nil, ""},
		{"start on an active loop changes nothing", active(sha1), Command{Kind: CommandStart},
			func(s state.State) bool { return s.Status == state.StatusActive && len(s.Events) == 0 }, nil, ""},
		{"approve needs an id", active(sha1), Command{Kind: CommandApprove}, nil, nil, "finding id is required"},
		{"an unknown verb is an error", active(sha1), Command{Kind: "merge"}, nil, ErrUnknownCommand, "known: start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ApplyCommand(tt.st, tt.cmd)
			if tt.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errMsg) || (tt.errIs != nil && !errors.Is(err, tt.errIs)) {
					t.Fatalf("err %v, want %q", err, tt.errMsg)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Errorf("err %v state %+v", err, got)
			}
		})
	}
	t.Run("an approved Tier 2 finding goes back to triage", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot")
		st.Triage = []state.TriageRow{{FindingID: "f-1", Engine: "bugbot", CommentID: 1, Tier: 2, Outcome: OutcomeAwaitingApproval}}
		st, _ = ApplyCommand(st, Command{Kind: CommandApprove, FindingID: "f-1"})
		p, _ := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1))), DefaultConfig())
		wantAction(t, p, ActionFix, "")
	})
	t.Run("a skipped finding is not triaged", func(t *testing.T) {
		t.Parallel()
		st, _ := ApplyCommand(active(sha1, "bugbot"), Command{Kind: CommandSkip, FindingID: "f-1"})
		p, _ := Decide(st, obs(sha1, 0, done("bugbot", sha1, 10, f(1))), DefaultConfig())
		wantAction(t, p, ActionHandBack, EndNoFixes)
	})
}

func TestRecordFixCycle(t *testing.T) {
	t.Parallel()
	st := active(sha1, "bugbot")
	st.Iteration = 2
	st.Approvals = []state.Approval{{FindingID: "b"}}
	st.Triage = []state.TriageRow{{FindingID: "b", Engine: "bugbot", CommentID: 2, Tier: 2, Outcome: OutcomeAwaitingApproval}}
	st = RecordFixCycle(st, FixResult{Rows: []state.TriageRow{
		{FindingID: "a", Engine: "bugbot", CommentID: 1, Tier: 1, Outcome: OutcomeFixed},
		{FindingID: "b", Engine: "bugbot", CommentID: 2, Tier: 2, Outcome: OutcomeFixed},
		{FindingID: "c", Engine: "bugbot", CommentID: 3, Tier: 3, Outcome: OutcomeEscalated},
		{FindingID: "d", Engine: "bugbot", CommentID: 4, Tier: 1, Outcome: OutcomeReverted},
		{FindingID: "e", Engine: "bugbot", CommentID: 5, Tier: 1, Outcome: OutcomeSkipped},
	}}, t0)
	es := st.EngineStates["bugbot"]
	if len(st.Triage) != 5 || st.Triage[0].Outcome != OutcomeFixed || st.Triage[0].Cycle != 2 {
		t.Errorf("triage %+v", st.Triage)
	}
	if st.Totals != (state.Totals{Fixed: 2, Reverted: 1, Escalated: 1}) || es.Fixed != 2 || es.Approved != 1 || es.Escalated != 1 || es.Skipped != 1 {
		t.Errorf("totals %+v engine %+v", st.Totals, es)
	}
	if st.Status != state.StatusActive || st.Events[len(st.Events)-1].Name != state.EventIterEnd {
		t.Errorf("status %s events %v", st.Status, eventNames(st.Events))
	}
}

func TestRecordErrorAndNotice(t *testing.T) {
	t.Parallel()
	st := RecordError(active(sha1), "observe: 502", false, t0)
	if st.Status != state.StatusActive || st.Events[0].Name != state.EventIterError {
		t.Errorf("non-fatal: %+v", st)
	}
	st = RecordError(st, "push rejected", true, t0)
	if st.Status != state.StatusDone || st.EndReason != "error" {
		t.Errorf("fatal: %s/%s", st.Status, st.EndReason)
	}
	st, first := RecordNotice(st, "dispatch-setup")
	_, again := RecordNotice(st, "dispatch-setup")
	if !first || again {
		t.Errorf("notice first %v again %v", first, again)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	c := DefaultConfig()
	c.MaxCommits, c.MaxIdle, c.StallFactor = -1, -2, 0
	c.PollTimeout = -time.Second
	c.NormalLatency = map[string]time.Duration{"bugbot": -1}
	c.DefaultLatency = 0
	err := c.Validate()
	for _, field := range []string{"MaxCommits", "MaxIdle", "StallFactor", "PollTimeout", "NormalLatency[bugbot]", "DefaultLatency"} {
		if err == nil || !strings.Contains(err.Error(), field+":") {
			t.Errorf("error %v does not name %s", err, field)
		}
	}
	if c.Latency("unknown") != 0 || DefaultConfig().Latency("gemini") != 10*time.Minute {
		t.Errorf("latency fallback")
	}
}

func TestStateEnumsMatchLoopEnums(t *testing.T) {
	t.Parallel()
	want := []string{string(NotTriggered), string(Triggered), string(Running), string(Done)}
	if !slices.Equal(state.ReviewStates, want) {
		t.Errorf("state.ReviewStates %v, want %v", state.ReviewStates, want)
	}
}
