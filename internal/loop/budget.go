package loop

import (
	"fmt"
	"time"
)

// Budget is one API rate-limit budget as the last response reported it
// (REST headers X-RateLimit-*, or GraphQL's rateLimit object).
type Budget struct {
	// Resource is GitHub's name for the budget: core, graphql, search.
	Resource  string
	Limit     int
	Remaining int
	ResetAt   time.Time
}

// floor is the number of remaining requests under which the budget is low:
// cfg.RateLimitFloor when set, else cfg.RateLimitFloorPercent of the limit.
func (b Budget) floor(cfg Config) int {
	if cfg.RateLimitFloor > 0 {
		return cfg.RateLimitFloor
	}
	return b.Limit * cfg.RateLimitFloorPercent / 100
}

// Low reports whether the budget is known and under the floor (B7).
func (b *Budget) Low(cfg Config) bool {
	return b != nil && b.Limit > 0 && b.Remaining < b.floor(cfg)
}

// lowBudget is the lowest budget under the floor, the one that resets last
// when both are low; nil when none is.
func (d *decider) lowBudget() *Budget {
	var out *Budget
	for _, b := range []*Budget{d.obs.Budget, d.obs.GraphQLBudget} {
		if b.Low(d.cfg) && (out == nil || b.ResetAt.After(out.ResetAt)) {
			out = b
		}
	}
	return out
}

// budgetFloor is rule B7: under the floor of the repository's API budget, a
// cycle that would only wait or trigger defers itself to the budget's
// reset (it plans its own wake and says so); fixes and hand-backs still run,
// since they finish work already paid for.
func (d *decider) budgetFloor() {
	if d.plan.Action != ActionWait && d.plan.Action != ActionTrigger {
		return
	}
	b := d.lowBudget()
	if b == nil || !b.ResetAt.After(d.obs.Now) {
		return
	}
	if b.ResetAt.Before(d.plan.WakeAt) {
		return // already planned later (a quota cooldown, T8)
	}
	deferred := "waiting"
	if d.plan.Action == ActionTrigger {
		deferred = "triggering " + triggerNames(d.plan.Triggers)
	}
	d.plan.Action, d.plan.Triggers = ActionWait, nil
	d.plan.WakeAt, d.plan.Wait = b.ResetAt, b.ResetAt.Sub(d.obs.Now)
	d.plan.Why = fmt.Sprintf("B7: the %s API budget is under its floor (%d of %d requests left, floor %d): %s is deferred to its reset at %s",
		b.Resource, b.Remaining, b.Limit, b.floor(d.cfg), deferred, b.ResetAt.UTC().Format(time.RFC3339))
}

func triggerNames(ts []TriggerRequest) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.Engine
	}
	return s
}
