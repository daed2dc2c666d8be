package ghfake_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// The fake keeps, per repository, the answers of git queries that name
// every revision by full SHA (a commit's content and ancestry never
// change), so a request asked again starts no git process. These tests
// count the processes (GitRuns) of repeated identical requests, and check
// that a branch a push moves, and a commit pushed after it was asked
// about, are seen by the next request.

// memoFixture is contentsFixture with a token that may write and create
// check runs, and the PR's head SHA.
func memoFixture(t *testing.T) (*ghfake.Fake, string) {
	t.Helper()
	f := contentsFixture(t)
	f.AddToken("ghs_app", ghfake.Identity{Login: "github-actions", Bot: true})
	return f, f.HeadSHA("octo", "demo", 1)
}

func request(t *testing.T, f *ghfake.Fake, method, path, accept, body string) (int, []byte) {
	t.Helper()
	return requestB(t, f, method, path, accept, body)
}

func requestB(t testing.TB, f *ghfake.Fake, method, path, accept, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, f.URL()+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer ghs_app")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// repeatCosts asks each request once, then five times more: the repeats
// must answer byte for byte the same (but the pull request's JSON, whose
// ids the fake mints per answer) and start no git process.
func repeatCosts(t *testing.T, f *ghfake.Fake, reqs [][4]string, wantStatus ...int) {
	t.Helper()
	first := make([][]byte, len(reqs))
	for i, r := range reqs {
		st, b := request(t, f, r[0], r[1], r[2], r[3])
		if st != wantStatus[i] {
			t.Fatalf("%s %s: %d %s, want %d", r[0], r[1], st, b, wantStatus[i])
		}
		first[i] = b
	}
	before := ghfake.GitRuns(f, "octo", "demo")
	for range 5 {
		for i, r := range reqs {
			st, b := request(t, f, r[0], r[1], r[2], r[3])
			same := bytes.Equal(b, first[i]) || (r[1] == "/repos/octo/demo/pulls/1" && r[2] == "")
			if st != wantStatus[i] || !same {
				t.Fatalf("%s %s again: %d %s, first %s", r[0], r[1], st, b, first[i])
			}
		}
	}
	if n := ghfake.GitRuns(f, "octo", "demo") - before; n != 0 {
		t.Errorf("5 repeats of %d requests started %d git processes, want 0", len(reqs), n)
	}
}

// Compare and commit answers (merge base, counts, commits, files with
// their patches and status, each commit's author) are asked of git once.
func TestGitCost_repeatedCompareAndCommitReadsStartNoProcess(t *testing.T) {
	t.Parallel()
	f, head := memoFixture(t)
	repeatCosts(t, f, [][4]string{
		{"GET", "/repos/octo/demo/compare/main...feature", "", ""},
		{"GET", "/repos/octo/demo/compare/main..." + head, "", ""},
		{"GET", "/repos/octo/demo/commits/" + head, "", ""},
		{"GET", "/repos/octo/demo/commits/feature", "", ""},
	}, 200, 200, 200, 200)
}

// A pull request's diff and its JSON (changed files) are asked once.
func TestGitCost_repeatedPullReadsStartNoProcess(t *testing.T) {
	t.Parallel()
	f, _ := memoFixture(t)
	repeatCosts(t, f, [][4]string{
		{"GET", "/repos/octo/demo/pulls/1", "application/vnd.github.diff", ""},
		{"GET", "/repos/octo/demo/pulls/1", "", ""},
	}, 200, 200)
}

// Contents at a branch, at a SHA, a directory and a path that is not
// there (a tree never changes, so "not found" at a SHA is kept too).
func TestGitCost_repeatedContentsReadsStartNoProcess(t *testing.T) {
	t.Parallel()
	f, head := memoFixture(t)
	repeatCosts(t, f, [][4]string{
		{"GET", "/repos/octo/demo/contents/.github/review-loop.yml?ref=feature", "", ""},
		{"GET", "/repos/octo/demo/contents/.github/review-loop.yml?ref=" + head, "", ""},
		{"GET", "/repos/octo/demo/contents/.github/workflows", "", ""},
		{"GET", "/repos/octo/demo/contents/no/such/file?ref=" + head, "", ""},
	}, 200, 200, 200, 404)
}

// A check run on the PR's head (a commit the fake read from the branch)
// and a dispatch of a workflow the default branch lacks start no git
// process once the observe query's configuration lookups listed the
// default branch's tree.
func TestGitCost_checkRunsOnTheHeadAndDispatchesStartNoProcess(t *testing.T) {
	t.Parallel()
	f, head := memoFixture(t)
	const q = `{"query":"{ repository(owner: \"octo\", name: \"demo\") { c: object(expression: \"main:.github/review-loop.yml\") { oid } } }"}`
	if st, b := request(t, f, "POST", "/graphql", "", q); st != 200 || !strings.Contains(string(b), `"oid"`) {
		t.Fatalf("observe lookup: %d %s", st, b)
	}
	before := ghfake.GitRuns(f, "octo", "demo")
	for i := range 3 {
		if st, b := request(t, f, "POST", "/repos/octo/demo/check-runs", "", `{"name":"gate","head_sha":"`+head+`"}`); st != 201 {
			t.Fatalf("check run %d: %d %s", i, st, b)
		}
		if st, b := request(t, f, "POST", "/repos/octo/demo/actions/workflows/review-loop.yml/dispatches", "", `{"ref":"main"}`); st != 204 {
			t.Fatalf("dispatch %d: %d %s", i, st, b)
		}
	}
	if n := ghfake.GitRuns(f, "octo", "demo") - before; n != 0 {
		t.Errorf("3 check runs on the PR head and 3 dispatches started %d git processes, want 0", n)
	}
}

// clonePush clones the repository, commits files on branch and pushes
// them (unless push is false); it returns the clone and the commit.
func clonePush(t *testing.T, f *ghfake.Fake, branch string, files map[string]string, push bool) (string, string) {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_NOSYSTEM=1")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("clone", "--quiet", "--branch", branch, f.CloneURL("octo", "demo"), ".")
	for n, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-q", "-m", "pushed")
	if push {
		run("push", "-q", "origin", "HEAD:refs/heads/"+branch)
	}
	return dir, run("rev-parse", "HEAD")
}

// A query by branch name is never kept under the name: after a push moves
// the branch (by git, behind the fake's back), compare, commit and
// contents answer from the new tip; after a push the fake sees (its own
// commit, as over its git server), so does the PR's diff. A GraphQL
// object(expression:) git must resolve by name (feature~0) is asked
// again.
func TestGitMemo_aBranchMovedByAPushIsSeenByTheNextRequest(t *testing.T) {
	t.Parallel()
	f, _ := memoFixture(t)
	reads := [][3]string{
		{"/repos/octo/demo/compare/main...feature", "", "moved.txt"},
		{"/repos/octo/demo/commits/feature", "", "moved.txt"},
		{"/repos/octo/demo/contents/moved.txt?ref=feature", "", "bW92ZWQK"}, // base64 of "moved\n"
	}
	diff := func() string {
		_, b := request(t, f, "GET", "/repos/octo/demo/pulls/1", "application/vnd.github.diff", "")
		return string(b)
	}
	const q = `{"query":"{ repository(owner: \"octo\", name: \"demo\") { m: object(expression: \"feature~0:moved.txt\") { oid } } }"}`
	reads = append(reads, [3]string{"/graphql", q, `"m":{"oid"`})
	if _, b := request(t, f, "POST", "/graphql", "", q); !strings.Contains(string(b), `"m":null`) {
		t.Fatalf("feature~0:moved.txt before the push: %s", b)
	}
	if d := diff(); strings.Contains(d, "again.txt") {
		t.Fatalf("the PR's diff before the push: %s", d)
	}
	for _, r := range reads {
		if _, b := request(t, f, "GET", r[0], r[1], ""); strings.Contains(string(b), r[2]) {
			t.Fatalf("%s before the push already has %q", r[0], r[2])
		}
	}
	_, sha := clonePush(t, f, "feature", map[string]string{"moved.txt": "moved\n"}, true)
	for _, r := range reads {
		method, accept, body := "GET", r[1], ""
		if r[0] == "/graphql" {
			method, accept, body = "POST", "", r[1]
		}
		if st, b := request(t, f, method, r[0], accept, body); st != 200 || !strings.Contains(string(b), r[2]) {
			t.Errorf("%s after the push to %s: %d, no %q in %s", r[0], sha, st, r[2], b)
		}
	}
	if _, err := f.PushCommit("octo", "demo", "feature", map[string]string{"again.txt": "again\n"}, "again"); err != nil {
		t.Fatal(err)
	}
	if d := diff(); !strings.Contains(d, "again.txt") || !strings.Contains(d, "moved.txt") {
		t.Errorf("the PR's diff after the pushes: %s", d)
	}
}

// A commit asked about before it is pushed is "not found"; that answer is
// not kept, so once pushed it is found.
func TestGitMemo_aCommitAskedAboutBeforeItIsPushedIsFoundAfter(t *testing.T) {
	t.Parallel()
	f, _ := memoFixture(t)
	dir, sha := clonePush(t, f, "feature", map[string]string{"later.txt": "later\n"}, false)
	asks := []struct {
		method, path, body string
		before, after      int
	}{
		{"GET", "/repos/octo/demo/commits/" + sha, "", 422, 200},
		{"GET", "/repos/octo/demo/compare/main..." + sha, "", 404, 200},
		{"GET", "/repos/octo/demo/contents/later.txt?ref=" + sha, "", 404, 200},
		{"POST", "/repos/octo/demo/check-runs", `{"name":"gate","head_sha":"` + sha + `"}`, 422, 201},
	}
	for _, a := range asks {
		if st, b := request(t, f, a.method, a.path, "", a.body); st != a.before {
			t.Fatalf("%s %s before the push: %d %s, want %d", a.method, a.path, st, b, a.before)
		}
	}
	cmd := exec.Command("git", "push", "-q", "origin", "HEAD:refs/heads/later")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("push: %v: %s", err, out)
	}
	for _, a := range asks {
		if st, b := request(t, f, a.method, a.path, "", a.body); st != a.after {
			t.Errorf("%s %s after the push: %d %s, want %d", a.method, a.path, st, b, a.after)
		}
	}
}

