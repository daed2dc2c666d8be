package loop

import (
	"slices"
	"testing"
	"time"
)

func sev(id int64, s Severity) Finding {
	x := f(id)
	x.Severity = s
	return x
}

// EQ3: with the default floor (any) a low finding blocks, as before; with
// clean-at: medium it is listed for a human and the engine is CLEAN; an
// engine that states no severity counts as medium.
func TestRule_EQ3_FindingsBelowTheFloorBlockNeitherCleanNorTheGate(t *testing.T) {
	st := active(sha1, "bugbot", "copilot")
	o := obs(sha1, 6*time.Minute, done("bugbot", sha1, 20, sev(1, SeverityLow)), done("copilot", sha1, 30, sev(2, SeverityUnknown)))

	cfg := DefaultConfig()
	p, _ := Decide(st, o, cfg)
	if report(t, p, "bugbot").Verdict != VerdictStillFinding {
		t.Fatalf("default floor: bugbot = %+v, want STILL_FINDING (today's behaviour)", report(t, p, "bugbot"))
	}

	cfg.CleanAt = SeverityMedium
	p, _ = Decide(st, o, cfg)
	b, c := report(t, p, "bugbot"), report(t, p, "copilot")
	if b.Verdict != VerdictClean || len(b.Active) != 0 || !slices.Equal(b.BelowFloor, []int64{1}) {
		t.Fatalf("clean-at medium: bugbot = %+v, want CLEAN with finding 1 listed below the floor", b)
	}
	if c.Verdict != VerdictStillFinding || !slices.Equal(c.Active, []int64{2}) {
		t.Fatalf("clean-at medium: copilot = %+v, want its unrated finding to count as medium and block", c)
	}
	if slices.Contains(triageIDs(p), 1) {
		t.Fatalf("a finding below the floor was sent to triage: %v", triageIDs(p))
	}

	cfg.CleanAt = SeverityHigh
	p, _ = Decide(st, o, cfg)
	wantAction(t, p, ActionHandBack, EndClean)
	if g := report(t, p, "copilot"); g.Verdict != VerdictClean || !slices.Equal(g.BelowFloor, []int64{2}) {
		t.Fatalf("clean-at high: copilot = %+v, want CLEAN with its medium finding listed", g)
	}
}

// EQ3 with S6: an engine's own stated count includes its findings below
// the floor, so they are taken off it as the floor takes them off the
// active set; a stated count above what remains still blocks.
func TestRule_EQ3_StatedCountLessTheFindingsBelowTheFloor(t *testing.T) {
	st := active(sha1, "bugbot")
	v := done("bugbot", sha1, 20, sev(1, SeverityLow))
	v.Stated = &StatedCount{N: 1, Source: "1 total unresolved issue"}
	cfg := DefaultConfig()
	cfg.CleanAt = SeverityMedium
	p, _ := Decide(st, obs(sha1, 6*time.Minute, v), cfg)
	wantAction(t, p, ActionHandBack, EndClean)
	v.Stated = &StatedCount{N: 2, Source: "2 total unresolved issues"}
	p, _ = Decide(st, obs(sha1, 6*time.Minute, v), cfg)
	if r := report(t, p, "bugbot"); r.Verdict != VerdictStillFinding {
		t.Fatalf("stated 2, one below the floor, none counted: %+v, want STILL_FINDING (S6)", r)
	}
}

func TestRule_EQ3_SeverityFloorParsesAndRanks(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Severity
		ok   bool
	}{{"", "", true}, {"any", "", true}, {"low", SeverityLow, true}, {"Medium", SeverityMedium, true}, {"high", SeverityHigh, true}, {"critical", "", false}, {"nit", "", false}} {
		got, err := ParseCleanAt(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseCleanAt(%q) = %q, %v; want %q ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		s     Severity
		floor Severity
		below bool
	}{{SeverityLow, "", false}, {SeverityLow, SeverityLow, false}, {SeverityLow, SeverityMedium, true}, {SeverityUnknown, SeverityMedium, false},
		{SeverityUnknown, SeverityHigh, true}, {"", SeverityHigh, true}, {SeverityCritical, SeverityHigh, false}, {SeverityMedium, SeverityHigh, true}} {
		if got := BelowFloor(c.s, c.floor); got != c.below {
			t.Errorf("BelowFloor(%q, %q) = %v, want %v", c.s, c.floor, got, c.below)
		}
	}
}

// EQ3 in the status command: StatusPlan applies the floor the loop
// applies, so a PR whose only open finding is below the floor is CLEAN
// there as in the loop's hand-back, with the finding listed for a human;
// with the default floor (any) it is not.
func TestRule_EQ3_StatusAppliesTheFloorTheLoopApplies(t *testing.T) {
	st := active(sha1, "bugbot")
	v := done("bugbot", sha1, 20, sev(1, SeverityLow))
	v.Stated = &StatedCount{N: 1, Source: "1 total unresolved issue"}
	cfg := DefaultConfig()
	cfg.CleanAt = SeverityMedium
	loopPlan, _ := Decide(st, obs(sha1, 6*time.Minute, v), cfg)
	wantAction(t, loopPlan, ActionHandBack, EndClean)

	r := report(t, StatusPlan(st, []EngineView{v}, sha1, SeverityMedium), "bugbot")
	if r.Verdict != VerdictClean || len(r.Active) != 0 || !slices.Equal(r.BelowFloor, []int64{1}) {
		t.Fatalf("status, clean-at medium: bugbot = %+v, want CLEAN with finding 1 below the floor", r)
	}
	if ok, why := IsCleanAt(st, v, sha1, SeverityMedium); !ok {
		t.Fatalf("IsCleanAt medium = not clean (%s), want clean as Decide says", why)
	}
	r = report(t, StatusPlan(st, []EngineView{v}, sha1, ""), "bugbot")
	if r.Verdict == VerdictClean || !slices.Equal(r.Active, []int64{1}) || len(r.BelowFloor) != 0 {
		t.Fatalf("status, clean-at any: bugbot = %+v, want not clean with finding 1 active", r)
	}
}
