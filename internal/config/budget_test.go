package config

import (
	"strings"
	"testing"
)

func TestRule_B7_RateLimitFloorAndSweepFanoutInputs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, floor, fanout string
		abs, pct            int
		mode, err           string
	}{
		{name: "defaults are dispatch and a tenth of the limit", abs: 0, pct: 10, mode: SweepDispatch},
		{name: "a percentage", floor: "25%", pct: 25, mode: SweepDispatch},
		{name: "an absolute number of requests", floor: "150", abs: 150, mode: SweepDispatch},
		{name: "inline fan-out", fanout: "Inline", pct: 10, mode: SweepInline},
		{name: "a percentage over 100 is refused", floor: "120%", err: "rate-limit-floor"},
		{name: "words are refused", floor: "lots", err: "rate-limit-floor"},
		{name: "an unknown fan-out is refused", fanout: "parallel", err: "sweep-fanout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := baseEnv()
			if tc.floor != "" {
				e["INPUT_RATE-LIMIT-FLOOR"] = tc.floor
			}
			if tc.fanout != "" {
				e["INPUT_SWEEP-FANOUT"] = tc.fanout
			}
			c, err := Load(env(e))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.RateLimitFloor != tc.abs || c.RateLimitFloorPercent != tc.pct || c.SweepFanout != tc.mode {
				t.Fatalf("floor %d/%d%% fanout %s, want %d/%d%% %s", c.RateLimitFloor, c.RateLimitFloorPercent, c.SweepFanout, tc.abs, tc.pct, tc.mode)
			}
		})
	}
}
