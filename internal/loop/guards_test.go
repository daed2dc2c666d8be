package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// TestRule_IN3_KeepDraftLeavesTheDraftAlone: a draft PR with an engine
// that no-ops on drafts is marked ready, unless keep-draft is set.
func TestRule_IN3_KeepDraftLeavesTheDraftAlone(t *testing.T) {
	t.Parallel()
	draft := EngineView{Engine: "claude", Installed: true, TriggerAvailable: true, Signal: SignalNone, Material: MaterialDraft}
	for _, keep := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.KeepDraft = keep
		o := obs(sha1, 0, draft)
		o.IsDraft = true
		p, _ := Decide(active(sha1, "claude"), o, cfg)
		if p.MarkReady == keep {
			t.Errorf("keep-draft %v: MarkReady = %v, want %v", keep, p.MarkReady, !keep)
		}
	}
}

// TestRule_T4_TheStallTimerRunsFromTheFirstWaitNotTheLatestWake: an
// engine that started on its own (no trigger of ours, no start time from
// its check run) is timed from the first wake that saw it waiting; later
// wakes must not restart the timer, or a stalled engine is never HUNG.
func TestRule_T4_TheStallTimerRunsFromTheFirstWaitNotTheLatestWake(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.MaxIdle = 1000 * time.Hour // only the stall hatch may end the wait
	st := active(sha1, "bugbot", "claude")
	st.EngineStates["claude"] = state.EngineState{FirstReviewSeen: true} // not triggered by us
	lim := time.Duration(cfg.StallFactor) * cfg.Latency("claude")
	var p Plan
	for at := time.Minute; at <= time.Minute+lim+cfg.PollInterval; at += cfg.PollInterval {
		p, st = Decide(st, obs(sha1, at, done("bugbot", sha1, 10, f(1)), running("claude")), cfg)
		if at <= time.Minute+lim && p.Action != ActionWait {
			t.Fatalf("at %s (limit %s from the first wait): plan %s (%s), want wait", at, lim, p.Action, p.Why)
		}
	}
	wantAction(t, p, ActionFix, "")
	if r := report(t, p, "claude"); r.Verdict != VerdictHung || !strings.Contains(r.Note, "stalled") {
		t.Errorf("claude %+v, want HUNG: stalled", r)
	}
}
