package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// TestFileContent_ReadsAFileOfTheDefaultBranchOrSaysItIsMissing: the
// repository config of a run with no checkout is read through the
// contents API; a missing file is no error, a directory is one.
func TestFileContent_ReadsAFileOfTheDefaultBranchOrSaysItIsMissing(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	if err := e.f.SetProtected("o", "r", "main", false); err != nil {
		t.Fatal(err)
	}
	const cfg = "shared_paths:\n  - src/lib/**\n"
	if _, err := e.f.PushCommit("o", "r", "main", map[string]string{".github/review-loop.yml": cfg}, "config"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.PushCommit("o", "r", "feat", map[string]string{".github/review-loop.yml": "other\n"}, "config on the PR branch"); err != nil {
		t.Fatal(err)
	}
	got, found, err := e.c.FileContent(ctx, "o", "r", ".github/review-loop.yml", "")
	if err != nil || !found || string(got) != cfg {
		t.Errorf("FileContent = %q, %v, %v; want the default branch's file", got, found, err)
	}
	if got, found, err := e.c.FileContent(ctx, "o", "r", ".github/review-loop.yml", "feat"); err != nil || !found || string(got) != "other\n" {
		t.Errorf("FileContent at feat = %q, %v, %v; want the branch's file", got, found, err)
	}
	if got, found, err := e.c.FileContent(ctx, "o", "r", ".github/nothing.yml", ""); err != nil || found || got != nil {
		t.Errorf("a missing file: %q, %v, %v; want not found and no error", got, found, err)
	}
	if _, _, err := e.c.FileContent(ctx, "o", "r", ".github", ""); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a directory: err = %v, want one saying it is a directory", err)
	}
	assertContract(t, e.rec)
}

// TestObserve_ActionsCheckRunsNameTheirWorkflow: an Actions check run is a
// job of one workflow run, in a check suite of its own; the observation
// names the workflow file, so Copilot's dynamic workflow is told from a
// repository's own job of the same name. Other apps' check runs name none.
func TestObserve_ActionsCheckRunsNameTheirWorkflow(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	for _, o := range []ghfake.CheckRunOptions{
		{Name: "Agent", AppSlug: "github-actions", WorkflowPath: "dynamic/copilot-pull-request-reviewer/copilot-pull-request-reviewer", Status: "IN_PROGRESS"},
		{Name: "Agent", AppSlug: "github-actions", WorkflowPath: ".github/workflows/agents.yml", Conclusion: "FAILURE"},
		{Name: "Cursor Bugbot", AppSlug: "cursor", Conclusion: "SUCCESS"},
	} {
		if _, err := e.f.SetCheckRun("o", "r", e.pr, o); err != nil {
			t.Fatal(err)
		}
	}
	obs, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, cr := range obs.CheckRuns {
		got[cr.AppSlug+"/"+cr.Name+"/"+cr.Conclusion] = cr.WorkflowPath
	}
	want := map[string]string{
		"github-actions/Agent/":        "dynamic/copilot-pull-request-reviewer/copilot-pull-request-reviewer",
		"github-actions/Agent/FAILURE": ".github/workflows/agents.yml",
		"cursor/Cursor Bugbot/SUCCESS": "",
	}
	for k, v := range want {
		if p, ok := got[k]; !ok || p != v {
			t.Errorf("check run %s: workflow %q (seen %v), want %q", k, p, ok, v)
		}
	}
	assertContract(t, e.rec)
}
