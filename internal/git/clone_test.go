package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/git/gittest"
)

// TestCloneShallow_ChecksOutTheBranchTipAtDepthOne: a workspace with no
// repository becomes a checkout of the branch tip alone, on a local branch
// of that name, with origin set and no credential in its config.
func TestCloneShallow_ChecksOutTheBranchTipAtDepthOne(t *testing.T) {
	t.Parallel()
	tr := gittest.New(t, map[string]string{"a.go": "package a\n"})
	tr.Write(t, map[string]string{"b.go": "package a\n"})
	tip := tr.CommitAll(t, "second")
	tr.Git(t, "push", "--quiet", "origin", "feature")

	dir := t.TempDir()
	g := &Runner{Dir: dir}
	remote := "file://" + tr.Remote
	if err := g.CloneShallow(context.Background(), remote, "feature", ""); err != nil {
		t.Fatal(err)
	}
	if head, err := g.Head(context.Background()); err != nil || head != tip {
		t.Errorf("HEAD = %q (%v), want the branch tip %s", head, err, tip)
	}
	out := func(args ...string) string {
		s, err := g.Run(context.Background(), args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(s)
	}
	if b := out("rev-parse", "--abbrev-ref", "HEAD"); b != "feature" {
		t.Errorf("on branch %q, want feature", b)
	}
	if s := out("rev-parse", "--is-shallow-repository"); s != "true" {
		t.Errorf("is-shallow-repository = %s: the whole history was fetched", s)
	}
	if n := out("rev-list", "--count", "HEAD"); n != "1" {
		t.Errorf("%s commits fetched, want 1", n)
	}
	if u := out("remote", "get-url", "origin"); u != remote {
		t.Errorf("origin = %q, want %q", u, remote)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.go")); err != nil {
		t.Errorf("the tree is not checked out: %v", err)
	}
}

// TestCloneShallow_AFailedCloneLeavesNoRepository: an unknown branch, an
// origin that is not the GitHub server while a token is given, or a URL
// with credentials leave the workspace as it was; a workspace that already
// holds a repository is refused.
func TestCloneShallow_AFailedCloneLeavesNoRepository(t *testing.T) {
	t.Parallel()
	tr := gittest.New(t, nil)
	cases := []struct {
		name, remote, branch, token string
		want                        string
	}{
		{"unknown branch", "file://" + tr.Remote, "nope", "", "nope"},
		{"origin on another host with a token", "https://evil.example/o/r.git", "feature", "ghs_secret", "TB7"},
		{"credentials in the URL", "https://x:ghs_secret@github.com/o/r.git", "feature", "", "without credentials"},
		{"a branch that reads as an option", "file://" + tr.Remote, "--upload-pack=x", "", "branch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			g := &Runner{Dir: dir, ServerURL: "https://github.com"}
			err := g.CloneShallow(context.Background(), tc.remote, tc.branch, tc.token)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "ghs_secret") {
				t.Errorf("the error shows the token: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
				t.Errorf("a failed clone left %s/.git behind", dir)
			}
		})
	}
	g := &Runner{Dir: tr.Dir}
	if err := g.CloneShallow(context.Background(), "file://"+tr.Remote, "feature", ""); err == nil || !strings.Contains(err.Error(), "already holds a repository") {
		t.Errorf("cloning into a checkout: err = %v, want a refusal", err)
	}
}

// TestFetchBranch_AShallowCheckoutFetchesTheTipAlone: a checkout of one
// commit (fetch-depth: 1, or review-loop's own clone) fetching the PR
// head branch gets its tip, not the branch's whole history; a full clone
// stays full.
func TestFetchBranch_AShallowCheckoutFetchesTheTipAlone(t *testing.T) {
	t.Parallel()
	tr := gittest.New(t, map[string]string{"a.go": "package a\n"})
	for i := range 5 {
		tr.Write(t, map[string]string{"a.go": "package a\n\nconst N = " + string(rune('0'+i)) + "\n"})
		tr.CommitAll(t, "commit")
	}
	tr.Git(t, "push", "--quiet", "origin", "feature")
	remote := "file://" + tr.Remote
	ctx := context.Background()

	dir := t.TempDir()
	g := &Runner{Dir: dir}
	if err := g.CloneShallow(ctx, remote, "main", ""); err != nil {
		t.Fatal(err)
	}
	if err := g.FetchBranch(ctx, "feature", ""); err != nil {
		t.Fatal(err)
	}
	if n, err := g.Run(ctx, "rev-list", "--count", "refs/remotes/origin/feature"); err != nil || strings.TrimSpace(n) != "1" {
		t.Errorf("a shallow checkout fetched %q commits of the branch (%v), want its tip alone", strings.TrimSpace(n), err)
	}

	full := t.TempDir()
	if out, err := exec.Command("git", "clone", "--quiet", "--branch", "main", remote, full).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	fg := &Runner{Dir: full}
	if err := fg.FetchBranch(ctx, "feature", ""); err != nil {
		t.Fatal(err)
	}
	if s, _ := fg.Run(ctx, "rev-parse", "--is-shallow-repository"); strings.TrimSpace(s) != "false" {
		t.Errorf("fetching into a full clone made it shallow")
	}
}
