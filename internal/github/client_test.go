package github_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/contract"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

const token = "ghs_testtoken_0123456789abcdef"

type env struct {
	f    *ghfake.Fake
	c    *github.Client
	rec  *recorder
	logs *syncBuffer
	pr   int
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// setup starts a fake with one repository and one PR and a client against
// it whose traffic is recorded for contract checks.
func setup(t *testing.T, mod func(*github.Options)) *env {
	t.Helper()
	return setupFake(t, ghfake.New(ghfake.Options{SchemaPath: contract.SchemaPath()}), mod)
}

// setupFake is setup on a fake the test built (with its own clock).
func setupFake(t *testing.T, f *ghfake.Fake, mod ...func(*github.Options)) *env {
	t.Helper()
	t.Cleanup(f.Close)
	f.AddToken(token, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true, Association: "NONE"})
	if err := f.AddRepo("o", "r", "main"); err != nil {
		t.Fatal(err)
	}
	n, err := f.CreatePR("o", "r", ghfake.PROptions{Head: "feat", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{base: http.DefaultTransport}
	logs := &syncBuffer{}
	opts := github.Options{Token: token, APIURL: f.URL(), GraphQLURL: f.GraphQLURL(),
		HTTPClient: &http.Client{Transport: rec}, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Timeout: 30 * time.Second, MaxRetries: 2, RetryBackoff: time.Millisecond, MaxRateLimitWait: 2 * time.Second}
	for _, m := range mod {
		if m != nil {
			m(&opts)
		}
	}
	c, err := github.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{f: f, c: c, rec: rec, logs: logs, pr: n}
	t.Cleanup(func() {
		if strings.Contains(logs.String(), token) {
			t.Errorf("the token appears in the client's logs")
		}
	})
	return e
}

func seedEngines(t *testing.T, f *ghfake.Fake, n, threads int) {
	t.Helper()
	f.AddUser("cursor", 206951365, true)
	f.AddUser("copilot-pull-request-reviewer", 175728472, true)
	f.AddUser("claude", 209825114, true)
	for i, eng := range []string{"cursor", "copilot-pull-request-reviewer", "claude"} {
		rid, err := f.AddReview("o", "r", n, ghfake.ReviewOptions{Author: eng, Body: eng + " review"})
		if err != nil {
			t.Fatal(err)
		}
		for j := i; j < threads; j += 3 {
			if _, _, err := f.AddReviewComment("o", "r", n, ghfake.CommentOptions{Author: eng, Body: fmt.Sprintf("finding %d", j), Path: "main.go", Line: j%50 + 1, ReviewID: rid}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.SetCheckRun("o", "r", n, ghfake.CheckRunOptions{Name: eng + " check", AppSlug: eng, Conclusion: "NEUTRAL", Title: "t", Summary: "s"}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestObserveReadsEverythingInOneQuery(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	seedEngines(t, e.f, e.pr, 6)
	cid, _ := e.f.AddIssueComment("o", "r", e.pr, "o", "OWNER", "@review-loop run")
	if err := e.c.RequestReviewers(context.Background(), "o", "r", e.pr, []string{"bob"}); err != nil {
		t.Fatal(err)
	}
	before := e.c.Requests()
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if d := e.c.Requests().Total - before.Total; d != 1 {
		t.Errorf("Observe sent %d requests, want 1", d)
	}
	if o.State != "OPEN" || o.HeadSHA != e.f.HeadSHA("o", "r", e.pr) || o.HeadRef != "feat" || o.BaseRef != "main" || o.DefaultBranch != "main" || o.IsFork {
		t.Errorf("PR fields wrong: %+v", o)
	}
	if o.Author.Login != "alice" || o.ViewerLogin != "github-actions" || o.NodeID == "" || o.Commits != 1 {
		t.Errorf("author/viewer/node/commits wrong: %+v %s %s %d", o.Author, o.ViewerLogin, o.NodeID, o.Commits)
	}
	if len(o.Reviews) != 3 || len(o.Threads) != 6 || len(o.CheckRuns) != 3 || len(o.IssueComments) != 1 || !o.Complete {
		t.Fatalf("counts: %d reviews, %d threads, %d checks, %d comments, complete %v", len(o.Reviews), len(o.Threads), len(o.CheckRuns), len(o.IssueComments), o.Complete)
	}
	r := o.Reviews[0]
	if r.Author.Login != "cursor" || !r.Author.IsBot || r.Author.DatabaseID != 206951365 || r.DatabaseID <= 1<<31 || r.CommitSHA != o.HeadSHA {
		t.Errorf("review: %+v", r)
	}
	th := o.Threads[0]
	if th.Path != "main.go" || th.Line != 1 || th.Comments[0].ReviewDatabaseID != r.DatabaseID || th.Comments[0].OriginalCommitSHA != o.HeadSHA {
		t.Errorf("thread: %+v", th)
	}
	if cr := o.CheckRuns[0]; cr.AppSlug != "cursor" || cr.Status != "COMPLETED" || cr.Conclusion != "NEUTRAL" || cr.NodeID == "" || cr.SignalID() == 0 || cr.Summary != "s" {
		t.Errorf("check run: %+v", cr)
	}
	if ic := o.IssueComments[0]; ic.DatabaseID != cid || ic.AuthorAssociation != "OWNER" {
		t.Errorf("issue comment: %+v", ic)
	}
	if len(o.RequestedReviewers) != 1 || o.RequestedReviewers[0] != "bob" {
		t.Errorf("requested reviewers: %v", o.RequestedReviewers)
	}
	assertContract(t, e.rec)
}

func TestObservePagesThroughTwoHundredFiftyThreads(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	seedEngines(t, e.f, e.pr, 250)
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Threads) != 250 || !o.Complete {
		t.Fatalf("got %d threads (complete %v), want 250", len(o.Threads), o.Complete)
	}
	seen := map[string]bool{}
	for _, th := range o.Threads {
		if seen[th.NodeID] {
			t.Fatalf("thread %s twice", th.NodeID)
		}
		seen[th.NodeID] = true
	}
	if got := e.c.Requests(); got.Reads != 3 || got.Writes != 0 {
		t.Errorf("requests = %+v, want 3 reads (1 + 2 thread pages)", got)
	}
	assertContract(t, e.rec)
}

func TestObserveCostDoesNotGrowWithEngines(t *testing.T) {
	t.Parallel()
	one := setup(t, nil)
	one.f.AddUser("cursor", 206951365, true)
	one.f.SetCheckRun("o", "r", one.pr, ghfake.CheckRunOptions{Name: "Cursor Bugbot", AppSlug: "cursor"})
	five := setup(t, nil)
	for i := range 5 {
		login := fmt.Sprintf("engine%d", i)
		five.f.AddUser(login, 0, true)
		rid, _ := five.f.AddReview("o", "r", five.pr, ghfake.ReviewOptions{Author: login})
		five.f.AddReviewComment("o", "r", five.pr, ghfake.CommentOptions{Author: login, Path: "a.go", Line: 1, ReviewID: rid, Body: "x"})
		five.f.SetCheckRun("o", "r", five.pr, ghfake.CheckRunOptions{Name: login, AppSlug: login})
	}
	for _, e := range []*env{one, five} {
		if _, err := e.c.Observe(context.Background(), "o", "r", e.pr); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := one.c.Requests().Total, five.c.Requests().Total; a != b || a != 1 {
		t.Errorf("1 engine: %d requests, 5 engines: %d; want 1 each", a, b)
	}
}

func TestIdleWakeCostsTwoRequests(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	seedEngines(t, e.f, e.pr, 3)
	ctx := context.Background()
	state, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "<!-- review-loop:state v1 {} -->")
	if err != nil {
		t.Fatal(err)
	}
	before := e.c.Requests()
	o, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, ic := range o.IssueComments {
		found = found || ic.DatabaseID == state.DatabaseID && ic.Author.Login == o.ViewerLogin
	}
	if !found {
		t.Fatalf("state comment %d by %s not observed", state.DatabaseID, o.ViewerLogin)
	}
	if err := e.c.UpdateIssueComment(ctx, "o", "r", state.DatabaseID, "<!-- review-loop:state v1 {\"idle\":1} -->"); err != nil {
		t.Fatal(err)
	}
	got := e.c.Requests()
	if d := (github.Counts{Reads: got.Reads - before.Reads, Writes: got.Writes - before.Writes, Total: got.Total - before.Total}); d.Total != 2 || d.Reads != 1 || d.Writes != 1 {
		t.Errorf("idle wake cost %+v, want 1 read + 1 write", d)
	}
	assertContract(t, e.rec)
}

func TestWritesReachTheFake(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	e.f.AddUser("cursor", 206951365, true)
	cid, tid, _ := e.f.AddReviewComment("o", "r", e.pr, ghfake.CommentOptions{Author: "cursor", Body: "bug", Path: "main.go", Line: 2})
	_, tid2, _ := e.f.AddReviewComment("o", "r", e.pr, ghfake.CommentOptions{Author: "cursor", Body: "bug2", Path: "main.go", Line: 3})
	if err := e.f.SetPRState("o", "r", e.pr, "OPEN", true); err != nil {
		t.Fatal(err)
	}

	ic, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "hello")
	if err != nil || ic.DatabaseID == 0 || ic.Body != "hello" || ic.Author.Login != "github-actions" || !ic.Author.IsBot {
		t.Fatalf("CreateIssueComment = %+v, %v", ic, err)
	}
	if err := e.c.UpdateIssueComment(ctx, "o", "r", ic.DatabaseID, "edited"); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.GetIssueComment(ctx, "o", "r", ic.DatabaseID)
	if err != nil || got.Body != "edited" {
		t.Fatalf("GetIssueComment = %+v, %v", got, err)
	}
	if err := e.c.AddIssueCommentReaction(ctx, "o", "r", ic.DatabaseID, "eyes"); err != nil {
		t.Fatal(err)
	}
	rid, err := e.c.ReplyToReviewComment(ctx, "o", "r", e.pr, cid, "FIX: done")
	if err != nil || rid == 0 {
		t.Fatalf("ReplyToReviewComment = %d, %v", rid, err)
	}
	if err := e.c.RequestReviewers(ctx, "o", "r", e.pr, []string{"bob"}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RequestCopilotReview(ctx, "o", "r", e.pr); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RequestCopilotReview(ctx, "o", "r", e.pr); err != nil {
		t.Errorf("a pending Copilot review (409) should not be an error: %v", err)
	}
	pr := e.f.PR("o", "r", e.pr)
	if err := e.c.MarkReadyForReview(ctx, pr.NodeID); err != nil {
		t.Fatal(err)
	}
	failed, err := e.c.ResolveThreads(ctx, []string{tid, tid2})
	if err != nil || len(failed) != 0 {
		t.Fatalf("ResolveThreads = %v, %v", failed, err)
	}
	if err := e.c.DispatchWorkflow(ctx, "o", "r", "review-loop.yml", "main", map[string]any{"pr": "1"}); err != nil {
		t.Fatal(err)
	}
	num, url, err := e.c.CreateIssue(ctx, "o", "r", "Tier 3 finding", "body", []string{"review-loop"})
	if err != nil || num == 0 || url == "" {
		t.Fatalf("CreateIssue = %d %q %v", num, url, err)
	}
	prot, err := e.c.BranchProtected(ctx, "o", "r", "main")
	if err != nil || !prot {
		t.Errorf("main protected = %v, %v", prot, err)
	}
	prot, err = e.c.BranchProtected(ctx, "o", "r", "feat")
	if err != nil || prot {
		t.Errorf("feat protected = %v, %v", prot, err)
	}

	pr = e.f.PR("o", "r", e.pr)
	if pr.Draft {
		t.Error("PR still draft")
	}
	for _, th := range pr.Threads {
		if !th.Resolved {
			t.Errorf("thread %s not resolved", th.NodeID)
		}
	}
	if len(pr.Threads[0].Comments) != 2 || pr.Threads[0].Comments[1].Body != "FIX: done" {
		t.Errorf("reply not in thread: %+v", pr.Threads[0].Comments)
	}
	if len(pr.RequestedReviewers) != 2 || pr.RequestedReviewers[1] != ghfake.CopilotLogin {
		t.Errorf("requested reviewers: %v", pr.RequestedReviewers)
	}
	if d := e.f.Dispatches(); len(d) != 1 || d[0].Workflow != "review-loop.yml" || d[0].Inputs["pr"] != "1" {
		t.Errorf("dispatches: %+v", d)
	}
	if r := e.f.Reactions(); len(r) != 1 || r[0].Content != "eyes" {
		t.Errorf("reactions: %+v", r)
	}
	if is := e.f.Issues("o", "r"); len(is) != 1 || is[0].Labels[0] != "review-loop" {
		t.Errorf("issues: %+v", is)
	}
	assertContract(t, e.rec)
}

func TestObserve_readsTheDefaultBranchWorkflowsInTheSameRequest(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	// The default branch is protected in the fake; lift it to add a workflow.
	if err := e.f.SetProtected("o", "r", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.PushCommit("o", "r", "main", map[string]string{
		".github/workflows/claude.yml": "uses: anthropics/claude-code-action@v1\n",
	}, "add a workflow"); err != nil {
		t.Fatal(err)
	}
	before := e.c.Requests().Total
	obs, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.c.Requests().Total - before; n != 1 {
		t.Errorf("observe took %d requests, want 1", n)
	}
	if len(obs.WorkflowFiles) != 1 || !strings.Contains(obs.WorkflowFiles[0].Text, "claude-code-action") {
		t.Errorf("workflow files: %+v", obs.WorkflowFiles)
	}
	assertContract(t, e.rec)
}

func TestReadsOfRepositoryFiles(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	if _, err := e.f.PushCommit("o", "r", "feat", map[string]string{
		".github/workflows/claude.yml": "uses: anthropics/claude-code-action@v1\n",
		".github/workflows/ci.yml":     "name: ci\n",
	}, "add workflows"); err != nil {
		t.Fatal(err)
	}
	files, err := e.c.WorkflowFiles(ctx, "o", "r", "feat")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Path != ".github/workflows/ci.yml" || !strings.Contains(files[1].Text, "claude-code-action") {
		t.Errorf("workflow files: %+v", files)
	}
	none, err := e.c.WorkflowFiles(ctx, "o", "r", "main")
	if err != nil || len(none) != 0 {
		t.Errorf("main has no workflows: %v %v", none, err)
	}
	nums, err := e.c.PullRequestsForCommit(ctx, "o", "r", e.f.HeadSHA("o", "r", e.pr))
	if err != nil || len(nums) != 1 || nums[0] != e.pr {
		t.Errorf("PRs for head commit: %v %v", nums, err)
	}
	if e.c.Requests().Writes != 0 {
		t.Errorf("reads counted as writes: %+v", e.c.Requests())
	}
	assertContract(t, e.rec)
}

func TestPushMovesHeadAndOutdatesThreads(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	_, tid, _ := e.f.AddReviewComment("o", "r", e.pr, ghfake.CommentOptions{Author: "cursor", Body: "bug", Path: "main.go", Line: 2})
	_, tid2, _ := e.f.AddReviewComment("o", "r", e.pr, ghfake.CommentOptions{Author: "cursor", Body: "bug", Path: "other.go", Line: 2})
	var pushes []ghfake.PushEvent
	var mu sync.Mutex
	e.f.OnPush(func(ev ghfake.PushEvent) { mu.Lock(); pushes = append(pushes, ev); mu.Unlock() })
	old := e.f.HeadSHA("o", "r", e.pr)
	sha, err := e.f.PushCommit("o", "r", "feat", map[string]string{"main.go": "package main\n// fixed\n"}, "fix")
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if o.HeadSHA != sha || sha == old {
		t.Errorf("head = %s, want pushed %s", o.HeadSHA, sha)
	}
	for _, th := range o.Threads {
		want := th.NodeID == tid
		if th.IsOutdated != want || (want && th.Line != 0) || th.NodeID == tid2 && th.Line != 2 {
			t.Errorf("thread %s outdated=%v line=%d", th.NodeID, th.IsOutdated, th.Line)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pushes) != 1 || pushes[0].After != sha {
		t.Errorf("push hooks: %+v", pushes)
	}
	if _, err := e.f.PushCommit("o", "r", "main", map[string]string{"x": "y"}, "to main"); err == nil {
		t.Error("push to protected main was accepted")
	}
	e.f.RejectPushes("o", "r", true)
	if _, err := e.f.PushCommit("o", "r", "feat", map[string]string{"x": "y"}, "rejected"); err == nil {
		t.Error("push accepted while pushes are rejected")
	}
}

func TestHooksLetSimulatedBotsReact(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	e.f.OnIssueComment(func(ev ghfake.IssueCommentEvent) {
		if strings.Contains(ev.Comment.Body, "bugbot run") {
			e.f.SetCheckRun(ev.Owner, ev.Repo, ev.Number, ghfake.CheckRunOptions{Name: "Cursor Bugbot", AppSlug: "cursor", Status: "IN_PROGRESS"})
		}
	})
	var requested []string
	var mu sync.Mutex
	e.f.OnReviewRequested(func(ev ghfake.ReviewRequestEvent) {
		mu.Lock()
		requested = append(requested, ev.Logins...)
		mu.Unlock()
	})
	ctx := context.Background()
	if _, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "bugbot run"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RequestCopilotReview(ctx, "o", "r", e.pr); err != nil {
		t.Fatal(err)
	}
	o, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.CheckRuns) != 1 || o.CheckRuns[0].Status != "IN_PROGRESS" || o.CheckRuns[0].Conclusion != "" {
		t.Errorf("check runs: %+v", o.CheckRuns)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requested) != 1 || requested[0] != ghfake.CopilotLogin {
		t.Errorf("review requests: %v", requested)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		opts  func(*github.Options)
		fault ghfake.Fault
		call  func(e *env) error
		check func(t *testing.T, e *env, err error)
	}{
		{
			name:  "a 502 on a read is retried and recovers",
			fault: ghfake.Fault{Match: "graphql:repository", Status: 502, Times: 2},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if err != nil || e.c.Requests().Reads != 3 {
					t.Errorf("err %v, requests %+v; want success after 3 reads", err, e.c.Requests())
				}
			},
		},
		{
			name:  "a 500 and 503 on a GET are retried",
			fault: ghfake.Fault{Match: "GET /repos/o/r/branches/main", Status: 503, Times: 1},
			call:  func(e *env) error { _, err := e.c.BranchProtected(ctx, "o", "r", "main"); return err },
			check: func(t *testing.T, e *env, err error) {
				if err != nil || e.c.Requests().Reads != 2 {
					t.Errorf("err %v, requests %+v", err, e.c.Requests())
				}
			},
		},
		{
			name:  "reads that keep failing stop after MaxRetries with a clear error",
			fault: ghfake.Fault{Match: "graphql:repository", Status: 500},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				var ae *github.APIError
				if !errors.As(err, &ae) || ae.Status != 500 || e.c.Requests().Reads != 3 {
					t.Errorf("err %v, requests %+v; want APIError 500 after 3 attempts", err, e.c.Requests())
				}
			},
		},
		{
			name:  "a 502 on POST comment is not retried, so no duplicate comment",
			fault: ghfake.Fault{Match: "POST /repos/o/r/issues/1/comments", Status: 502, Times: 1},
			call:  func(e *env) error { _, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "once"); return err },
			check: func(t *testing.T, e *env, err error) {
				if err == nil || e.c.Requests().Writes != 1 || len(e.f.PR("o", "r", e.pr).Comments) != 0 {
					t.Errorf("err %v, requests %+v", err, e.c.Requests())
				}
			},
		},
		{
			name:  "a POST comment that times out is not retried",
			opts:  func(o *github.Options) { o.Timeout = time.Second },
			fault: ghfake.Fault{Match: "POST /repos/o/r/issues/1/comments", Delay: 30 * time.Second, Times: 1},
			call:  func(e *env) error { _, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "once"); return err },
			check: func(t *testing.T, e *env, err error) {
				if err == nil || e.c.Requests().Writes != 1 {
					t.Errorf("err %v, requests %+v", err, e.c.Requests())
				}
			},
		},
		{
			name:  "a GraphQL mutation that fails with 502 is not retried",
			fault: ghfake.Fault{Match: "graphql:resolveReviewThread", Status: 502},
			call:  func(e *env) error { _, err := e.c.ResolveThreads(ctx, []string{"PRRT_1"}); return err },
			check: func(t *testing.T, e *env, err error) {
				if err == nil || e.c.Requests().Writes != 1 {
					t.Errorf("err %v, requests %+v", err, e.c.Requests())
				}
			},
		},
		{
			name:  "a read that times out is retried",
			opts:  func(o *github.Options) { o.Timeout = time.Second },
			fault: ghfake.Fault{Match: "graphql:repository", Delay: 30 * time.Second, Times: 1},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if err != nil || e.c.Requests().Reads != 2 {
					t.Errorf("err %v, requests %+v", err, e.c.Requests())
				}
			},
		},
		{
			name:  "a secondary rate limit with a short Retry-After is waited out, even for a POST",
			fault: ghfake.Fault{Match: "POST /repos/o/r/issues/1/comments", Status: 403, RetryAfter: 1, Times: 1},
			call:  func(e *env) error { _, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "after wait"); return err },
			check: func(t *testing.T, e *env, err error) {
				if err != nil || len(e.f.PR("o", "r", e.pr).Comments) != 1 {
					t.Errorf("err %v, comments %d", err, len(e.f.PR("o", "r", e.pr).Comments))
				}
			},
		},
		{
			name:  "a 429 longer than MaxRateLimitWait fails at once as a rate limit",
			opts:  func(o *github.Options) { o.MaxRateLimitWait = 100 * time.Millisecond },
			fault: ghfake.Fault{Match: "GET /repos/o/r/branches/main", Status: 429, RetryAfter: 3600},
			call:  func(e *env) error { _, err := e.c.BranchProtected(ctx, "o", "r", "main"); return err },
			check: func(t *testing.T, e *env, err error) {
				if !github.IsRateLimited(err) || github.IsPermission(err) || e.c.Requests().Total != 1 {
					t.Errorf("err %v, requests %+v", err, e.c.Requests())
				}
			},
		},
		{
			name:  "a GraphQL secondary rate limit over the cap is a rate-limit error",
			opts:  func(o *github.Options) { o.MaxRateLimitWait = 100 * time.Millisecond },
			fault: ghfake.Fault{Match: "graphql:repository", Status: 403, RetryAfter: 3600},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if !github.IsRateLimited(err) {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name:  "GraphQL errors with partial data fail cleanly",
			fault: ghfake.Fault{Match: "graphql:repository", GraphQLErrors: []string{"Something went wrong while executing your query."}},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if err == nil || !strings.Contains(err.Error(), "Something went wrong") {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name:  "a 403 permission error is typed",
			fault: ghfake.Fault{Match: "PATCH /repos/o/r/issues/comments/1", Status: 403, Message: "Resource not accessible by integration"},
			call:  func(e *env) error { return e.c.UpdateIssueComment(ctx, "o", "r", 1, "x") },
			check: func(t *testing.T, e *env, err error) {
				if !github.IsPermission(err) || github.IsRateLimited(err) {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name: "a missing comment is not found",
			call: func(e *env) error { _, err := e.c.GetIssueComment(ctx, "o", "r", 42); return err },
			check: func(t *testing.T, e *env, err error) {
				if !github.IsNotFound(err) {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name: "a missing PR is not found",
			call: func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", 99); return err },
			check: func(t *testing.T, e *env, err error) {
				if !github.IsNotFound(err) {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name:  "a malformed response is a clear error",
			fault: ghfake.Fault{Match: "graphql:repository", Body: `{"data": {"viewer": `},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if err == nil || !strings.Contains(err.Error(), "decoding response") {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name:  "an unknown enum value names the field",
			fault: ghfake.Fault{Match: "graphql:repository", Body: `{"data":{"viewer":{"login":"x"},"repository":{"nameWithOwner":"o/r","pullRequest":{"id":"PR_1","state":"ARCHIVED","headRefOid":"abc"}}}}`},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if err == nil || !strings.Contains(err.Error(), `pullRequest.state: unknown value "ARCHIVED"`) {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name:  "a missing field names the field",
			fault: ghfake.Fault{Match: "graphql:repository", Body: `{"data":{"viewer":{"login":"x"},"repository":{"nameWithOwner":"o/r","pullRequest":{"id":"PR_1","state":"OPEN","headRefOid":"abc","reviewThreads":{"nodes":[{"id":"T","comments":{"totalCount":1,"nodes":[{"id":"C","body":"b","createdAt":"2026-01-01T00:00:00Z"}]}}]}}}}}`},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if err == nil || !strings.Contains(err.Error(), "reviewThreads[0].comments[0].fullDatabaseId: missing") {
					t.Errorf("err %v", err)
				}
			},
		},
		{
			name:  "a PR that is not a PR (null) is not found, not a panic",
			fault: ghfake.Fault{Match: "graphql:repository", Body: `{"data":{"viewer":null,"repository":{"pullRequest":null}}}`},
			call:  func(e *env) error { _, err := e.c.Observe(ctx, "o", "r", e.pr); return err },
			check: func(t *testing.T, e *env, err error) {
				if !github.IsNotFound(err) {
					t.Errorf("err %v", err)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, tc.opts)
			if tc.fault.Match != "" {
				e.f.Inject(tc.fault)
			}
			tc.check(t, e, tc.call(e))
		})
	}
}

func TestEditConflictOnStateComment(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	state, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "state v1")
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	e.f.Inject(ghfake.Fault{Match: fmt.Sprintf("GET /repos/o/r/issues/comments/%d", state.DatabaseID), Times: 1,
		Before: func() { e.f.EditIssueComment(state.DatabaseID, "state v2 by another run") }})
	cur, err := e.c.GetIssueComment(ctx, "o", "r", state.DatabaseID)
	if err != nil {
		t.Fatal(err)
	}
	observed := o.IssueComments[len(o.IssueComments)-1]
	if cur.Body == observed.Body || !cur.UpdatedAt.After(observed.UpdatedAt) {
		t.Fatalf("the optimistic check cannot see the concurrent edit: observed %+v now %+v", observed, cur)
	}
	if got := e.f.PR("o", "r", e.pr).Comments[0].Body; got != "state v2 by another run" {
		t.Errorf("comment = %q", got)
	}
}

func TestResolveThreadsReportsPermissionPerThread(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	_, tid, _ := e.f.AddReviewComment("o", "r", e.pr, ghfake.CommentOptions{Author: "cursor", Body: "bug", Path: "main.go", Line: 2})
	_, tid2, _ := e.f.AddReviewComment("o", "r", e.pr, ghfake.CommentOptions{Author: "cursor", Body: "bug", Path: "main.go", Line: 3})
	e.f.DenyResolve("github-actions")
	failed, err := e.c.ResolveThreads(context.Background(), []string{tid, tid2, "PRRT_missing"})
	if err != nil {
		t.Fatalf("request error: %v", err)
	}
	if e.c.Requests().Writes != 1 {
		t.Errorf("sent %d requests, want one aliased mutation", e.c.Requests().Writes)
	}
	for _, id := range []string{tid, tid2} {
		if !errors.Is(failed[id], github.ErrResolveDenied) || !github.IsPermission(failed[id]) {
			t.Errorf("thread %s: %v, want permission error", id, failed[id])
		}
	}
	if !github.IsNotFound(failed["PRRT_missing"]) {
		t.Errorf("missing thread: %v", failed["PRRT_missing"])
	}
	assertContract(t, e.rec)
}

func TestUnknownTokenIsAPermissionError(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *github.Options) { o.Token = "wrong" })
	_, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	var ae *github.APIError
	if !errors.As(err, &ae) || ae.Status != 401 || !github.IsPermission(err) {
		t.Errorf("err %v", err)
	}
}

func TestUnknownGraphQLFieldIsAnErrorLikeGitHub(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	resp, err := http.Post(e.f.GraphQLURL(), "application/json", strings.NewReader(`{"query":"{ viewer { noSuchField } }"}`))
	if err == nil {
		defer resp.Body.Close()
	}
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != 401 {
		t.Errorf("no token: status %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", e.f.GraphQLURL(), strings.NewReader(`{"query":"{ viewer { noSuchField } }"}`))
	req.Header.Set("Authorization", "bearer "+token)
	req.Header.Set("Authorization", "Bearer "+token)
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	buf.Reset()
	buf.ReadFrom(resp2.Body)
	if resp2.StatusCode != 200 || !strings.Contains(buf.String(), `"errors"`) || !strings.Contains(buf.String(), "noSuchField") {
		t.Errorf("status %d body %s", resp2.StatusCode, buf.String())
	}
}

// TB3: a collaborator's permission and role come from the collaborator
// permission API; triage reads as permission read with role_name triage.
func TestRule_TB3_CollaboratorPermissionReadsPermissionAndRole(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	if err := e.f.SetPermission("o", "r", "tria", "triage"); err != nil {
		t.Fatal(err)
	}
	if err := e.f.SetPermission("o", "r", "keeper", "maintain"); err != nil {
		t.Fatal(err)
	}
	for login, want := range map[string]github.Permission{
		"tria":   {Permission: "read", RoleName: "triage"},
		"keeper": {Permission: "write", RoleName: "maintain"},
		"o":      {Permission: "admin", RoleName: "admin"},
		"alice":  {Permission: "read", RoleName: "read"},
	} {
		got, err := e.c.CollaboratorPermission(ctx, "o", "r", login)
		if err != nil || got != want {
			t.Errorf("CollaboratorPermission(%s) = %+v, %v; want %+v", login, got, err, want)
		}
	}
	if _, err := e.c.CollaboratorPermission(ctx, "o", "r", "nobody-at-all"); err == nil {
		t.Error("an unknown user has a permission")
	}
	assertContract(t, e.rec)
}

// TestRule_S10_ObserveReadsTheHeadsCommitStatuses: CodeRabbit may report
// its review as a commit status rather than a check run; the one
// observation request carries the head's statuses, the newest of each
// context, with their creator.
func TestRule_S10_ObserveReadsTheHeadsCommitStatuses(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	for _, s := range []struct{ state, desc string }{{"PENDING", "Review in progress"}, {"SUCCESS", "Review completed"}} {
		if _, err := e.f.SetCommitStatus("o", "r", e.pr, "", "CodeRabbit", s.state, s.desc, "coderabbitai[bot]"); err != nil {
			t.Fatal(err)
		}
	}
	before := e.c.Requests().Total
	obs, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.c.Requests().Total - before; n != 1 {
		t.Errorf("observe took %d requests, want 1", n)
	}
	if len(obs.Statuses) != 1 {
		t.Fatalf("statuses: %+v, want the newest CodeRabbit status only", obs.Statuses)
	}
	s := obs.Statuses[0]
	if s.Context != "CodeRabbit" || !s.Creator.IsBot || s.State != "SUCCESS" || s.Description != "Review completed" || s.CreatedAt.IsZero() || !strings.EqualFold(s.Creator.Login, "coderabbitai") {
		t.Errorf("status: %+v", s)
	}
	assertContract(t, e.rec)
}
