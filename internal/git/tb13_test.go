package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/git/gittest"
)

// TB13: every git child gets the system's directories as PATH, whatever
// the job's PATH says (on GitHub's runners it starts with the writable
// ~/.local/bin), and is told not to honour replacement refs.
func TestRule_TB13_GitChildrenGetTheSystemPathAndNoReplacements(t *testing.T) {
	t.Parallel()
	r := &Runner{Env: []string{"PATH=/home/runner/.local/bin:/usr/bin", "LANG=C"}}
	env, err := r.environ(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			paths = append(paths, p)
		}
	}
	if !slices.Equal(paths, []string{SystemPath}) {
		t.Errorf("git's PATH = %q, want only %q", paths, SystemPath)
	}
	if !slices.Contains(env, "GIT_NO_REPLACE_OBJECTS=1") {
		t.Errorf("git's environment lacks GIT_NO_REPLACE_OBJECTS=1: %q", env)
	}
}

// TB13: the credential helper runs no program by name: run by /bin/sh
// with an empty PATH, as git runs it, it still answers with what fd 3
// holds, so nothing planted on any PATH is ever handed the credential.
func TestRule_TB13_TheCredentialHelperRunsNoProgramByName(t *testing.T) {
	t.Parallel()
	pipe, err := credentialPipe("ghs_helper_secret")
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Close()
	// git runs "!<helper>" as: /bin/sh -c '<helper> "$@"' <helper> get.
	cmd := exec.Command("/bin/sh", "-c", strings.TrimPrefix(credentialHelper, "!")+` "$@"`, "helper", "get")
	cmd.Env = []string{"PATH="}
	cmd.Stdin = strings.NewReader("protocol=https\nhost=github.com\n\n")
	cmd.ExtraFiles = []*os.File{pipe}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the helper needs a program from PATH: %v\n%s", err, out)
	}
	if got := string(out); got != "username=x-access-token\npassword=ghs_helper_secret\n" {
		t.Errorf("the helper answered %q", got)
	}
}

// TB13: the git review-loop runs is one only root can replace: a git in
// a directory others may write, or writable itself, is passed over.
func TestRule_TB13_SystemGitIsOneOnlyRootCanReplace(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/git"); err != nil {
		t.Skip("no /usr/bin/git")
	}
	planted := t.TempDir()
	if err := os.WriteFile(filepath.Join(planted, "git"), []byte("#!/bin/sh\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(planted, "git"), 0o777); err != nil {
		t.Fatal(err)
	}
	got, err := findGit([]string{planted, "/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(got, planted) {
		t.Errorf("findGit chose the planted %s", got)
	}
	if _, err := findGit([]string{planted}); err == nil || !strings.Contains(err.Error(), "only root") {
		t.Errorf("a writable git alone: err = %v, want a refusal", err)
	}
	sys, err := SystemGit()
	if err != nil || !filepath.IsAbs(sys) {
		t.Errorf("SystemGit() = %q, %v", sys, err)
	}
}

// TB13: a command's `git replace` of HEAD's tree by one with more files
// changes nothing review-loop's git reads: the checkout is clean and
// HEAD's file is the real one.
func TestRule_TB13_AReplacementRefIsNotHonoured(t *testing.T) {
	t.Parallel()
	tr := gittest.New(t, map[string]string{"a.go": "package a\n"})
	tree := tr.Git(t, "rev-parse", "HEAD^{tree}")
	evil := t.TempDir()
	idx := filepath.Join(evil, "index")
	blob := strings.TrimSpace(runGit(t, tr.Dir, nil, "hash-object", "-w", "--stdin"))
	runGit(t, tr.Dir, []string{"GIT_INDEX_FILE=" + idx}, "read-tree", tree)
	runGit(t, tr.Dir, []string{"GIT_INDEX_FILE=" + idx}, "update-index", "--add", "--cacheinfo", "100644,"+blob+",backdoor.txt")
	evilTree := strings.TrimSpace(runGit(t, tr.Dir, []string{"GIT_INDEX_FILE=" + idx}, "write-tree"))
	tr.Git(t, "replace", "-f", tree, evilTree)
	if out := tr.Git(t, "ls-tree", "--name-only", "HEAD"); !strings.Contains(out, "backdoor.txt") {
		t.Fatalf("the replacement did not take for a plain git: %s", out)
	}
	r := &Runner{Dir: tr.Dir}
	changed, err := r.ChangedFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 0 {
		t.Errorf("review-loop's git sees changes %v in a clean checkout", changed)
	}
	if _, err := r.Show(context.Background(), "HEAD", "backdoor.txt"); err == nil {
		t.Error("review-loop's git reads backdoor.txt from HEAD")
	}
}

// runGit runs the test's own git in dir with env added.
func runGit(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if args[0] == "hash-object" {
		cmd.Stdin = strings.NewReader("planted\n")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TB13: a fetch or push runs with an object store of its own: git writes
// its objects there, reading the checkout's only as an alternate, and
// review-loop copies what a fetch brought into the checkout afterwards.
func TestRule_TB13_TheNetworkGitHasAPrivateObjectStore(t *testing.T) {
	t.Parallel()
	tr := gittest.New(t, map[string]string{"a.go": "package a\n"})
	r := &Runner{Dir: tr.Dir}
	common, err := r.commonDir(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.newNetRepo(context.Background(), common)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	out, err := n.run(context.Background(), r, Target{}, "", "rev-parse", "--git-path", "objects")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out); got != n.private || strings.HasPrefix(got, common) {
		t.Errorf("the network git writes objects to %s, want its own %s", got, n.private)
	}
	// It still reads the checkout's objects.
	if _, err := n.run(context.Background(), r, Target{}, "", "cat-file", "-e", tr.Head(t)); err != nil {
		t.Errorf("the network git cannot read the checkout's objects: %v", err)
	}
	// What it wrote is taken into the checkout.
	if err := os.WriteFile(filepath.Join(n.private, "pack", "pack-x.keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := n.adopt(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(common, "objects", "pack", "pack-x.keep")); err != nil {
		t.Errorf("adopt left the operation's pack out of the checkout: %v", err)
	}
}
