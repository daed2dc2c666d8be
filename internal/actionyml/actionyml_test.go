package actionyml

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/sethvargo/go-githubactions"
)

func root(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Root(wd)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func loadAction(t *testing.T) *Action {
	t.Helper()
	a, err := Load(filepath.Join(root(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wantDefaults is the inputs contract: every input and its default.
var wantDefaults = map[string]string{
	"github-token": "${{ github.token }}", "push-token": "", "trigger-token": "",
	"engines": "", "pr": "", "trigger-phrase": "@review-loop",
	"allowed-associations": "OWNER,MEMBER,COLLABORATOR", "max-commits": "20",
	"max-active-minutes": "240", "max-idle-minutes": "45", "stall-factor": "3", "yield-minutes": "30",
	"divergence-stop": "true", "prose-rounds": "2", "paths-ignore": "", "clean-at": "",
	"max-consecutive-errors": "2", "copilot-only": "false", "max-iterations": "5",
	"wait-initial": "180", "poll-interval": "30", "poll-timeout": "600",
	"wait-seconds": "0", "keep-draft": "false", "context-files": "",
	"setup-command": "", "test-command": "", "lint-command": "",
	"regression-command": "", "fixer": "suggestions", "fixer-command": "",
	"fixer-timeout": "15m", "judge-command": "", "anthropic-api-key": "",
	"judge-model": "", "non-blocking": "report", "claude-workflow-job": "claude-review",
	"config-file":         ".github/review-loop.yml",
	"commit-author-name":  "github-actions[bot]",
	"commit-author-email": "41898282+github-actions[bot]@users.noreply.github.com",
	"dry-run":             "false", "binary-path": "", "version": "",
	"mode": "single", "artifact-dir": "", "prepared": "", "start-on": "command", "shared-paths": "", "ci-workflows": "",
	"sweep-fanout": "dispatch", "rate-limit-floor": "10%",
	"openai-api-key": "", "fixer-model": "", "fixer-max-turns": "40",
	"max-patch-files": "100", "max-patch-bytes": "1048576",
}

func TestAction_declaresEveryInputWithItsDocumentedDefault(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	var names []string
	for _, in := range a.Inputs {
		names = append(names, in.Name)
		if strings.TrimSpace(in.Description) == "" {
			t.Errorf("input %s has no description", in.Name)
		}
		if in.Required {
			t.Errorf("input %s is required; every input has a default", in.Name)
		}
		want, ok := wantDefaults[in.Name]
		switch {
		case !ok:
			t.Errorf("input %s is not in the inputs contract", in.Name)
		case in.Default == nil:
			t.Errorf("input %s has no default, want %q", in.Name, want)
		case *in.Default != want:
			t.Errorf("input %s defaults to %q, want %q", in.Name, *in.Default, want)
		}
	}
	for name := range wantDefaults {
		if !slices.Contains(names, name) {
			t.Errorf("input %s is missing from action.yml", name)
		}
	}
	if a.Name == "" || a.Description == "" || a.Author == "" || a.Branding.Icon == "" || a.Branding.Color == "" {
		t.Errorf("name, description, author and branding are required, got %+v", a)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
}

func TestAction_mapsEveryInputToTheVariableGetInputReads(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	cycle := a.Step("cycle")
	if cycle == nil {
		t.Fatal("no step with id cycle")
	}
	env := map[string]string{}
	for _, in := range a.Inputs {
		key := EnvName(in.Name)
		want := "${{ inputs." + in.Name + " }}"
		if got, ok := cycle.Env[key]; !ok || got != want {
			t.Errorf("cycle step env %s = %q, want %q", key, got, want)
		}
		env[key] = "value of " + in.Name
	}
	// The mapping holds only if go-githubactions reads exactly these names.
	gha := githubactions.New(githubactions.WithGetenv(func(k string) string { return env[k] }))
	for _, in := range a.Inputs {
		if got := gha.GetInput(in.Name); got != "value of "+in.Name {
			t.Errorf("GetInput(%q) = %q: EnvName disagrees with go-githubactions", in.Name, got)
		}
	}
	for key, val := range cycle.Env {
		if strings.HasPrefix(key, "INPUT_") && env[key] == "" {
			t.Errorf("cycle step env %s = %q maps no declared input", key, val)
		}
	}
	for _, s := range a.Runs.Steps {
		if s.ID == "cycle" {
			continue
		}
		for key := range s.Env {
			if strings.HasPrefix(key, "INPUT_") {
				t.Errorf("step %q sets %s; inputs are mapped once, in the cycle step", s.Name, key)
			}
		}
	}
	if !strings.Contains(cycle.Run, "cycle") {
		t.Errorf("cycle step runs %q, want review-loop cycle", cycle.Run)
	}
}

var stepOutput = regexp.MustCompile(`^\$\{\{ steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+) \}\}$`)

func TestAction_takesEveryOutputFromAStep(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	want := []string{"active-findings", "commits", "cost-json", "phase", "prepared", "publish", "reason", "report-json", "verdict"}
	var got []string
	for _, out := range a.Outputs {
		got = append(got, out.Name)
		m := stepOutput.FindStringSubmatch(out.Value)
		if m == nil {
			t.Errorf("output %s = %q, want ${{ steps.<id>.outputs.<name> }}", out.Name, out.Value)
			continue
		}
		if a.Step(m[1]) == nil {
			t.Errorf("output %s reads step %q, which does not exist", out.Name, m[1])
		}
		if m[2] != out.Name {
			t.Errorf("output %s reads step output %q; names must match what the binary sets", out.Name, m[2])
		}
		if out.Description == "" {
			t.Errorf("output %s has no description", out.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("outputs = %v, want %v", got, want)
	}
}

func TestAction_neverInterpolatesExpressionsIntoScripts(t *testing.T) {
	t.Parallel()
	for _, s := range loadAction(t).Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env:", s.Name)
		}
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %q has no shell; composite run steps need one", s.Name)
		}
	}
}

var (
	usesLine = regexp.MustCompile(`^\s*(?:-\s+)?uses:\s*(\S+)(.*)$`)
	pinned   = regexp.MustCompile(`^[^@\s]+@[0-9a-f]{40}$`)
	verNote  = regexp.MustCompile(`^\s*#\s*v\d+(\.\d+)*\s*$`)
)

// checkPins requires every third-party action in a YAML file to be pinned
// by a full commit SHA with a version comment, except those in allow.
func checkPins(t *testing.T, path string, allow ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		m := usesLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], "./") || slices.Contains(allow, m[1]) {
			continue
		}
		if !pinned.MatchString(m[1]) || !verNote.MatchString(m[2]) {
			t.Errorf("%s:%d: %s is not pinned by a full SHA with a version comment", path, i+1, strings.TrimSpace(line))
		}
	}
}

func workflowFiles(t *testing.T) []string {
	t.Helper()
	r := root(t)
	var files []string
	for _, pattern := range []string{".github/workflows/*.yml", "docs/examples/*.yml"} {
		m, err := filepath.Glob(filepath.Join(r, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

func TestActionsArePinnedBySHA(t *testing.T) {
	t.Parallel()
	checkPins(t, filepath.Join(root(t), "action.yml"))
	for _, f := range workflowFiles(t) {
		// The examples call review-loop at @main until v1 is released.
		checkPins(t, f, "review-loop/review-loop@main")
	}
}

// actionlintModule is run with `go run module@version`, outside this
// module's build list: go.yaml.in/yaml/v4 v4.0.0, required by kin-openapi,
// does not compile with actionlint v1.7.12 (built against v4.0.0-rc.3).
const actionlintModule = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// stepsWorkflow wraps the composite steps in a workflow whose
// workflow_call inputs mirror the action's inputs, so actionlint (which
// does not check the steps of action metadata) can lint them.
func stepsWorkflow(t *testing.T, a *Action) []byte {
	t.Helper()
	inputs := yaml.MapSlice{}
	for _, in := range a.Inputs {
		inputs = append(inputs, yaml.MapItem{Key: in.Name, Value: map[string]any{"type": "string", "required": false}})
	}
	var steps []any
	for _, s := range a.Runs.Steps {
		step := yaml.MapSlice{}
		add := func(k string, v any, keep bool) {
			if keep {
				step = append(step, yaml.MapItem{Key: k, Value: v})
			}
		}
		add("name", s.Name, s.Name != "")
		add("id", s.ID, s.ID != "")
		add("if", s.If, s.If != "")
		add("uses", s.Uses, s.Uses != "")
		add("with", s.With, len(s.With) > 0)
		add("shell", s.Shell, s.Shell != "")
		add("env", s.Env, len(s.Env) > 0)
		add("run", s.Run, s.Run != "")
		steps = append(steps, step)
	}
	wf := yaml.MapSlice{
		{Key: "name", Value: "action.yml steps"},
		{Key: "on", Value: map[string]any{"workflow_call": map[string]any{"inputs": inputs}}},
		{Key: "permissions", Value: map[string]any{}},
		{Key: "jobs", Value: map[string]any{"steps": map[string]any{"runs-on": "ubuntu-latest", "steps": steps}}},
	}
	content, err := yaml.MarshalWithOptions(wf, yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		t.Fatal(err)
	}
	return content
}

// TestAction_stepsPassActionlint catches script injection, unknown contexts
// and expressions, and (when shellcheck is installed) script bugs in the
// composite steps.
func TestAction_stepsPassActionlint(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs actionlint through go run; skipped with -short")
	}
	content := stepsWorkflow(t, loadAction(t))
	dir := t.TempDir()
	wf := filepath.Join(dir, "action-steps.yml")
	if err := os.WriteFile(wf, content, 0o600); err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to run actionlint with")
	}
	cmd := exec.Command(goBin, "run", actionlintModule, "-format", "{{json .}}", wf)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var findings []struct {
		Message string `json:"message"`
		Line    int    `json:"line"`
		Kind    string `json:"kind"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &findings); err != nil {
		msg := fmt.Sprintf("could not run actionlint (%v): %s", runErr, stderr.String())
		if os.Getenv("REVIEW_LOOP_CONTRACT") == "required" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	for _, f := range findings {
		t.Errorf("action.yml steps, line %d of the wrapped workflow: %s [%s]", f.Line, f.Message, f.Kind)
	}
	if t.Failed() {
		t.Logf("wrapped workflow:\n%s", content)
	}
}
