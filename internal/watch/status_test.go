package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_LW1_TheStatusIsRedrawnOnATerminalAndPlainOnAPipe(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	r := action.PRResult{
		Plan:  loop.Plan{Action: loop.ActionWait, Engines: []loop.EngineReport{{Engine: "bugbot", State: loop.Running}, {Engine: "copilot", State: loop.Done, Verdict: "CLEAN"}}},
		State: state.State{EngineStates: map[string]state.EngineState{"bugbot": {TriggeredAt: now.Add(-150 * time.Second)}}},
	}
	show := func(tty bool) string {
		var b strings.Builder
		s := newStatus(Options{Out: &b, TTY: tty, Now: func() time.Time { return now }})
		s.cycleStart(1)
		s.effect(loop.Effect{Kind: loop.EffectTrigger, Rule: "T1"}, false)
		s.cycleEnd(r, nil, false)
		s.waiting(r, 30*time.Second)
		s.waiting(r, 60*time.Second)
		return b.String()
	}
	tty, pipe := show(true), show(false)
	if !strings.Contains(tty, "\x1b[") {
		t.Errorf("a terminal's status is not redrawn in place:\n%q", tty)
	}
	if strings.Contains(pipe, "\x1b") {
		t.Errorf("a pipe gets escape sequences:\n%q", pipe)
	}
	for _, want := range []string{"bugbot", "RUNNING", "2m30s", "copilot", "CLEAN", "next poll in 30s", "next poll in 1m0s"} {
		if !strings.Contains(pipe, want) || !strings.Contains(tty, want) {
			t.Errorf("%q missing:\npipe:\n%s\ntty:\n%q", want, pipe, tty)
		}
	}
	// The terminal's last screen holds one block: the engines, the
	// effect and the next poll, drawn over the one before.
	last := tty[strings.LastIndex(tty, "\x1b[J")+len("\x1b[J"):]
	if strings.Count(last, "\n") != 4 || strings.Contains(last, "next poll in 30s") {
		t.Errorf("the last block is not the one status drawn over the previous one:\n%q", last)
	}
}
