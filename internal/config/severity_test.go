package config

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// EQ3: a repository's config may add severity words to any engine's
// mapping, in the shape of engines/defs/ (engine_severity_markers); they
// are checked like the built-in ones, every problem named by its field,
// and an engine review-loop does not know is an error.
func TestRule_EQ3_TheConfigsSeverityMarkersAreChecked(t *testing.T) {
	t.Parallel()
	rc, err := ParseRepo([]byte("engine_severity_markers:\n  bugbot:\n    - pattern: '\\*\\*Blocker\\*\\*'\n      severity: critical\n"), configFile)
	if err != nil {
		t.Fatal(err)
	}
	if ms := rc.Severities["bugbot"]; len(ms) != 1 || ms[0].Severity != loop.SeverityCritical {
		t.Fatalf("severities %+v", rc.Severities)
	}
	if _, err := BuildRegistry(Config{}, rc); err != nil {
		t.Fatalf("a known engine was refused: %v", err)
	}
	_, err = ParseRepo([]byte("engine_severity_markers:\n  bugbot:\n    - pattern: 'x'\n      severity: urgent\n    - pattern: 'y'\n      severty: low\n"), configFile)
	for _, want := range []string{`engine_severity_markers.bugbot[0].severity: "urgent" is not on the scale`, "engine_severity_markers.bugbot[1].severty: unknown field"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	rc, err = ParseRepo([]byte("engine_severity_markers:\n  bugbott:\n    - pattern: 'x'\n      severity: low\n"), configFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildRegistry(Config{}, rc); err == nil || !strings.Contains(err.Error(), "engine_severity_markers.bugbott: unknown engine") {
		t.Errorf("an unknown engine's severity words: %v", err)
	}
}
