// Package gittest builds real temporary git repositories for tests: a bare
// remote and a clone on a feature branch, with a local identity.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a clone of a bare remote, checked out on branch "feature".
type Repo struct {
	Dir    string
	Remote string
}

// New creates the remote and the clone with files committed and pushed on
// "main" and "feature"; it skips the test when git is absent.
func New(t testing.TB, files map[string]string) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	r := &Repo{Dir: filepath.Join(root, "work"), Remote: filepath.Join(root, "remote.git")}
	r.git(t, root, "init", "--quiet", "--bare", "--initial-branch=main", r.Remote)
	// The remote stands in for GitHub, which runs no housekeeping in the
	// pusher's process: without this every push spawned `git gc --auto`.
	appendConfig(t, filepath.Join(r.Remote, "config"), "[receive]\n\tautogc = false\n")
	// What `git clone` of the empty remote and three `git config` calls
	// wrote, in one file: the remote, main's upstream, the identity. No
	// automatic maintenance after each commit (a no-op process on
	// repositories this small).
	r.git(t, root, "init", "--quiet", "--initial-branch=main", r.Dir)
	appendConfig(t, filepath.Join(r.Dir, ".git", "config"), "[remote \"origin\"]\n\turl = "+configQuote(r.Remote)+
		"\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"+
		"[user]\n\tname = Test\n\temail = test@example.com\n[commit]\n\tgpgsign = false\n[maintenance]\n\tauto = false\n")
	if len(files) == 0 {
		files = map[string]string{"README.md": "hello\n"}
	}
	r.Write(t, files)
	r.Git(t, "add", "-A")
	r.Git(t, "commit", "--quiet", "-m", "initial")
	r.Git(t, "checkout", "--quiet", "-b", "feature")
	r.Git(t, "push", "--quiet", "origin", "main", "feature")
	return r
}

// appendConfig appends text to the git config file at path.
func appendConfig(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// configQuote is s as a quoted git config value.
func configQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Write writes files (path → content) into the working tree.
func (r *Repo) Write(t testing.TB, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// Read returns a working-tree file's content.
func (r *Repo) Read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// CommitAll commits every change with msg and returns the new HEAD.
func (r *Repo) CommitAll(t testing.TB, msg string) string {
	t.Helper()
	r.Git(t, "add", "-A")
	r.Git(t, "commit", "--quiet", "-m", msg)
	return r.Head(t)
}

// Head returns HEAD's SHA.
func (r *Repo) Head(t testing.TB) string {
	t.Helper()
	return r.Git(t, "rev-parse", "HEAD")
}

// Status returns `git status --porcelain` (empty when the tree is clean).
func (r *Repo) Status(t testing.TB) string {
	t.Helper()
	return r.Git(t, "status", "--porcelain", "--untracked-files=all")
}

// Git runs git in the clone and returns its trimmed output.
func (r *Repo) Git(t testing.TB, args ...string) string {
	t.Helper()
	return r.git(t, r.Dir, args...)
}

func (r *Repo) git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
