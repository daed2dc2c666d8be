package loop

import (
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// This file is the pace of `review-loop watch` (LW1): how long the
// terminal driver waits before its next poll, and when a full cycle is due
// although no poll saw a change. A poll is a handful of conditional
// requests; a 304 costs no rate limit, so the pace is set by the engines,
// not by the budget. The cycle itself (Decide, PlanCycle, Closing) is the
// Action's, unchanged.

// Watch pace bounds.
const (
	// WatchMaxBackoff is the longest wait between two polls while no
	// engine is at work.
	WatchMaxBackoff = 5 * time.Minute
	// WatchBackstop is the longest time between two full cycles: the
	// time-based rules (T4's stall, B3's idle bound, T8's cooldown) are
	// decided by a cycle, and nothing on GitHub changes when they fall
	// due. It plays the part of the Action's scheduled sweep.
	WatchBackstop = 15 * time.Minute
	// watchMinPoll is the shortest wait between two polls.
	watchMinPoll = 5 * time.Second
)

// WatchTick is what the pace reads after a cycle or a poll.
type WatchTick struct {
	Now time.Time
	// LastCycle is when the last full cycle ran.
	LastCycle time.Time
	// Unchanged counts the polls in a row that saw nothing change.
	Unchanged int
	// PollInterval is the configured poll-interval (IN5), the pace while
	// an engine is at work.
	PollInterval time.Duration
	// Plan is the last cycle's plan; State its saved state.
	Plan  Plan
	State state.State
	// MaxIdle is B3's idle bound.
	MaxIdle time.Duration
}

// Working reports whether an engine of the plan is triggered or running:
// its answer is due soon, so watch polls at the poll interval.
func Working(p Plan) bool {
	for _, e := range p.Engines {
		if e.State == Triggered || e.State == Running {
			return true
		}
	}
	return false
}

// WatchDue is when the next full cycle is due without a change: the
// plan's planned wake (a cooldown's end, a yield's end, T8, HY1), the
// idle bound's deadline (B3), and at the latest WatchBackstop after the
// last cycle.
func WatchDue(t WatchTick) time.Time {
	due := t.LastCycle.Add(WatchBackstop)
	if !t.Plan.WakeAt.IsZero() && t.Plan.WakeAt.Before(due) {
		due = t.Plan.WakeAt
	}
	if t.MaxIdle > 0 && !t.State.IdleSince.IsZero() {
		if d := t.State.IdleSince.Add(t.MaxIdle); d.After(t.LastCycle) && d.Before(due) {
			due = d
		}
	}
	return due
}

// WatchPace is how long watch waits before its next poll: the poll
// interval while an engine is at work; otherwise doubling with each
// poll that saw nothing change, up to WatchMaxBackoff; never past the
// next full cycle's due time (WatchDue).
func WatchPace(t WatchTick) time.Duration {
	interval := max(t.PollInterval, watchMinPoll)
	wait := interval
	if !Working(t.Plan) {
		wait = WatchMaxBackoff
		if t.Unchanged < 16 {
			wait = min(interval<<t.Unchanged, WatchMaxBackoff)
		}
	}
	if until := WatchDue(t).Sub(t.Now); until < wait {
		wait = max(until, 0)
	}
	return wait
}

// WatchEnded reports whether the loop is over for the watch driver: a
// finished or stopped loop waits for nothing but a person's command.
func WatchEnded(st state.State) bool {
	return st.Status == state.StatusDone || st.Status == state.StatusStopped
}
