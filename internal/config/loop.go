package config

import (
	"fmt"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
)

// This file turns the inputs into the loop's bounds and settings
// (loop.Config), checked by the loop itself.

// Loop is the loop's configuration from the inputs; an input the loop
// refuses is an error naming the inputs.
func Loop(c Config) (loop.Config, error) {
	lc := loop.DefaultConfig()
	lc.MaxCommits = c.MaxCommits
	lc.MaxActiveMinutes = c.MaxActiveMinutes
	lc.MaxIdle = time.Duration(c.MaxIdleMinutes) * time.Minute
	lc.YieldFor = time.Duration(c.YieldMinutes) * time.Minute
	lc.StallFactor = c.StallFactor
	lc.MaxConsecutiveErrors = c.MaxConsecutiveErrors
	lc.CopilotOnly = c.CopilotOnly
	lc.MaxIterations = c.MaxIterations
	lc.WaitInitial = c.WaitInitial
	lc.PollInterval = c.PollInterval
	lc.PollTimeout = c.PollTimeout
	lc.KeepDraft = c.KeepDraft
	lc.RateLimitFloor, lc.RateLimitFloorPercent = c.RateLimitFloor, c.RateLimitFloorPercent
	lc.DivergenceStop, lc.ProseRounds, lc.PathsIgnore = c.DivergenceStop, c.ProseRounds, c.PathsIgnore
	floor, err := loop.ParseCleanAt(c.CleanAt)
	if err != nil {
		return lc, fmt.Errorf("input %w", err)
	}
	lc.CleanAt = floor
	if err := lc.Validate(); err != nil {
		return lc, fmt.Errorf("inputs: %w", err)
	}
	return lc, nil
}
