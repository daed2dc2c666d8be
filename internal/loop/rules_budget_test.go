package loop

import (
	"strings"
	"testing"
	"time"
)

// low is an API budget under the default floor (10% of the limit).
func low(reset time.Time) *Budget {
	return &Budget{Resource: "core", Limit: 1000, Remaining: 60, ResetAt: reset}
}

func TestRule_B7_UnderTheFloorAWaitingCycleDefersToTheReset(t *testing.T) {
	st := active(sha1, "bugbot")
	reset := t0.Add(40 * time.Minute)
	o := obs(sha1, time.Minute, running("bugbot"))
	o.Budget = low(reset)
	p, _ := Decide(st, o, DefaultConfig())
	wantAction(t, p, ActionWait, "")
	if !p.WakeAt.Equal(reset) || p.Wait != reset.Sub(o.Now) {
		t.Fatalf("wake at %v (wait %s), want the budget's reset %v", p.WakeAt, p.Wait, reset)
	}
	if !strings.Contains(p.Why, "B7") || !strings.Contains(p.Why, "60 of 1000") {
		t.Fatalf("why = %q, want B7 naming the budget", p.Why)
	}
}

func TestRule_B7_UnderTheFloorATriggerCycleDefersWithoutTriggering(t *testing.T) {
	st := active(sha1, "bugbot")
	es := st.EngineStates["bugbot"]
	es.TriggeredSHA = ""
	st.EngineStates["bugbot"] = es
	reset := t0.Add(20 * time.Minute)
	o := obs(sha1, time.Minute, none("bugbot"))
	o.Budget = low(reset)
	p, st2 := Decide(st, o, DefaultConfig())
	wantAction(t, p, ActionWait, "")
	if len(p.Triggers) != 0 || !p.WakeAt.Equal(reset) {
		t.Fatalf("triggers %v wake %v, want none until %v", triggered(p), p.WakeAt, reset)
	}
	if !st2.IdleSince.Equal(st.IdleSince) && !st2.IdleSince.Equal(o.Now) {
		t.Fatalf("a deferred trigger moved the idle clock to %v", st2.IdleSince)
	}
	// Over the floor the same cycle triggers.
	o.Budget = &Budget{Resource: "core", Limit: 1000, Remaining: 101, ResetAt: reset}
	p, _ = Decide(st, o, DefaultConfig())
	wantAction(t, p, ActionTrigger, "")
}

func TestRule_B7_FixesAndHandBacksStillRunUnderTheFloor(t *testing.T) {
	st := active(sha1, "bugbot")
	o := obs(sha1, time.Minute, done("bugbot", sha1, 10, f(3)))
	o.Budget = low(t0.Add(time.Hour))
	p, _ := Decide(st, o, DefaultConfig())
	wantAction(t, p, ActionFix, "")

	o = obs(sha1, time.Minute, done("bugbot", sha1, 10))
	o.Budget = low(t0.Add(time.Hour))
	p, _ = Decide(st, o, DefaultConfig())
	wantAction(t, p, ActionHandBack, EndClean)
}

func TestRule_B7_TheLowestBudgetAndAnAbsoluteFloor(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RateLimitFloor = 50 // an absolute floor replaces the percentage
	st := active(sha1, "bugbot")
	o := obs(sha1, time.Minute, running("bugbot"))
	o.Budget = &Budget{Resource: "core", Limit: 1000, Remaining: 60, ResetAt: t0.Add(time.Hour)}
	if p, _ := Decide(st, o, cfg); !p.WakeAt.IsZero() {
		t.Fatalf("60 left over an absolute floor of 50 deferred: %s", p.Why)
	}
	o.GraphQLBudget = &Budget{Resource: "graphql", Limit: 5000, Remaining: 10, ResetAt: t0.Add(30 * time.Minute)}
	p, _ := Decide(st, o, cfg)
	if !p.WakeAt.Equal(t0.Add(30*time.Minute)) || !strings.Contains(p.Why, "graphql") {
		t.Fatalf("graphql budget under the floor: wake %v why %q", p.WakeAt, p.Why)
	}
	// An unknown budget never defers.
	o.Budget, o.GraphQLBudget = nil, nil
	if p, _ := Decide(st, o, cfg); !p.WakeAt.IsZero() {
		t.Fatalf("unknown budget deferred: %s", p.Why)
	}
}
