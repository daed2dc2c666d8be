package action

import (
	"context"
	"fmt"

	"github.com/review-loop/review-loop/internal/loop"
)

// This file carries out the in-job wait (B2): it re-observes until an
// engine's signal changes, then decides and executes again.

// waitInJob is the bounded in-job wait (`wait-seconds`, polling every
// `poll-interval`): it re-observes until an engine's signal changes, then
// decides again within the same run. Waiting time is excluded from active
// work (B2). With wait-seconds 0 the run ends and an event wakes the loop.
func (c *prCycle) waitInJob(ctx context.Context) error {
	budget := c.cfg.InJobWait
	interval := c.cfg.PollInterval
	if budget <= 0 || interval <= 0 {
		return nil
	}
	if !loop.WorthWaiting(c.plan, c.Now(), budget) {
		return nil
	}
	before := c.fingerprint()
	for spent := interval; spent <= budget; spent += interval {
		if err := c.Sleep(ctx, interval); err != nil {
			return err
		}
		c.waited += interval
		if err := c.observe(ctx); err != nil {
			return err
		}
		c.observeEngines()
		if c.fingerprint() == before {
			continue
		}
		if _, err := c.decide(ctx); err != nil {
			return err
		}
		effects := loop.ActionEffects(c.plan, c.st, c.facts())
		c.logPlan(effects)
		if c.plan.Action == loop.ActionWait {
			before = c.fingerprint()
			continue
		}
		return c.execute(ctx, effects)
	}
	return nil
}

// fingerprint summarises what a wait watches: the head and each engine's
// signal, latest review and findings.
func (c *prCycle) fingerprint() string {
	s := c.obs.HeadSHA
	for _, v := range c.views {
		s += fmt.Sprintf("|%s:%s:%d:%d:%d", v.Engine, v.Signal, v.SignalID, v.LatestReviewID, len(v.Findings))
	}
	return s
}
