package action

import (
	"context"

	"github.com/review-loop/review-loop/internal/loop"
)

// This file carries out the in-job wait (B2): it re-observes until what
// the wait watches changes (loop.WaitFingerprint), then decides and
// executes again.

// waitInJob is the bounded in-job wait (`wait-seconds`, polling every
// `poll-interval`, loop.WaitPolls): it re-observes until an engine's
// signal changes, then decides again within the same run. Waiting time is
// excluded from active work (B2). With wait-seconds 0 the run ends and an
// event wakes the loop.
func (c *prCycle) waitInJob(ctx context.Context) error {
	interval := c.cfg.PollInterval
	polls := loop.WaitPolls(c.plan, c.Now(), c.cfg.InJobWait, interval)
	before := loop.WaitFingerprint(c.obs.HeadSHA, c.views)
	for range polls {
		if err := c.Sleep(ctx, interval); err != nil {
			return err
		}
		c.waited += interval
		if err := c.observe(ctx); err != nil {
			return err
		}
		c.observeEngines()
		if loop.WaitFingerprint(c.obs.HeadSHA, c.views) == before {
			continue
		}
		if _, err := c.decide(ctx); err != nil {
			return err
		}
		effects := loop.ActionEffects(c.plan, c.st, c.facts())
		c.logPlan(effects)
		if c.plan.Action == loop.ActionWait {
			before = loop.WaitFingerprint(c.obs.HeadSHA, c.views)
			continue
		}
		return c.execute(ctx, effects)
	}
	return nil
}
