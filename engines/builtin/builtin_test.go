package builtin

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/internal/github"
)

func TestRegistry_knowsEveryEngineAndARepositoryDefinitionOverridesOne(t *testing.T) {
	ds, err := declarative.ParseDefinitions([]byte("engines:\n  - name: gemini\n    author: {logins: [my-gemini]}\n  - name: sonar\n    author: {id: 9}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Registry(Options{Definitions: ds})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Names(); !slices.Equal(got, []string{"bugbot", "claude", "coderabbit", "copilot", "gemini", "sonar"}) {
		t.Fatalf("%v", got)
	}
	g, _ := r.Lookup("gemini")
	if g.(*declarative.Engine).Definition().Author.Logins[0] != "my-gemini" {
		t.Fatal("repository definition did not override")
	}
}

func TestRule_IN2_defaultSetOnAPRWithNoClaudeWorkflowAndNoOtherEngines(t *testing.T) {
	r, err := Registry(Options{})
	if err != nil {
		t.Fatal(err)
	}
	names, notices := r.Default(&github.Observation{HeadSHA: "s"}, engines.Env{WorkflowFiles: []engines.WorkflowFile{}})
	if !slices.Equal(names, []string{"bugbot", "copilot"}) || len(notices) != 3 {
		t.Fatalf("%v %v", names, notices)
	}
}
