package loop

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Config holds every bound and timing the rules use. DefaultConfig gives
// the documented defaults; Validate reports every problem at once.
type Config struct {
	// MaxCommits bounds fix commits per loop (B1).
	MaxCommits int
	// MaxActiveMinutes bounds active work, waiting excluded (B2).
	MaxActiveMinutes int
	// MaxIdle bounds the time since the loop's last progress while it
	// waits (B3): a new push, a new finding or a trigger.
	MaxIdle time.Duration
	// StallFactor: an engine waited on for more than StallFactor times its
	// normal latency is HUNG (T4).
	StallFactor int
	// NormalLatency is each engine's normal time from trigger to review;
	// engines not listed use DefaultLatency.
	NormalLatency  map[string]time.Duration
	DefaultLatency time.Duration
	// MaxConsecutiveErrors: an engine that errored this many times in a row
	// is ERRORED for the rest of the loop and the others go on (T4).
	MaxConsecutiveErrors int
	// NoProgressRepeats is how many times a finding key may be flagged,
	// counting cycles in which its fix was attempted, before W2 hands back.
	NoProgressRepeats int

	// CopilotOnly selects the Copilot-only mode (W4, TR6, IN5).
	CopilotOnly bool
	// MaxIterations caps fix iterations in Copilot-only mode.
	MaxIterations int
	// WaitInitial is the first cycle's wait in Copilot-only mode.
	WaitInitial time.Duration
	// PollInterval is the suggested in-job poll interval while waiting.
	PollInterval time.Duration
	// PollTimeout: in Copilot-only mode, no review this long after the
	// (re)trigger ends the loop with "timeout".
	PollTimeout time.Duration

	// DuplicateWindow is T5's window for an identical trigger comment.
	DuplicateWindow time.Duration
	// LargePRCommits and LargePRLines mark a PR large (H7).
	LargePRCommits int
	LargePRLines   int
	// KeepDraft keeps a draft PR a draft even when a selected engine
	// no-ops on drafts (IN3).
	KeepDraft bool
	// RateLimitFloor, when positive, is the absolute number of remaining
	// API requests under which a waiting or triggering cycle defers to the
	// budget's reset (B7); otherwise RateLimitFloorPercent of the limit is.
	RateLimitFloor        int
	RateLimitFloorPercent int
	// YieldFor is how long a person's push, changes-requested review or
	// thread reply pauses the fixing (HY1).
	YieldFor time.Duration
	// DivergenceStop hands back "diverging" when the loop's fixes feed
	// the engines new findings (CV2); on by default.
	DivergenceStop bool
	// ProseRounds is how many fix rounds act on prose-only and nitpick
	// findings; later ones are listed for a human (CV3). Zero: no limit.
	ProseRounds int
	// PathsIgnore are globs of files the loop never fixes (CV6).
	PathsIgnore []string
	// EngineLimits are the engines' own diff limits (CV6).
	EngineLimits map[string]DiffLimit
	// CleanAt is the severity floor (EQ3): findings below it are listed
	// for a human and block neither CLEAN nor the gate. Empty (any)
	// keeps every finding.
	CleanAt Severity
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		MaxCommits:       20,
		MaxActiveMinutes: 240,
		MaxIdle:          45 * time.Minute,
		YieldFor:         30 * time.Minute,
		StallFactor:      3,
		NormalLatency: map[string]time.Duration{
			// Bugbot's p50 is 165 s with a long tail to about 635 s.
			"bugbot":  5 * time.Minute,
			"copilot": 5 * time.Minute,
			"claude":  10 * time.Minute,
		},
		DefaultLatency:       10 * time.Minute,
		MaxConsecutiveErrors: 2,
		NoProgressRepeats:    2,
		MaxIterations:        5,
		WaitInitial:          180 * time.Second,
		PollInterval:         30 * time.Second,
		PollTimeout:          600 * time.Second,
		DuplicateWindow:      5 * time.Minute,
		LargePRCommits:       25,
		LargePRLines:         2000,
		// B7: a tenth of the budget is kept for fixes and hand-backs.
		RateLimitFloorPercent: 10,
		DivergenceStop:        true,
		ProseRounds:           2,
		EngineLimits:          DefaultEngineLimits(),
	}
}

// Latency returns an engine's normal latency.
func (c Config) Latency(engine string) time.Duration {
	if d, ok := c.NormalLatency[engine]; ok {
		return d
	}
	return c.DefaultLatency
}

// Validate reports every invalid field, each error naming it.
func (c Config) Validate() error {
	var errs []error
	atLeast := func(field string, v, min int64) {
		if v < min {
			errs = append(errs, fmt.Errorf("%s: must be at least %d, got %d", field, min, v))
		}
	}
	atLeast("MaxCommits", int64(c.MaxCommits), 0)
	atLeast("MaxActiveMinutes", int64(c.MaxActiveMinutes), 0)
	atLeast("MaxIdle", int64(c.MaxIdle), 0)
	atLeast("YieldFor", int64(c.YieldFor), 0)
	atLeast("StallFactor", int64(c.StallFactor), 1)
	atLeast("MaxConsecutiveErrors", int64(c.MaxConsecutiveErrors), 1)
	atLeast("NoProgressRepeats", int64(c.NoProgressRepeats), 1)
	atLeast("MaxIterations", int64(c.MaxIterations), 0)
	atLeast("LargePRCommits", int64(c.LargePRCommits), 0)
	atLeast("LargePRLines", int64(c.LargePRLines), 0)
	atLeast("RateLimitFloor", int64(c.RateLimitFloor), 0)
	atLeast("RateLimitFloorPercent", int64(c.RateLimitFloorPercent), 0)
	if c.RateLimitFloorPercent > 100 {
		errs = append(errs, fmt.Errorf("RateLimitFloorPercent: must be at most 100, got %d", c.RateLimitFloorPercent))
	}
	durs := []struct {
		name string
		d    time.Duration
	}{
		{"DefaultLatency", c.DefaultLatency}, {"WaitInitial", c.WaitInitial},
		{"PollInterval", c.PollInterval}, {"PollTimeout", c.PollTimeout},
		{"DuplicateWindow", c.DuplicateWindow},
	}
	for _, e := range slices.Sorted(maps.Keys(c.NormalLatency)) {
		durs = append(durs, struct {
			name string
			d    time.Duration
		}{"NormalLatency[" + e + "]", c.NormalLatency[e]})
	}
	for _, d := range durs {
		if d.d < 0 {
			errs = append(errs, fmt.Errorf("%s: must not be negative, got %s", d.name, d.d))
		}
	}
	if c.DefaultLatency == 0 {
		errs = append(errs, errors.New("DefaultLatency: must be positive"))
	}
	return errors.Join(errs...)
}
