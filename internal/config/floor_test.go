package config

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// TestRule_EQ3_CleanAtIsAnInputAndAConfigKey: the clean-at input and the
// config file's clean_at set the loop's severity floor; the input wins;
// unset, the floor is any (today's behaviour); a bad value names itself.
func TestRule_EQ3_CleanAtIsAnInputAndAConfigKey(t *testing.T) {
	t.Parallel()
	load := func(input string) Config {
		t.Helper()
		e := baseEnv()
		if input != "" {
			e["INPUT_CLEAN-AT"] = input
		}
		c, err := Load(env(e))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	setup := func(c Config, file string) Setup {
		t.Helper()
		s, err := NewSetup(c, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := ParseRepo([]byte(file), ".github/review-loop.yml")
		if err != nil {
			t.Fatal(err)
		}
		if s, err = s.WithRepo(rc); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := setup(load(""), ""); s.Loop.CleanAt != "" {
		t.Errorf("default floor = %q, want none (any)", s.Loop.CleanAt)
	}
	if s := setup(load("Medium"), ""); s.Loop.CleanAt != loop.SeverityMedium {
		t.Errorf("input medium: floor = %q", s.Loop.CleanAt)
	}
	if s := setup(load(""), "clean_at: high\n"); s.Loop.CleanAt != loop.SeverityHigh {
		t.Errorf("file high: floor = %q", s.Loop.CleanAt)
	}
	if s := setup(load("low"), "clean_at: high\n"); s.Loop.CleanAt != loop.SeverityLow {
		t.Errorf("input low over file high: floor = %q, want the input's", s.Loop.CleanAt)
	}
	if s := setup(load("any"), "clean_at: high\n"); s.Loop.CleanAt != "" {
		t.Errorf("input any over file high: floor = %q, want none", s.Loop.CleanAt)
	}
	e := baseEnv()
	e["INPUT_CLEAN-AT"] = "nit"
	if _, err := Load(env(e)); err == nil || !strings.Contains(err.Error(), `input clean-at: "nit" is not one of any, low, medium, high`) {
		t.Errorf("input nit: %v", err)
	}
	if _, err := ParseRepo([]byte("clean_at: severe\n"), ".github/review-loop.yml"); err == nil ||
		!strings.Contains(err.Error(), `clean_at: "severe" is not one of any, low, medium, high`) {
		t.Errorf("file severe: %v", err)
	}
}
