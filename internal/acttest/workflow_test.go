package acttest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// examplePath is the workflow users copy from the README, relative to the
// repository root. The workflow act runs is generated from it at test time,
// so the two cannot drift apart.
const examplePath = "docs/examples/review-loop.yml"

// localActionDir is where the copy step links this repository inside the
// workspace. act reads a local action (`uses: ./…`) from the workspace, and
// the workspace must be the PR's checkout for review-loop to commit and
// push, so this repository's action.yml is linked in beside it (and kept
// out of git through .git/info/exclude).
const localActionDir = ".review-loop-action"

// outputNames are the action's outputs the generated workflow records.
var outputNames = []string{"phase", "verdict", "reason", "commits", "active-findings"}

// workflowParams are what the generated workflow needs from the test.
type workflowParams struct {
	// Checkout is the PR checkout the copy step copies into the workspace.
	Checkout string
	// ActionRoot is this repository, whose action.yml is under test.
	ActionRoot string
	// OutputsFile receives the action's outputs, one name=value per line.
	OutputsFile string
	// ExtraWith adds inputs to the action step; only benchmarks set it
	// (binary-path), so tests run the example's `with:` unchanged.
	ExtraWith map[string]string
}

// testWorkflow is the generated workflow and what the test needs to know
// about it.
type testWorkflow struct {
	YAML []byte
	// ActionStepID is the id of the review-loop step.
	ActionStepID string
	// Labels are the jobs' runs-on labels, each mapped to the host by -P.
	Labels []string
}

// generateWorkflow turns the example workflow into one act runs offline in
// host mode. Only three things change: the actions/checkout step becomes a
// step that copies the PR checkout into the workspace (act's host mode does
// not copy --directory into it, and actions/checkout would need the
// network); the review-loop step uses this repository's action through
// `uses: ./.review-loop-action`; and a step after it records the action's
// outputs. `on`, `permissions` and the action step's `with` are kept as
// they are.
func generateWorkflow(example []byte, p workflowParams) (testWorkflow, error) {
	var doc yaml.MapSlice
	if err := yaml.UnmarshalWithOptions(example, &doc, yaml.UseOrderedMap()); err != nil {
		return testWorkflow{}, fmt.Errorf("parsing the example workflow: %w", err)
	}
	jobs, ok := lookup(doc, "jobs").(yaml.MapSlice)
	if !ok {
		return testWorkflow{}, errors.New("the example workflow has no jobs")
	}
	var out testWorkflow
	var checkouts, actions int
	for ji := range jobs {
		job, ok := jobs[ji].Value.(yaml.MapSlice)
		if !ok {
			return testWorkflow{}, fmt.Errorf("job %v is not a mapping", jobs[ji].Key)
		}
		switch v := lookup(job, "runs-on").(type) {
		case string:
			out.Labels = appendNew(out.Labels, v)
		case []any:
			for _, l := range v {
				out.Labels = appendNew(out.Labels, fmt.Sprint(l))
			}
		}
		steps, _ := lookup(job, "steps").([]any)
		var newSteps []any
		for si, raw := range steps {
			step, ok := raw.(yaml.MapSlice)
			if !ok {
				return testWorkflow{}, fmt.Errorf("job %v step %d is not a mapping", jobs[ji].Key, si)
			}
			uses, _ := lookup(step, "uses").(string)
			switch {
			case uses == "":
				newSteps = append(newSteps, step)
			case strings.HasPrefix(uses, "actions/checkout@"):
				checkouts++
				newSteps = append(newSteps, copyStep(p))
			case uses == "review-loop/review-loop" || strings.HasPrefix(uses, "review-loop/review-loop@"):
				actions++
				id, _ := lookup(step, "id").(string)
				if id == "" {
					id = "review-loop"
					step = set(step, "id", id)
				}
				step = set(step, "uses", "./"+localActionDir)
				if len(p.ExtraWith) > 0 {
					with, _ := lookup(step, "with").(yaml.MapSlice)
					for _, k := range sortedKeys(p.ExtraWith) {
						with = set(with, k, p.ExtraWith[k])
					}
					step = set(step, "with", with)
				}
				out.ActionStepID = id
				newSteps = append(newSteps, step, outputsStep(id, p.OutputsFile))
			case strings.HasPrefix(uses, "./"):
				newSteps = append(newSteps, step)
			default:
				return testWorkflow{}, fmt.Errorf("job %v step %d uses %s: act would fetch it from the network; only actions/checkout may be replaced", jobs[ji].Key, si, uses)
			}
		}
		if checkouts == 0 && len(newSteps) > 0 {
			// No checkout step: review-loop clones the PR itself when a
			// cycle needs the tree; only the local action is linked in.
			newSteps = append([]any{linkStep(p)}, newSteps...)
		}
		jobs[ji].Value = set(job, "steps", newSteps)
	}
	if checkouts > 1 || actions != 1 {
		return testWorkflow{}, fmt.Errorf("the example workflow has %d actions/checkout steps and %d review-loop steps; want at most one checkout and one review-loop step", checkouts, actions)
	}
	b, err := yaml.MarshalWithOptions(doc, yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		return testWorkflow{}, fmt.Errorf("writing the test workflow: %w", err)
	}
	out.YAML = b
	return out, nil
}

