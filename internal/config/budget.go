package config

import (
	"fmt"
	"strconv"
	"strings"
)

// This file parses the sweep and budget inputs.

// Values of the sweep-fanout input.
const (
	SweepDispatch = "dispatch"
	SweepInline   = "inline"
)

// parseRateLimitFloor reads `rate-limit-floor`: "N%" of the budget's limit
// (0 to 100) or an absolute number of remaining requests.
func (c *Config) parseRateLimitFloor(raw string) error {
	raw = strings.TrimSpace(raw)
	if pct, ok := strings.CutSuffix(raw, "%"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(pct))
		if err != nil || n < 0 || n > 100 {
			return fmt.Errorf("input rate-limit-floor: %q is not a percentage from 0%% to 100%%", raw)
		}
		c.RateLimitFloor, c.RateLimitFloorPercent = 0, n
		return nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return fmt.Errorf("input rate-limit-floor: %q is neither a number of requests nor a percentage like 10%%", raw)
	}
	c.RateLimitFloor, c.RateLimitFloorPercent = n, 0
	return nil
}
