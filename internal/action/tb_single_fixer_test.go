package action_test

import (
	"strings"
	"testing"
)

// toolFileClaims are the files hardened mode's publish job refuses when
// the prepare job claims them (TB10); in a single job the fixer itself
// writes them (TB9).
var toolFileClaims = []string{".github/actions/x/action.yml", ".gitattributes", ".gitmodules", ".husky/pre-commit", ".github/review-loop.yml"}

// fixerScript is a fixer command that fixes calc/calc.go, writes each of
// extra, and reports every finding of its input fixed.
func fixerScript(t *testing.T, extra []string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range extra {
		b.WriteString("mkdir -p \"$(dirname '" + p + "')\" && echo 'planted by the fixer' > '" + p + "'\n")
	}
	b.WriteString(`sed -i 's/a - b/a + b/' calc/calc.go
ids=$(grep -o '"id": *"[^"]*"' "$REVIEW_LOOP_FINDINGS" | sed 's/.*"\([^"]*\)"$/"\1"/' | paste -sd, -)
printf '{"fixed":[%s],"outdated":[],"disagreed":[],"error":null}\n' "$ids"
`)
	return script(t, b.String())
}

// The hardened-publish claims, made in a single job, where there is no
// prepare job to tamper with but the fixer command runs on the PR's code:
// it fixes calc/calc.go and also writes every tool-configuring file of
// toolFileClaims. The cycle is refused naming each of them, and nothing
// is pushed.
func TestRule_TB9_TheBuiltSingleJobRefusesToolFilesItsFixerWrites(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"single", "single, no checkout"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			g.mayFail = true
			inputs := map[string]string{"engines": "copilot", "fixer": "command", "fixer-command": fixerScript(t, toolFileClaims)}
			g.cycle(t, "workflow_dispatch", dispatch("1"), inputs)
			_, r := g.cycle(t, "pull_request_review", g.e.copilotSuggestion(t), inputs)
			if got := g.e.pushedFiles(t, g.e.head); got != "" {
				t.Fatalf("pushed %q, want nothing\n%s\n%s", got, r.stdout, r.stderr)
			}
			for _, p := range toolFileClaims {
				if !strings.Contains(r.stdout+r.stderr, p) {
					t.Errorf("the refusal does not name %s:\n%s\n%s", p, r.stdout, r.stderr)
				}
			}
		})
	}
}

// A finding marked fixed whose file the fix does not touch, in a single
// job: the fixer command fixes calc/calc.go and reports the README.md
// finding fixed too. The pushed fix holds calc/calc.go, and the README.md
// finding is neither resolved nor recorded fixed.
func TestRule_TB10_TheBuiltSingleJobMarksFixedOnlyWhereTheFixTouches(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"single", "single, no checkout"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			inputs := map[string]string{"engines": "copilot", "fixer": "command", "fixer-command": fixerScript(t, nil)}
			g.cycle(t, "workflow_dispatch", dispatch("1"), inputs)
			_, r := g.cycle(t, "pull_request_review", g.e.copilotSuggestions(t, readmeSuggestion), inputs)
			if got := g.e.pushedFiles(t, g.e.head); got != "calc/calc.go" {
				t.Fatalf("pushed %q, want calc/calc.go only\n%s\n%s", got, r.stdout, r.stderr)
			}
			g.e.wantReadmeNotFixed(t, "the fixer's")
		})
	}
}
