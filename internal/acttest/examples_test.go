package acttest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goccy/go-yaml"
)

// claudeWorkflowNames are the workflow names anthropics/claude-code-action
// gives the workflows that post Claude's reviews: "Claude Code Review" is
// the generated code-review workflow (job claude-review, on pull_request),
// "Claude Code" is examples/claude.yml (job claude), the workflow that
// answers the `@claude review once` comment review-loop posts as its
// trigger (claude-code-action@24dcd50, examples/claude.yml; the generated
// .github/workflows/claude-code-review.yml of c6cc834). A workflow_run list
// without "Claude Code" never wakes the loop after its own trigger.
var claudeWorkflowNames = []string{"Claude Code Review", "Claude Code"}

func TestExamples_WorkflowRunWatchesClaudeCodeActionsWorkflowNames(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "examples", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workflows found (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On map[string]any `yaml:"on"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		wr, ok := wf.On["workflow_run"].(map[string]any)
		if !ok {
			continue
		}
		var names []string
		list, _ := wr["workflows"].([]any)
		for _, n := range list {
			if s, ok := n.(string); ok {
				names = append(names, s)
			}
		}
		for _, name := range claudeWorkflowNames {
			if !slices.Contains(names, name) {
				t.Errorf("%s: workflow_run.workflows %q lacks %q, the name claude-code-action gives its workflow", filepath.Base(f), names, name)
			}
		}
	}
}
