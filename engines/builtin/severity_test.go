package builtin

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/loop"
)

// TestRule_EQ3_EachEnginesSeverityWordsMapToOneScale: every severity word
// the real samples carry, read by its engine's own parser from the line
// it stands on, lands on the one scale the clean-at floor compares;
// Claude's documented markers too (no real inline body of the managed
// service is on record, testdata/engines/claude/05-…); an engine that
// states no severity (Copilot) is unknown, which counts as medium.
func TestRule_EQ3_EachEnginesSeverityWordsMapToOneScale(t *testing.T) {
	cases := []struct {
		engine, file string
		word         *regexp.Regexp
		want         loop.Severity
	}{
		{"bugbot", "01-inline-high-severity-people-directory-pr1.md", regexp.MustCompile(`\*\*High Severity\*\*`), loop.SeverityHigh},
		{"bugbot", "02-inline-medium-additional-locations-people-directory-pr2.md", regexp.MustCompile(`\*\*Medium Severity\*\*`), loop.SeverityMedium},
		{"coderabbit", "01-inline-comment-2026-format-roundfix-pr154.md", regexp.MustCompile(`_🟠 Major_`), loop.SeverityHigh},
		{"coderabbit", "10-review-bodies-included-availability-jdx-mise-pr13233.md", regexp.MustCompile(`_🟡 Minor_`), loop.SeverityMedium},
		{"coderabbit", "12-inline-nitpick-assertive-partcad-pr220.md", regexp.MustCompile(`(?m)^_(?::broom:|🧹) Nitpick \(assertive\)_`), loop.SeverityLow},
		{"gemini", "02-inline-critical-video-agent-skill-pr20.md", regexp.MustCompile(`!\[critical\]\([^)]*\)`), loop.SeverityCritical},
		{"gemini", "01-review-body-and-inline-tbxark-mcp-proxy-pr49.md", regexp.MustCompile(`!\[high\]\([^)]*\)`), loop.SeverityHigh},
		{"gemini", "01-review-body-and-inline-tbxark-mcp-proxy-pr49.md", regexp.MustCompile(`!\[medium\]\([^)]*\)`), loop.SeverityMedium},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join(samples.Dir(t, c.engine), c.file))
		if err != nil {
			t.Fatal(err)
		}
		line := lineOf(string(b), c.word)
		if line == "" {
			t.Errorf("%s/%s: no line carries %s", c.engine, c.file, c.word)
			continue
		}
		if got := parseFinding(t, c.engine, line+"\n\nbody text").Severity; got != c.want {
			t.Errorf("%s %q: severity %q, want %q", c.engine, line, got, c.want)
		}
	}
	// Claude's managed markers, as the sample transcribes them.
	b, err := os.ReadFile(filepath.Join(samples.Dir(t, "claude"), "05-managed-code-review-check-run-text.md"))
	if err != nil {
		t.Fatal(err)
	}
	for mark, want := range map[string]loop.Severity{"🔴 Important": loop.SeverityHigh, "🟡 Nit": loop.SeverityLow, "🟣 Pre-existing": loop.SeverityLow} {
		if !strings.Contains(string(b), mark) {
			t.Errorf("the Claude sample does not name %q", mark)
		}
		if got := parseFinding(t, "claude", "**"+mark+"**\n\nThe retry loop never stops.").Severity; got != want {
			t.Errorf("claude %q: severity %q, want %q", mark, got, want)
		}
	}
	// Copilot states none: unknown, which the floor counts as medium.
	b, err = os.ReadFile(filepath.Join(samples.Dir(t, "copilot"), "06-inline-comment-bodies-public-threads.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := parseFinding(t, "copilot", string(b)).Severity
	if got != loop.SeverityUnknown && got != "" {
		t.Errorf("copilot severity %q, want unknown", got)
	}
	if loop.BelowFloor(got, loop.SeverityMedium) || !loop.BelowFloor(got, loop.SeverityHigh) {
		t.Errorf("an unrated finding is not counted as medium by the floor")
	}
}

func lineOf(s string, re *regexp.Regexp) string {
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
