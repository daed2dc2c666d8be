package event

import (
	"bytes"
	"testing"
	"time"
)

// GitHub's own workflow_run example is a run of a default-branch event
// (repository_dispatch) with an empty name and no pull_requests. The
// same payload with event issue_comment is what a comment-triggered run
// looks like (GitHub docs, "Events that trigger workflows": it runs on
// the default branch's last commit): nothing in it names the PR, so the
// wake carries the run for the live loops to match by path and time.
func TestRule_S1_commentTriggeredWorkflowRunNamesNoPR(t *testing.T) {
	dir := webhooksDir(t)
	raw := readPayload(t, dir, "workflow_run/completed.json")
	cfg := Config{WatchedWorkflows: []string{".github/workflows/test.yml"}}

	w, err := Parse("workflow_run", raw, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := w.WorkflowRun
	if r == nil || r.ID != 289782451 || r.Path != ".github/workflows/test.yml" || r.Event != "repository_dispatch" || r.Conclusion != "success" ||
		!r.CreatedAt.Equal(time.Date(2020, 10, 5, 16, 33, 24, 0, time.UTC)) || r.Actor != "Codertocat" || r.HeadBranch != "master" {
		t.Fatalf("run %+v", r)
	}
	if w.RunNamesNoPR() {
		t.Error("a repository_dispatch run is no comment-triggered run")
	}

	comment := bytes.Replace(raw, []byte(`"event": "repository_dispatch"`), []byte(`"event": "issue_comment"`), 1)
	if bytes.Equal(comment, raw) {
		t.Fatal("the example's event field was not found")
	}
	w, err = Parse("workflow_run", comment, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !w.RunNamesNoPR() || !w.NeedsLookup() || len(w.PRs) != 0 {
		t.Fatalf("wake %+v: a comment-triggered run should name no PR and ask for the live loops", w)
	}
	skipped := bytes.Replace(comment, []byte(`"conclusion": "success"`), []byte(`"conclusion": "skipped"`), 1)
	if w, err = Parse("workflow_run", skipped, cfg); err != nil || w.RunNamesNoPR() {
		t.Fatalf("a skipped run (another comment's, its job's `if` unmet) wakes no loop: %+v %v", w, err)
	}
	odd := bytes.Replace(comment, []byte(`"created_at": "2020-10-05T16:33:24Z"`), []byte(`"created_at": "yesterday"`), 1)
	if w, err = Parse("workflow_run", odd, cfg); err != nil || !w.WorkflowRun.CreatedAt.IsZero() {
		t.Fatalf("an unreadable time is zero, not an error: %+v %v", w.WorkflowRun, err)
	}
}

// FuzzParseWorkflowRun: no workflow_run payload makes Parse panic, and a
// carried run agrees with the wake it rides on.
func FuzzParseWorkflowRun(f *testing.F) {
	f.Add([]byte(`{"action":"completed","workflow":{"name":"Claude Code","path":".github/workflows/claude.yml"},"workflow_run":{"id":7,"name":"Claude Code","event":"issue_comment","status":"completed","conclusion":"success","head_sha":"abc","head_branch":"main","pull_requests":[],"created_at":"2026-10-01T09:00:00Z","actor":{"login":"m"}},"repository":{"name":"r","owner":{"login":"o"}}}`))
	f.Add([]byte(`{"action":"completed","workflow_run":{"created_at":17,"pull_requests":[{"number":3}]}}`))
	f.Add([]byte(`{"action":"completed","workflow_run":null}`))
	cfg := Config{WatchedWorkflows: []string{"Claude Code", ".github/workflows/claude.yml"}}
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := Parse("workflow_run", b, cfg)
		if err != nil || w.WorkflowRun == nil {
			return
		}
		if w.WorkflowRun.HeadSHA != w.HeadSHA || (w.RunNamesNoPR() && len(w.PRs) != 0) {
			t.Fatalf("run %+v disagrees with wake %+v", w.WorkflowRun, w)
		}
	})
}
