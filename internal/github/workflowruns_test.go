package github_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/contract"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

// A comment-triggered run of the Claude workflow hangs off the default
// branch's head with no pull_requests (GitHub docs, events that trigger
// workflows: issue_comment runs on the last commit of the default branch):
// ListWorkflowRuns finds it by workflow file, event and creation time, in
// one counted request whose query GitHub's description accepts.
func TestListWorkflowRuns_findsCommentTriggeredRunsByEventAndTime(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := setupFake(t, ghfake.New(ghfake.Options{SchemaPath: contract.SchemaPath(), Now: clock}))
	ctx := context.Background()
	if err := e.f.SetProtected("o", "r", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.PushCommit("o", "r", "main", map[string]string{".github/workflows/claude.yml": "on: issue_comment\n"}, "add claude"); err != nil {
		t.Fatal(err)
	}
	mainSHA := e.f.BranchSHA("o", "r", "")
	mk := func(event, status, conclusion string, prs []int) int64 {
		t.Helper()
		id, err := e.f.SetWorkflowRun("o", "r", ghfake.WorkflowRunOptions{Name: "Claude", Path: ".github/workflows/claude.yml", Event: event,
			Status: status, Conclusion: conclusion, HeadSHA: mainSHA, HeadBranch: "main", Actor: "loop-maintainer", PRs: prs})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	mk("pull_request", "completed", "success", []int{e.pr})
	old := mk("issue_comment", "completed", "success", nil)
	_ = old
	mu.Lock()
	now = now.Add(time.Minute)
	since := now
	now = now.Add(5 * time.Second)
	mu.Unlock()
	skipped := mk("issue_comment", "completed", "skipped", nil)
	ours := mk("issue_comment", "in_progress", "", nil)

	before := e.c.Requests()
	runs, err := e.c.ListWorkflowRuns(ctx, "o", "r", ".github/workflows/claude.yml", "issue_comment", since)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.c.Requests().Reads - before.Reads; n != 1 {
		t.Errorf("ListWorkflowRuns made %d reads, want 1", n)
	}
	if len(runs) != 2 || runs[0].ID != ours || runs[1].ID != skipped {
		t.Fatalf("runs = %+v, want [%d %d] newest first", runs, ours, skipped)
	}
	r := runs[0]
	if r.Event != "issue_comment" || r.Status != "in_progress" || r.Conclusion != "" || r.HeadSHA != mainSHA || len(r.PRs) != 0 ||
		r.Path != ".github/workflows/claude.yml" || r.CreatedAt.Before(since) || r.Actor != "loop-maintainer" {
		t.Errorf("run = %+v", r)
	}
	var q url.Values
	for _, ex := range e.rec.exchanges() {
		if u, _ := url.Parse(ex.url); strings.HasSuffix(u.Path, "/actions/workflows/claude.yml/runs") {
			q = u.Query()
		}
	}
	if q.Get("event") != "issue_comment" || q.Get("created") != ">="+since.Format(time.RFC3339) || q.Get("per_page") == "" {
		t.Errorf("query = %v", q)
	}
	if _, err := e.c.ListWorkflowRuns(ctx, "o", "r", "missing.yml", "issue_comment", since); err == nil {
		t.Error("a workflow that does not exist should be an error")
	}
	assertContract(t, e.rec)
}

// SC4 reads one run by id to learn which workflow file it ran: the fake
// answers as GitHub's description says, and an unknown id is a 404.
func TestGetWorkflowRun_readsThePathOfTheWorkflowFile(t *testing.T) {
	t.Parallel()
	e := setupFake(t, ghfake.New(ghfake.Options{SchemaPath: contract.SchemaPath()}))
	ctx := context.Background()
	id, err := e.f.SetWorkflowRun("o", "r", ghfake.WorkflowRunOptions{Path: ".github/workflows/review-loop.yml", Event: "workflow_dispatch", Status: "in_progress", HeadSHA: e.f.BranchSHA("o", "r", "")})
	if err != nil {
		t.Fatal(err)
	}
	before := e.c.Requests()
	run, err := e.c.GetWorkflowRun(ctx, "o", "r", id)
	if err != nil {
		t.Fatal(err)
	}
	if run.ID != id || run.Path != ".github/workflows/review-loop.yml" || run.Status != "in_progress" || run.CreatedAt.IsZero() {
		t.Errorf("run = %+v", run)
	}
	if n := e.c.Requests().Reads - before.Reads; n != 1 {
		t.Errorf("%d reads, want 1", n)
	}
	if _, err := e.c.GetWorkflowRun(ctx, "o", "r", id+1000); !github.IsNotFound(err) {
		t.Errorf("unknown run: %v, want a 404", err)
	}
}
