package engines

import (
	"fmt"
	"time"
)

// QuotaError is a trigger the engine's service refused for a usage, rate
// or quota limit (T8). The loop records a cooldown of Wait (one hour when
// zero) and asks again afterwards; it is not an engine error.
type QuotaError struct {
	Engine string
	// Wait is the cooldown the refusal states (Retry-After); zero when none.
	Wait time.Duration
	// Text is the service's own words, shown on the status comment.
	Text string
}

// Error names the engine and the refusal.
func (e *QuotaError) Error() string {
	return fmt.Sprintf("%s: quota: %s", e.Engine, e.Text)
}
