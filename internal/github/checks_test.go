package github_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

// TestRule_MG1_checkRunCreateAndUpdateMatchTheContract creates the merge
// gate's check run in progress, completes it, and reads it back in the
// observation like any other app's check run; every request and answer
// validates against GitHub's OpenAPI description.
func TestRule_MG1_checkRunCreateAndUpdateMatchTheContract(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	head := e.f.HeadSHA("o", "r", e.pr)
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	id, err := e.c.CreateCheckRun(ctx, "o", "r", github.CheckRunWrite{Name: "review-loop", HeadSHA: head, Status: "in_progress",
		Title: "review-loop: reviewing", Summary: "waiting for bugbot", DetailsURL: "https://github.com/o/r/actions/runs/1", At: at})
	if err != nil {
		t.Fatal(err)
	}
	if id == 0 {
		t.Fatal("no check run id")
	}
	obs, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	var got *github.CheckRun
	for i := range obs.CheckRuns {
		if obs.CheckRuns[i].Name == "review-loop" {
			got = &obs.CheckRuns[i]
		}
	}
	if got == nil || got.AppSlug != "github-actions" || !strings.EqualFold(got.Status, "IN_PROGRESS") {
		t.Fatalf("observed check runs %+v, want review-loop in progress by github-actions", obs.CheckRuns)
	}
	if err := e.c.UpdateCheckRun(ctx, "o", "r", id, github.CheckRunWrite{Name: "review-loop", Status: "completed", Conclusion: "failure",
		Title: "review-loop: handed back", Summary: "End reason: `bound`", At: at.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	snap := e.f.PR("o", "r", e.pr)
	var cr ghfake.CheckRun
	for _, c := range snap.CheckRuns {
		if c.ID == id {
			cr = c
		}
	}
	if cr.Status != "COMPLETED" || cr.Conclusion != "FAILURE" || cr.Summary != "End reason: `bound`" {
		t.Errorf("check run after the update: %+v", cr)
	}
	assertContract(t, e.rec)
}

// TestRule_MG1_checkRunNeedsAnAppToken: a personal token cannot write
// check runs (GitHub answers 403), and the error says which request.
func TestRule_MG1_checkRunNeedsAnAppToken(t *testing.T) {
	t.Parallel()
	f := ghfake.New(ghfake.Options{})
	e := setupFake(t, f)
	f.AddToken("ghp_user", ghfake.Identity{Login: "alice", ID: 7})
	uc, err := github.New(github.Options{Token: "ghp_user", APIURL: f.URL(), GraphQLURL: f.GraphQLURL(), MaxRetries: 0})
	if err != nil {
		t.Fatal(err)
	}
	_, err = uc.CreateCheckRun(context.Background(), "o", "r", github.CheckRunWrite{Name: "review-loop", HeadSHA: e.f.HeadSHA("o", "r", e.pr), Status: "in_progress", Title: "t", Summary: "s"})
	if err == nil || !github.IsPermission(err) || !strings.Contains(err.Error(), "check-runs") {
		t.Errorf("a user token created a check run: err = %v", err)
	}
}

// TestRule_CI1_dispatchOfAWorkflowWithoutDispatchTriggerIsRefused: GitHub
// answers 422 for a workflow with no workflow_dispatch trigger on the ref.
func TestRule_CI1_dispatchOfAWorkflowWithoutDispatchTriggerIsRefused(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	if _, err := e.f.PushCommit("o", "r", "feat", map[string]string{
		".github/workflows/ci.yml":   "on:\n  pull_request:\n  workflow_dispatch:\njobs: {}\n",
		".github/workflows/lint.yml": "on: [pull_request]\njobs: {}\n",
	}, "add workflows"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DispatchWorkflow(ctx, "o", "r", "ci.yml", "feat", nil); err != nil {
		t.Errorf("dispatching ci.yml: %v", err)
	}
	err := e.c.DispatchWorkflow(ctx, "o", "r", "lint.yml", "feat", nil)
	if err == nil || !strings.Contains(err.Error(), "workflow_dispatch") {
		t.Errorf("dispatching lint.yml: err = %v, want GitHub's 422 naming workflow_dispatch", err)
	}
	if ds := e.f.Dispatches(); len(ds) != 1 || ds[0].Workflow != "ci.yml" || ds[0].Ref != "feat" {
		t.Errorf("dispatches %+v, want ci.yml on feat only", ds)
	}
	assertContract(t, e.rec)
}
