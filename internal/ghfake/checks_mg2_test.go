package ghfake_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// TestRule_MG2_aGitHubTokenCheckRunIsFiledIntoAnExistingActionsSuite: on
// GitHub a check run created with GITHUB_TOKEN joins an existing GitHub
// Actions check suite of the commit, so review-loop's gate can sit inside
// an engine's workflow suite; the fake does the same.
func TestRule_MG2_aGitHubTokenCheckRunIsFiledIntoAnExistingActionsSuite(t *testing.T) {
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	if err := f.AddRepo("octo", "demo", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "feature", Files: map[string]string{"a.go": "package a\n"}}); err != nil {
		t.Fatal(err)
	}
	f.AddToken("ghs_actions", ghfake.Identity{Login: "github-actions[bot]", Bot: true})
	const path = "dynamic/agents/copilot-pull-request-reviewer/copilot-pull-request-reviewer"
	if _, err := f.SetCheckRun("octo", "demo", 1, ghfake.CheckRunOptions{Name: "copilot-pull-request-reviewer", AppSlug: "github-actions", Status: "IN_PROGRESS", WorkflowPath: path}); err != nil {
		t.Fatal(err)
	}
	head := f.PR("octo", "demo", 1).HeadSHA
	body, _ := json.Marshal(map[string]any{"name": "review-loop", "head_sha": head, "status": "in_progress"})
	req, _ := http.NewRequest(http.MethodPost, f.URL()+"/repos/octo/demo/check-runs", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer ghs_actions")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	for _, c := range f.PR("octo", "demo", 1).CheckRuns {
		if c.Name == "review-loop" {
			if c.WorkflowPath != path {
				t.Fatalf("the gate sits in suite %q, want Copilot's workflow suite %q", c.WorkflowPath, path)
			}
			return
		}
	}
	t.Fatal("no review-loop check run")
}
