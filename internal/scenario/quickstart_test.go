package scenario

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/internal/sim"
)

// quickStartInputs reads the inputs of the prepare job's review-loop step
// from the hardened workflow the README's quick start copies (the job
// that decides and fixes; the demo runs both halves in one), as the
// runner would see them on a workflow_dispatch: tokens are the world's own
// (the runner passes them), other secrets get a value of the world (so an
// expression that tests whether a secret is set picks its first value),
// and `inputs.*` are empty.
func quickStartInputs(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "review-loop-hardened.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	expr := regexp.MustCompile(`^\$\{\{\s*([a-z]+)\.([A-Za-z0-9_.-]+)\s*\}\}$`)
	ifSecret := regexp.MustCompile(`^\$\{\{\s*secrets\.[A-Za-z0-9_]+ != '' && '([^']*)' \|\| '[^']*'\s*\}\}$`)
	for _, job := range wf.Jobs {
		for _, st := range job.Steps {
			if strings.HasPrefix(st.Uses, "actions/checkout@") {
				t.Fatalf("the quick start's workflow checks out, the demo (checkout: none) does not: make them agree")
			}
		}
		for _, st := range job.Steps {
			if !strings.HasPrefix(st.Uses, "review-loop/review-loop") {
				continue
			}
			if st.With["mode"] != "prepare" {
				continue
			}
			in := map[string]string{}
			for k, v := range st.With {
				if k == "mode" || k == "artifact-dir" {
					continue // the demo runs both halves in one job
				}
				m := expr.FindStringSubmatch(strings.TrimSpace(v))
				if w := ifSecret.FindStringSubmatch(strings.TrimSpace(v)); w != nil {
					in[k] = w[1] // the world has every secret
					continue
				}
				switch {
				case m == nil:
					in[k] = v
				case k == "github-token" || k == "push-token" || k == "trigger-token":
					// the world's tokens
				case m[1] == "secrets":
					in[k] = "world-" + strings.ToLower(m[2])
				case m[1] == "inputs":
					// empty on the dispatch that starts the loop
				default:
					t.Fatalf("input %s: the world cannot evaluate %s", k, v)
				}
			}
			return in
		}
	}
	t.Fatal("docs/examples/review-loop-hardened.yml has no prepare step of review-loop/review-loop")
	return nil
}

// The quick start's own inputs, run through the built-in demo world
// (simulated engines, the simulated agent as claude, a local Messages API
// as the Anthropic judge), reach a clean hand-back.
func TestDemo_TheQuickStartInputsReachACleanHandBack(t *testing.T) {
	inputs := quickStartInputs(t)
	progress := runDemo(t, func(sc *sim.Scenario) {
		if sc.Checkout != "none" {
			t.Fatalf("the demo has checkout %q; the quick start's workflow has no checkout step", sc.Checkout)
		}
		sc.Inputs = inputs
	}, true)
	for _, want := range []string{"· bugbot high calc/calc.go:15 — Div panics on a zero divisor", "fix commit ", `test for bugbot "Div panics on a zero divisor": go test`,
		"3 review thread(s) resolved", "why: ", "cloned the PR head (one commit)"} {
		if !strings.Contains(progress, want) {
			t.Errorf("the demo never printed %q:\n%s", want, progress)
		}
	}
}

// `fixer: codex` runs the same demo through the world's codex CLI: its
// reply comes back through the file the prompt names. Its test command is
// the scenarios' (see the package comment): the fixes are the demo's,
// which the quick start's `go test` already tests.
func TestDemo_CodexFixerReachesACleanHandBack(t *testing.T) {
	runDemo(t, func(sc *sim.Scenario) {
		sc.Inputs = map[string]string{"fixer": "codex", "openai-api-key": "world-openai", "anthropic-api-key": "world-anthropic", "test-command": "gofmt -e -l {packages}"}
	}, false)
}

// TR2 with the quick start as copied and the ANTHROPIC_API_KEY secret
// set: a Copilot prose finding that TR4 justifies is Tier 2, so the
// first status comment that lists it says in one line what to comment;
// once the owner comments it, the agent fixes it and the loop ends clean.
// The scenario file runs the same path with the scenarios' test command;
// this runs it with the workflow's own inputs (go test included).
func TestRule_TR2_TheQuickStartFixesAProseFindingOnceApproved(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	inputs := quickStartInputs(t)
	if inputs["fixer"] != "claude-code" {
		t.Fatalf("the quick start with ANTHROPIC_API_KEY set has fixer %q, want claude-code", inputs["fixer"])
	}
	sc, err := sim.LoadScenario(filepath.Join(scenarioDir(t), "tr2-quick-start-prose-finding-approved-then-fixed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	inputs["engines"] = "copilot"
	sc.Inputs = inputs
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	res, err := Run(context.Background(), sc, Options{Self: []string{self}, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("inputs %v:\n  %s\n%s\nfinal status comment:\n%s", inputs, strings.Join(res.Problems, "\n  "), progress.String(), res.Report)
	}
}