// A repository is the files `git init -q --bare -b BRANCH` writes, copied
// from one such repository per branch name and file system, then the
// pre-receive hook and the first commit: AddRepo starts one git process in
// it (the commit), or none when the previous repository of its branch got
// its first commit in the same second (the same bytes, so the same SHA):
// it is then a copy of that one. A copy holds every directory and file of
// a fresh git init with the same mode and bytes, git finds nothing wrong
// with it, and its hook still refuses a push to the protected default
// branch.
func TestInitTemplate_aCopiedRepositoryIsWhatGitInitWrites(t *testing.T) {
	t.Parallel()
	const branch = "template-check"
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	var copied, prev string
	for i := 0; copied == "" && i < 20; i++ {
		name := fmt.Sprintf("r%d", i)
		if err := f.AddRepo("octo", name, branch); err != nil {
			t.Fatal(err)
		}
		root, want := f.BranchSHA("octo", name, branch), int64(1)
		if root == prev {
			want, copied = 0, name
		}
		if n := ghfake.GitRuns(f, "octo", name); n != want {
			t.Errorf("AddRepo of octo/%s (first commit %s, the previous repository's %s) started %d git processes in it, want %d", name, root, prev, n, want)
		}
		prev = root
	}
	if copied == "" {
		t.Fatal("20 repositories, each with its first commit in another second")
	}
	bare := strings.TrimPrefix(f.CloneURL("octo", copied), "file://")
	fresh := filepath.Join(t.TempDir(), "fresh.git")
	git := func(dir string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := git("", "init", "-q", "--bare", "-b", branch, fresh); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	err := filepath.WalkDir(fresh, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == fresh {
			return err
		}
		rel, _ := filepath.Rel(fresh, p)
		want, _ := os.Lstat(p)
		got, err := os.Lstat(filepath.Join(bare, rel))
		if err != nil {
			t.Errorf("%s of git init is not in the copy: %v", rel, err)
			return nil
		}
		if got.Mode() != want.Mode() {
			t.Errorf("%s: mode %v, git init's %v", rel, got.Mode(), want.Mode())
		}
		if !d.IsDir() {
			a, _ := os.ReadFile(p)
			b, _ := os.ReadFile(filepath.Join(bare, rel))
			if !bytes.Equal(a, b) {
				t.Errorf("%s: %q, git init's %q", rel, b, a)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := git("", "--git-dir", bare, "fsck", "--strict", "--no-dangling"); err != nil || out != "" {
		t.Errorf("git fsck of the copy: %v: %s", err, out)
	}
	if out, err := git("", "--git-dir", bare, "rev-parse", "--verify", "--quiet", branch+"^{commit}"); err != nil || out != prev {
		t.Errorf("git rev-parse %s: %v %q, the fake's %q", branch, err, out, prev)
	}
	if out, err := git("", "--git-dir", bare, "log", "--format=%an <%ae> %s", branch); err != nil || out != "ghfake <ghfake@example.invalid> Initial commit" {
		t.Errorf("git log: %v %q", err, out)
	}
	if out, err := git("", "--git-dir", bare, "config", "--bool", "core.bare"); err != nil || out != "true" {
		t.Errorf("core.bare: %v %q", err, out)
	}
	clone := t.TempDir()
	for _, args := range [][]string{{"clone", "-q", "file://" + bare, "."}, {"commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := git(clone, args...); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if out, err := git(clone, "push", "-q", "origin", "HEAD:refs/heads/"+branch); err == nil || !strings.Contains(out, "GH006: Protected branch update failed for refs/heads/"+branch) {
		t.Errorf("push to the protected default branch: %v: %s", err, out)
	}
	if err := f.SetProtected("octo", copied, branch, false); err != nil {
		t.Fatal(err)
	}
	if out, err := git(clone, "push", "-q", "origin", "HEAD:refs/heads/"+branch); err != nil {
		t.Errorf("push once unprotected: %v: %s", err, out)
	}
}