// copyStep stands in for actions/checkout. Paths reach the script through
// env, never interpolated into it.
func copyStep(p workflowParams) yaml.MapSlice {
	return yaml.MapSlice{
		{Key: "name", Value: "Copy the PR checkout and this repository's action into the workspace"},
		{Key: "shell", Value: "bash"},
		{Key: "env", Value: yaml.MapSlice{
			{Key: "CHECKOUT", Value: p.Checkout},
			{Key: "ACTION_ROOT", Value: p.ActionRoot},
		}},
		{Key: "run", Value: strings.Join([]string{
			"set -euo pipefail",
			`cp -a "$CHECKOUT/." "$GITHUB_WORKSPACE/"`,
			`ln -s "$ACTION_ROOT" "$GITHUB_WORKSPACE/` + localActionDir + `"`,
			`echo "/` + localActionDir + `" >> "$GITHUB_WORKSPACE/.git/info/exclude"`,
			"",
		}, "\n")},
	}
}

// linkStep links this repository's action into the workspace of a job
// with no checkout step, for `uses: ./` + localActionDir.
func linkStep(p workflowParams) yaml.MapSlice {
	return yaml.MapSlice{
		{Key: "name", Value: "Link this repository's action into the workspace"},
		{Key: "shell", Value: "bash"},
		{Key: "env", Value: yaml.MapSlice{{Key: "ACTION_ROOT", Value: p.ActionRoot}}},
		{Key: "run", Value: "set -euo pipefail\nln -s \"$ACTION_ROOT\" \"$GITHUB_WORKSPACE/" + localActionDir + "\"\n"},
	}
}

// outputsStep records the action's outputs as the workflow sees them,
// through `steps.<id>.outputs`, in a file and in the log.
func outputsStep(id, file string) yaml.MapSlice {
	env := yaml.MapSlice{{Key: "OUTPUTS_FILE", Value: file}}
	var lines []string
	for _, name := range outputNames {
		v := "OUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		env = append(env, yaml.MapItem{Key: v, Value: "${{ steps." + id + ".outputs." + name + " }}"})
		lines = append(lines, fmt.Sprintf(`printf '%%s=%%s\n' %s "$%s"`, name, v))
	}
	script := "{\n" + strings.Join(lines, "\n") + "\n} | tee \"$OUTPUTS_FILE\"\n"
	return yaml.MapSlice{
		{Key: "name", Value: "Record the action's outputs"},
		{Key: "if", Value: "always()"},
		{Key: "shell", Value: "bash"},
		{Key: "env", Value: env},
		{Key: "run", Value: script},
	}
}

func lookup(m yaml.MapSlice, key string) any {
	for _, it := range m {
		if k, ok := it.Key.(string); ok && k == key {
			return it.Value
		}
	}
	return nil
}

func set(m yaml.MapSlice, key string, v any) yaml.MapSlice {
	for i, it := range m {
		if k, ok := it.Key.(string); ok && k == key {
			m[i].Value = v
			return m
		}
	}
	return append(m, yaml.MapItem{Key: key, Value: v})
}

func appendNew(s []string, v string) []string {
	if v == "" || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// repoRoot is this repository's root: go test runs in the package's
// directory, two levels below it.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readExample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), examplePath))
	if err != nil {
		t.Fatalf("reading the example workflow: %v", err)
	}
	return b
}

// workflowParts is what must be identical between the example and the
// workflow act runs.
type workflowParts struct {
	On, Permissions, With any
	Uses                  string
}

func partsOf(t *testing.T, b []byte) workflowParts {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var p workflowParts
	p.On, p.Permissions = doc["on"], doc["permissions"]
	jobs, _ := doc["jobs"].(map[string]any)
	for _, job := range jobs {
		steps, _ := job.(map[string]any)["steps"].([]any)
		for _, s := range steps {
			step, _ := s.(map[string]any)
			uses, _ := step["uses"].(string)
			if strings.HasPrefix(uses, "review-loop/review-loop") || uses == "./"+localActionDir {
				p.With, p.Uses = step["with"], uses
			}
		}
	}
	return p
}

func TestGenerateWorkflow_KeepsTheExamplesTriggersPermissionsAndInputs(t *testing.T) {
	t.Parallel()
	example := readExample(t)
	wf, err := generateWorkflow(example, workflowParams{Checkout: "/tmp/checkout", ActionRoot: "/tmp/action", OutputsFile: "/tmp/outputs"})
	if err != nil {
		t.Fatal(err)
	}
	want, got := partsOf(t, example), partsOf(t, wf.YAML)
	if want.On == nil || want.Permissions == nil {
		t.Fatalf("the example has no `on` or no `permissions`:\n%s", example)
	}
	if !reflect.DeepEqual(got.On, want.On) {
		t.Errorf("on differs:\n got %#v\nwant %#v", got.On, want.On)
	}
	if !reflect.DeepEqual(got.Permissions, want.Permissions) {
		t.Errorf("permissions differ:\n got %#v\nwant %#v", got.Permissions, want.Permissions)
	}
	if !reflect.DeepEqual(got.With, want.With) {
		t.Errorf("the action step's with differs:\n got %#v\nwant %#v", got.With, want.With)
	}
	if got.Uses != "./"+localActionDir {
		t.Errorf("the action step uses %q, want this repository's action at ./%s", got.Uses, localActionDir)
	}
	if strings.Contains(string(wf.YAML), "actions/checkout") {
		t.Errorf("the generated workflow still checks out from the network:\n%s", wf.YAML)
	}
}

func TestGenerateWorkflow_RefusesARemoteActionOtherThanCheckout(t *testing.T) {
	t.Parallel()
	src := `on: workflow_dispatch
permissions: {}
jobs:
  j:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
      - uses: review-loop/review-loop@v1
`
	if _, err := generateWorkflow([]byte(src), workflowParams{}); err == nil || !strings.Contains(err.Error(), "actions/setup-go") {
		t.Fatalf("err = %v, want a refusal naming actions/setup-go", err)
	}
}
