package ghfake_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// TestPushCommit_RefusedAsAPushWouldBe: the fake's own commits (PushCommit,
// CreatePR) are refused where a push would be: on a protected branch
// (GitHub's GH006 words), while pushes are rejected, and when they would
// move a branch to a commit that does not contain its tip. A refused
// commit leaves the branch where it was.
func TestPushCommit_RefusedAsAPushWouldBe(t *testing.T) {
	t.Parallel()
	f := contentsFixture(t)
	if err := f.SetProtected("octo", "demo", "main", true); err != nil {
		t.Fatal(err)
	}
	mainTip := f.BranchSHA("octo", "demo", "main")
	_, err := f.PushCommit("octo", "demo", "main", map[string]string{"x": "y"}, "to main")
	if err == nil || !strings.Contains(err.Error(), "GH006: Protected branch update failed for refs/heads/main.") {
		t.Errorf("commit on protected main: err %v, want GH006", err)
	}
	if got := f.BranchSHA("octo", "demo", "main"); got != mainTip {
		t.Errorf("protected main moved from %s to %s", mainTip, got)
	}

	head := f.HeadSHA("octo", "demo", 1)
	if err := f.RejectPushes("octo", "demo", true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.PushCommit("octo", "demo", "feature", map[string]string{"x": "y"}, "rejected"); err == nil || !strings.Contains(err.Error(), "injected fault") {
		t.Errorf("commit while pushes are rejected: err %v", err)
	}
	if _, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "other"}); err == nil {
		t.Error("a PR's branch was created while pushes are rejected")
	}
	if err := f.RejectPushes("octo", "demo", false); err != nil {
		t.Fatal(err)
	}
	if got := f.HeadSHA("octo", "demo", 1); got != head {
		t.Errorf("feature moved from %s to %s while pushes were rejected", head, got)
	}

	// feature exists and is ahead of main: a new PR from it, made on main,
	// would drop its commits (a push without force is refused).
	if _, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "feature", Files: map[string]string{"y": "z"}}); err == nil {
		t.Error("a commit on main replaced feature's commits")
	}
	if got := f.HeadSHA("octo", "demo", 1); got != head {
		t.Errorf("feature moved from %s to %s by a non-fast-forward commit", head, got)
	}

	sha, err := f.PushCommit("octo", "demo", "feature", map[string]string{"x": "y"}, "accepted")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.HeadSHA("octo", "demo", 1); got != sha {
		t.Errorf("feature is at %s after a commit %s", got, sha)
	}
}

// The fake's own commit on a PR's head is two git processes (fast-import,
// then the PR's commit count), three while the PR has a thread not yet
// outdated (the files the push changed, which outdate it), and reading a
// PR again at the same head and base starts none: its changed files
// depend on commit SHAs only. Counted, so a push through the hook or a
// per-read git query shows as a changed count. (The files the push
// changed were asked on every push before they were asked only for a
// live thread: 3 processes then.)
func TestGitCost_aCommitIsOneProcessAndARereadIsNone(t *testing.T) {
	t.Parallel()
	f := contentsFixture(t)
	before := ghfake.GitRuns(f, "octo", "demo")
	if _, err := f.PushCommit("octo", "demo", "feature", map[string]string{"x": "y"}, "one"); err != nil {
		t.Fatal(err)
	}
	if got := ghfake.GitRuns(f, "octo", "demo") - before; got != 2 {
		t.Errorf("a commit on the PR's head started %d git processes, want 2 (fast-import, rev-list)", got)
	}
	if _, _, err := f.AddReviewComment("octo", "demo", 1, ghfake.CommentOptions{Author: "octo", Body: "b", Path: "x", Line: 1}); err != nil {
		t.Fatal(err)
	}
	before = ghfake.GitRuns(f, "octo", "demo")
	if _, err := f.PushCommit("octo", "demo", "feature", map[string]string{"x": "z"}, "two"); err != nil {
		t.Fatal(err)
	}
	if got := ghfake.GitRuns(f, "octo", "demo") - before; got != 3 {
		t.Errorf("a commit on the head of a PR with a live thread started %d git processes, want 3 (fast-import, diff, rev-list)", got)
	}
	read := func() {
		req, _ := http.NewRequest(http.MethodGet, f.URL()+"/repos/octo/demo/pulls/1", nil)
		req.Header.Set("Authorization", "Bearer ghs_read")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET pulls/1: %d", resp.StatusCode)
		}
	}
	read()
	first := ghfake.GitRuns(f, "octo", "demo")
	for range 10 {
		read()
	}
	if got := ghfake.GitRuns(f, "octo", "demo") - first; got != 0 {
		t.Errorf("10 more reads of the PR at the same head started %d git processes, want 0", got)
	}
}

// The repository's configuration files are five object(expression:)
// lookups on the default branch in every observe query: on a commit not
// read before they cost one git process (the commit's tree, listed
// once) and the text of the blob asked for, and they answer as git does
// (a tree's entries, a blob's text, null for a path that is not there).
func TestGitCost_configLookupsAtACommitAreOneTreeListing(t *testing.T) {
	t.Parallel()
	f := contentsFixture(t)
	const q = `{"query":"{ repository(owner: \"octo\", name: \"demo\") { ` +
		`w: object(expression: \"main:.github/workflows\") { ... on Tree { entries { name } } } ` +
		`c: object(expression: \"main:.github/review-loop.yml\") { ... on Blob { text } } ` +
		`g: object(expression: \"main:.gemini\") { oid } ` +
		`y: object(expression: \"main:.coderabbit.yml\") { oid } ` +
		`d: object(expression: \"main:.github/workflows/ci.yml/x\") { oid } ` +
		`} }"}`
	before := ghfake.GitRuns(f, "octo", "demo")
	req, _ := http.NewRequest(http.MethodPost, f.GraphQLURL(), strings.NewReader(q))
	req.Header.Set("Authorization", "Bearer ghs_read")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Data struct {
			Repository struct {
				W       struct{ Entries []struct{ Name string } }
				C       struct{ Text string }
				G, Y, D *struct{ OID string }
			}
		}
		Errors []any
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	r := got.Data.Repository
	if len(got.Errors) != 0 || len(r.W.Entries) != 1 || r.W.Entries[0].Name != "ci.yml" || strings.TrimSpace(r.C.Text) != strings.TrimSpace(reviewLoopYML) || r.G != nil || r.Y != nil || r.D != nil {
		t.Errorf("answer %+v", got)
	}
	if n := ghfake.GitRuns(f, "octo", "demo") - before; n != 3 {
		t.Errorf("five lookups at a commit started %d git processes, want 3 (the tree, the workflows tree's entries, the config's text)", n)
	}
}
