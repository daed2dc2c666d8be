package loop

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_LW1_WatchPollsAtTheEnginesPaceAndBacksOffWhenIdle(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	working := Plan{Engines: []EngineReport{{Engine: "bugbot", State: Running}, {Engine: "copilot", State: Done}}}
	idle := Plan{Engines: []EngineReport{{Engine: "bugbot", State: Done}}}
	for _, tc := range []struct {
		name string
		tick WatchTick
		want time.Duration
	}{
		{"an engine running: the poll interval", WatchTick{Now: now, LastCycle: now, PollInterval: 30 * time.Second, Plan: working, Unchanged: 9}, 30 * time.Second},
		{"triggered counts as at work", WatchTick{Now: now, LastCycle: now, PollInterval: 30 * time.Second, Plan: Plan{Engines: []EngineReport{{State: Triggered}}}}, 30 * time.Second},
		{"idle, first poll: the interval", WatchTick{Now: now, LastCycle: now, PollInterval: 30 * time.Second, Plan: idle}, 30 * time.Second},
		{"idle, three unchanged polls: doubled thrice", WatchTick{Now: now, LastCycle: now, PollInterval: 30 * time.Second, Plan: idle, Unchanged: 3}, 4 * time.Minute},
		{"idle for long: at most five minutes", WatchTick{Now: now, LastCycle: now, PollInterval: 30 * time.Second, Plan: idle, Unchanged: 40}, WatchMaxBackoff},
		{"never past the backstop cycle", WatchTick{Now: now.Add(14 * time.Minute), LastCycle: now, PollInterval: 30 * time.Second, Plan: idle, Unchanged: 8}, time.Minute},
		{"never past a planned wake (a cooldown's end, T8)", WatchTick{Now: now, LastCycle: now, PollInterval: 30 * time.Second, Plan: Plan{WakeAt: now.Add(70 * time.Second)}, Unchanged: 5}, 70 * time.Second},
		{"never past the idle bound (B3)", WatchTick{Now: now, LastCycle: now, PollInterval: 30 * time.Second, Plan: idle, Unchanged: 5,
			State: state.State{IdleSince: now.Add(-44 * time.Minute)}, MaxIdle: 45 * time.Minute}, time.Minute},
		{"a tiny poll interval is raised to five seconds", WatchTick{Now: now, LastCycle: now, PollInterval: time.Second, Plan: working}, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WatchPace(tc.tick); got != tc.want {
				t.Errorf("WatchPace = %s, want %s", got, tc.want)
			}
		})
	}
	if due := WatchDue(WatchTick{LastCycle: now}); !due.Equal(now.Add(WatchBackstop)) {
		t.Errorf("backstop due %s, want %s after the last cycle", due, WatchBackstop)
	}
	if !WatchEnded(state.State{Status: state.StatusDone}) || WatchEnded(state.State{Status: state.StatusActive}) {
		t.Error("WatchEnded: a done loop ends the watch, an active one does not")
	}
}
