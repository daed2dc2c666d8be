package git

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/git/gittest"
)

func newRepo(t *testing.T) (*gittest.Repo, *Repo) {
	t.Helper()
	tr := gittest.New(t, map[string]string{"internal/fix/a.go": "package fix\n", "README.md": "hi\n"})
	g := &Runner{Dir: tr.Dir}
	return tr, &Repo{Git: g, Guard: Guard{HeadBranch: "feature", DefaultBranch: "main", ObservedHeadSHA: tr.Head(t)}}
}

func TestRule_B5_RefusalsHappenBeforeAnyGitCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		guard Guard
		push  string
	}{
		{"a push to a protected branch is refused", Guard{HeadBranch: "feature", DefaultBranch: "main", Protected: true, ObservedHeadSHA: "x"}, "feature"},
		{"a push to the default branch is refused", Guard{HeadBranch: "main", DefaultBranch: "main", ObservedHeadSHA: "x"}, "main"},
		{"a fork pull request is refused", Guard{HeadBranch: "feature", DefaultBranch: "main", Fork: true, ObservedHeadSHA: "x"}, "feature"},
		{"a branch other than the PR head is refused", Guard{HeadBranch: "feature", DefaultBranch: "main", ObservedHeadSHA: "x"}, "other"},
		{"a branch name that looks like a flag is refused", Guard{HeadBranch: "--force", DefaultBranch: "main", ObservedHeadSHA: "x"}, "--force"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := &Runner{Dir: t.TempDir(), Git: "/nonexistent/git"}
			r := &Repo{Git: g, Guard: tc.guard}
			var refused *RefusedError
			if err := tc.guard.Check(tc.push); !errors.As(err, &refused) {
				t.Fatalf("Check: got %v, want a refusal", err)
			}
			if tc.push == tc.guard.HeadBranch {
				if _, err := r.Commit(context.Background(), CommitRequest{Files: []string{"a"}, Message: "m"}); !errors.As(err, &refused) {
					t.Fatalf("Commit: got %v, want a refusal", err)
				}
			}
			if calls := g.Calls(); len(calls) != 0 {
				t.Fatalf("git ran before the refusal: %v", calls)
			}
		})
	}
}

func TestRule_B5_ForceNoVerifyAndMergeAreNeverRun(t *testing.T) {
	t.Parallel()
	g := &Runner{Dir: t.TempDir(), Git: "/nonexistent/git"}
	for _, args := range [][]string{
		{"push", "--force", "origin", "x"},
		{"push", "-f", "origin", "x"},
		{"push", "origin", "+HEAD:refs/heads/x"},
		{"push", "--force-with-lease", "origin", "x"},
		{"commit", "--no-verify", "-m", "x"},
		{"merge", "main"},
		{"pull", "origin", "main"},
	} {
		if _, err := g.Run(context.Background(), args...); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("git %v: got %v, want a refusal", args, err)
		}
	}
	if calls := g.Calls(); len(calls) != 0 {
		t.Fatalf("forbidden argv reached git: %v", calls)
	}
}

func TestRule_B5_AnOutsidePushIsRefusedBeforeStaging(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	tr.Write(t, map[string]string{"README.md": "someone else\n"})
	tr.CommitAll(t, "outside push")
	tr.Write(t, map[string]string{"internal/fix/a.go": "package fix // edited\n"})
	var refused *RefusedError
	_, err := r.Commit(context.Background(), CommitRequest{Files: []string{"internal/fix/a.go"}, Message: "m"})
	if !errors.As(err, &refused) || refused.Rule != "W3" {
		t.Fatalf("got %v, want a W3 refusal", err)
	}
	for _, c := range r.Git.Calls() {
		if c[0] == "add" || c[0] == "commit" {
			t.Fatalf("staged or committed after the refusal: %v", c)
		}
	}
}

func TestRule_B6_E4_OneCommitWithTheMessageAndBody(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	tr.Write(t, map[string]string{"internal/fix/a.go": "package fix\n\nvar x = 1\n", "internal/fix/b.go": "package fix\n", "unrelated.txt": "not mine\n"})
	files := []string{"internal/fix/a.go", "internal/fix/b.go"}
	msg := Message(3, 42, files, []Closed{{ID: "copilot-1", Engine: "copilot", CommentID: 1, Title: "Use x"}, {ID: "gemini-2", Engine: "gemini", CommentID: 2}})
	sha, err := r.Commit(context.Background(), CommitRequest{Files: files, Message: msg, Author: Identity{Name: "Bot", Email: "bot@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if sha != tr.Head(t) {
		t.Fatalf("Commit returned %s, HEAD is %s", sha, tr.Head(t))
	}
	got := tr.Git(t, "log", "-1", "--format=%B")
	want := "fix(fix): address review 3 (PR #42)\n\nFindings closed:\n- copilot-1 (copilot, comment 1): Use x\n- gemini-2 (gemini, comment 2)"
	if got != want {
		t.Fatalf("message:\n%s\nwant:\n%s", got, want)
	}
	if author := tr.Git(t, "log", "-1", "--format=%an <%ae> / %cn <%ce>"); author != "Bot <bot@example.com> / Bot <bot@example.com>" {
		t.Fatalf("author: %s", author)
	}
	if n := tr.Git(t, "rev-list", "--count", r.Guard.ObservedHeadSHA+"..HEAD"); n != "1" {
		t.Fatalf("%s commits, want 1", n)
	}
	if st := tr.Status(t); st != "?? unrelated.txt" {
		t.Fatalf("only the cycle's files are committed; status: %q", st)
	}
}

func TestRule_E3_NoChangeMeansNoCommit(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	if _, err := r.Commit(context.Background(), CommitRequest{Files: []string{"README.md"}, Message: "m"}); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("got %v, want ErrNothingToCommit", err)
	}
}

func TestRestoreFilesPutsTrackedFilesBackAndRemovesNewOnes(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	tr.Write(t, map[string]string{"README.md": "edited\n", "new/file.txt": "new\n"})
	if err := r.Git.RestoreAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := tr.Status(t); st != "" {
		t.Fatalf("tree not clean: %q", st)
	}
	if got := tr.Read(t, "README.md"); got != "hi\n" {
		t.Fatalf("README.md = %q", got)
	}
}

func TestScope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{"internal/fix/a.go", "internal/fix/b.go"}, "fix"},
		{[]string{"internal/fix/a.go", "internal/git/b.go"}, "review"},
		{[]string{"docs/a.md", "docs/sub/b.md"}, "docs"},
		{[]string{"README.md"}, "review"},
		{[]string{"docs/a.md", "internal/fix/a.go"}, "review"},
	} {
		if got := Scope(tc.files); got != tc.want {
			t.Errorf("Scope(%v) = %q, want %q", tc.files, got, tc.want)
		}
	}
}

func TestFetchBranch_refusesOptionLikeNamesAndFetches(t *testing.T) {
	t.Parallel()
	repo := gittest.New(t, map[string]string{"a.txt": "a\n"})
	r := &Runner{Dir: repo.Dir}
	if err := r.FetchBranch(context.Background(), "--upload-pack=evil", "tok"); err == nil {
		t.Fatal("an option-like branch name was fetched")
	}
	if len(r.Calls()) != 0 {
		t.Fatalf("git ran: %v", r.Calls())
	}
	if err := r.FetchBranch(context.Background(), "feature", ""); err != nil {
		t.Fatal(err)
	}
}
