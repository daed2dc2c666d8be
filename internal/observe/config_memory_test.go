package observe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// The reads of the repository config file and of the findings' code
// context, against the fake GitHub over HTTP and a real git repository.

func TestRepoConfig_WithoutACheckoutTheDefaultBranchsFileIsReadInOneRequest(t *testing.T) {
	t.Parallel()
	f, gh := fakePR(t)
	push := func(content string) {
		t.Helper()
		if _, err := f.PushCommit("octo", "app", "main", map[string]string{".github/review-loop.yml": content}, "config"); err != nil {
			t.Fatal(err)
		}
	}
	read := func() error {
		f.ResetRequests()
		_, err := RepoConfig(context.Background(), gh, "octo", "app", t.TempDir(), ".github/review-loop.yml", true, quiet)
		if n := len(f.Requests()); n != 1 {
			t.Fatalf("%d requests, want the one file read", n)
		}
		return err
	}
	if err := read(); err != nil {
		t.Fatalf("no config file on the default branch: %v, want the defaults", err)
	}
	push("shared_paths: [lib/**]\n")
	f.ResetRequests()
	rc, err := RepoConfig(context.Background(), gh, "octo", "app", t.TempDir(), ".github/review-loop.yml", true, quiet)
	if err != nil || len(rc.SharedPaths) != 1 || rc.SharedPaths[0] != "lib/**" {
		t.Fatalf("config %+v, %v; want shared_paths [lib/**] from the default branch", rc.SharedPaths, err)
	}
	push("shared_pathz: [lib/**]\n")
	if err := read(); err == nil || !strings.Contains(err.Error(), "read from the default branch") || !strings.Contains(err.Error(), "shared_pathz") {
		t.Fatalf("a bad config file on the default branch: %v, want its problem and where it was read", err)
	}
	// With a checkout the file in it counts and nothing is asked.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".github/review-loop.yml"), []byte("shared_paths: [pkg/**]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.ResetRequests()
	rc, err = RepoConfig(context.Background(), gh, "octo", "app", dir, ".github/review-loop.yml", false, quiet)
	if err != nil || len(rc.SharedPaths) != 1 || rc.SharedPaths[0] != "pkg/**" || len(f.Requests()) != 0 {
		t.Fatalf("config %+v, %v, %d requests; want the checkout's file and no request", rc.SharedPaths, err, len(f.Requests()))
	}
}

func TestRule_WF1_EachFindingsContextIsHashedFromTheHeadInTheCheckout(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	const calc = "package calc\n\nfunc Div(a, b int) int {\n\treturn a / b\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte(calc), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &git.Runner{Dir: dir}
	ctx := context.Background()
	for _, args := range [][]string{{"init", "-q", "-b", "feature"}, {"add", "calc.go"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "calc"}} {
		if _, err := g.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	head, err := g.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	head = strings.TrimSpace(head)
	views := func() []loop.EngineView {
		return []loop.EngineView{{Engine: "bugbot", Findings: []loop.Finding{
			{ID: "on-calc", Path: "calc.go", StartLine: 3, Line: 4},
			{ID: "missing-file", Path: "gone.go", Line: 1},
			{ID: "outdated", Path: "calc.go", Line: 4, Outdated: true},
			{ID: "no-line", Path: "calc.go"},
		}}}
	}
	obs := &github.Observation{HeadSHA: head, HeadRef: "feature", IsFork: true}
	vs := views()
	ContextHashes(ctx, g, obs, "", vs, quiet)
	want := map[string]string{"on-calc": loop.ContextHash(calc, 3, 4)}
	for _, f := range vs[0].Findings {
		if f.ContextHash != want[f.ID] {
			t.Errorf("finding %s: context hash %q, want %q", f.ID, f.ContextHash, want[f.ID])
		}
	}
	if want["on-calc"] == "" {
		t.Fatal("loop.ContextHash gave no hash for calc.go's lines 3-4")
	}
	vs = views()
	ContextHashes(ctx, &git.Runner{Dir: t.TempDir()}, obs, "", vs, quiet)
	if h := vs[0].Findings[0].ContextHash; h != "" {
		t.Errorf("no checkout: context hash %q, want none", h)
	}
}
