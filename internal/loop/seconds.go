package loop

import "time"

// GitHub stamps reviews, comments, check runs and workflow runs in whole
// seconds; review-loop's own times (a trigger, a push, the loop's start)
// come from its clock, with fractions. Rule S10: the two are compared at
// GitHub's resolution, so that an engine's answer in the same second as
// the trigger (a quota review within the second) is not taken for an
// older one.

// AtSecond is t at GitHub's resolution: its whole second.
func AtSecond(t time.Time) time.Time { return t.Truncate(time.Second) }

// NotBeforeOurs reports whether a GitHub time gh is not earlier than one
// of review-loop's own times ours, at whole-second resolution. A zero
// ours is no bound.
func NotBeforeOurs(gh, ours time.Time) bool {
	return ours.IsZero() || !AtSecond(gh).Before(AtSecond(ours))
}
