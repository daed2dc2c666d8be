package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// TestRule_LW1_WatchWithTrustFixesAForkPROnlyByReporting: with --trust,
// watch takes a fork PR. It fetches the head from the base repository as
// GitHub serves it (refs/pull/<N>/head: the fork's branch is not there),
// and the cycle is the core's for a fork (B5; DESIGN "Fork PRs:
// report-only; no fixer command, no test command, no push"): the finding
// is triaged and reported, no fixer, test or setup command runs, and
// nothing is pushed.
func TestRule_LW1_WatchWithTrustFixesAForkPROnlyByReporting(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := watchFake(t, true)
	head := f.HeadSHA("octo", "app", 1)
	rid, err := f.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", CommitSHA: head,
		Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated 1 comment."})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 3, CommitSHA: head,
		Body: "Add subtracts instead of adding.\n\n```suggestion\nfunc Add(a, b int) int { return a + b }\n```"}); err != nil {
		t.Fatal(err)
	}
	// The user's clone of the base repository, with their own git
	// credentials in the remote URL; only main is cloned, so the PR head
	// can come only from the fetch watch makes.
	clone := filepath.Join(t.TempDir(), "app")
	remote := strings.Replace(f.HTTPCloneURL("octo", "app"), "://", "://x-access-token:ghp_watch_cli@", 1)
	gitCLI(t, "", "clone", "--quiet", "--single-branch", "--branch", "main", remote, clone)
	if _, err := gitOut("", "-C", clone, "cat-file", "-e", head+"^{commit}"); err == nil {
		t.Fatal("the clone holds the PR head before watch runs")
	}
	marks := t.TempDir()
	ran := func(name string) string { return "touch " + filepath.Join(marks, name) }
	getenv := watchEnv(f, map[string]string{"INPUT_FIXER": "command", "INPUT_FIXER-COMMAND": ran("fixer"),
		"INPUT_TEST-COMMAND": ran("test"), "INPUT_SETUP-COMMAND": ran("setup"), "GITHUB_SERVER_URL": f.URL()})
	f.ResetGitRequests()
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"watch", "octo/app#1", "--trust", "--once", "--repo-dir", clone}, Env{Getenv: getenv, Stdout: &out, Stderr: &errb})
	if code != ExitOK {
		t.Errorf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, ExitOK, out.String(), errb.String())
	}
	// The head came from refs/pull/1/head of the base repository.
	fetched, err := os.ReadFile(filepath.Join(clone, ".git", "FETCH_HEAD"))
	if err != nil || !strings.HasPrefix(string(fetched), head) || !strings.Contains(string(fetched), "'refs/pull/1/head'") {
		t.Errorf("FETCH_HEAD = %q (%v), want the PR head %s from 'refs/pull/1/head'", fetched, err, head)
	}
	// Report-only: no command of the PR's ran, nothing was pushed.
	for _, name := range []string{"fixer", "test", "setup"} {
		if _, err := os.Stat(filepath.Join(marks, name)); err == nil {
			t.Errorf("the %s command ran on a fork PR", name)
		}
	}
	for _, g := range f.GitRequests() {
		if g.Service == "git-receive-pack" {
			t.Errorf("watch pushed to the fork PR: %+v", g)
		}
	}
	if got := f.HeadSHA("octo", "app", 1); got != head {
		t.Errorf("the PR head moved to %s, want it left at %s", got, head)
	}
	body := ""
	for _, c := range f.PR("octo", "app", 1).Comments {
		body += c.Body + "\n"
	}
	if !strings.Contains(body, "report-only") {
		t.Errorf("the state comment does not hand back as report-only; comments:\n%s\nstdout:\n%s", body, out.String())
	}
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func gitCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitOut(dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}
