package git

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// httpRepo is a checkout of a PR branch of the fake GitHub whose origin is
// the fake's smart-HTTP URL, which needs token.
func httpRepo(t *testing.T, token string) (*ghfake.Fake, *Repo, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	fake := ghfake.New(ghfake.Options{})
	t.Cleanup(fake.Close)
	fake.AddToken(token, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	if err := fake.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Files: map[string]string{"a.txt": "a\n"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gitT(t, "", "clone", "--quiet", "--branch", "feature", fake.CloneURL("octo", "app"), dir)
	gitT(t, dir, "remote", "set-url", "origin", fake.HTTPCloneURL("octo", "app"))
	r := &Repo{Git: &Runner{Dir: dir, ServerURL: fake.URL()}, Guard: Guard{HeadBranch: "feature", DefaultBranch: "main", ObservedHeadSHA: fake.HeadSHA("octo", "app", 1)}}
	base, err := r.Git.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.Baseline = base
	return fake, r, dir
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// leakForms are the shapes a token takes on the wire: itself and the
// Basic header git builds from it.
func leakForms(token string) []string {
	return []string{token, base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))}
}

// TB7: what a command writes for git outside the repository — a global
// ~/.gitconfig with a pushInsteadOf to a local decoy whose receivepack
// dumps its environment, an XDG config, and GIT_* variables in the
// environment review-loop inherited — is not read by review-loop's push:
// the commit reaches the fake GitHub and nothing reaches the decoy.
func TestRule_TB7_AFetchReadsNoGlobalConfigOrGitEnvironment(t *testing.T) {
	t.Parallel()
	const token = "ghs_tb7_global_config_token_11"
	fake, r, _ := httpRepo(t, token)
	sha, err := fake.PushCommit("octo", "app", "feature", map[string]string{"b.txt": "new\n"}, "moved on")
	if err != nil {
		t.Fatal(err)
	}

	evil := t.TempDir()
	decoy := filepath.Join(evil, "decoy.git")
	gitT(t, "", "init", "--quiet", "--bare", decoy)
	leak := filepath.Join(evil, "LEAK")
	cfg := "[url \"" + decoy + "\"]\n\tpushInsteadOf = " + fake.HTTPCloneURL("octo", "app") + "\n\tinsteadOf = " + fake.HTTPCloneURL("octo", "app") + "\n" +
		"[remote \"origin\"]\n\treceivepack = \"env > " + leak + "; git-receive-pack\"\n" +
		"[remote \"" + decoy + "\"]\n\treceivepack = \"env > " + leak + "; git-receive-pack\"\n"
	for _, f := range []string{filepath.Join(evil, ".gitconfig"), filepath.Join(evil, "xdg", "git", "config"), filepath.Join(evil, "global")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.Git.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + evil, "XDG_CONFIG_HOME=" + filepath.Join(evil, "xdg"),
		"GIT_CONFIG_GLOBAL=" + filepath.Join(evil, "global"),
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=url." + decoy + ".pushInsteadOf", "GIT_CONFIG_VALUE_0=" + fake.HTTPCloneURL("octo", "app"),
		"GIT_CONFIG_PARAMETERS='url." + decoy + ".pushinsteadof'='" + fake.HTTPCloneURL("octo", "app") + "'"}

	if err := r.Git.FetchBranch(context.Background(), "feature", token); err != nil {
		t.Fatalf("FetchBranch: %v", err)
	}
	if got := strings.TrimSpace(gitT(t, r.Git.Dir, "rev-parse", "refs/remotes/origin/feature")); got != sha {
		t.Errorf("fetched %s, want the GitHub server's %s", got, sha)
	}
	if b, err := os.ReadFile(leak); err == nil {
		t.Errorf("a planted program ran (token leaked: %v)", containsAny(string(b), leakForms(token)))
	}
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// TB7: while review-loop fetches and pushes with the token, no process on
// the machine shows it — not git, not git-remote-http, not the credential
// helper — in /proc/<pid>/environ or /proc/<pid>/cmdline. A poller reads
// every process's both files for as long as the fetch and push run.
func TestRule_TB7_NoProcessShowsTheCredentialInEnvironOrCmdline(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	t.Parallel()
	const token = "ghs_tb7_proc_poller_token_12"
	fake, r, _ := httpRepo(t, token)
	forms := leakForms(token)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	var found []string
	var scans atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			paths, _ := filepath.Glob("/proc/[0-9]*")
			for _, p := range paths {
				if p == "/proc/"+itoa(os.Getpid()) {
					continue // this test process holds the token in memory, by design
				}
				environ, _ := os.ReadFile(p + "/environ")
				if bytes.Contains(environ, []byte("GATEWAY_INTERFACE=CGI/1.1")) {
					continue // the fake GitHub's side of the wire: it receives the header
				}
				cmdline, _ := os.ReadFile(p + "/cmdline")
				for f, b := range map[string][]byte{"environ": environ, "cmdline": cmdline} {
					for _, form := range forms {
						if bytes.Contains(b, []byte(form)) {
							comm, _ := os.ReadFile(p + "/comm")
							mu.Lock()
							found = append(found, p+"/"+f+" ("+strings.TrimSpace(string(comm))+")")
							mu.Unlock()
						}
					}
				}
			}
			scans.Add(1)
		}
	}()
	ctx := context.Background()
	var errs []error
	for i := 0; i < 4; i++ {
		errs = append(errs, r.Git.FetchBranch(ctx, "feature", token))
	}
	stop.Store(true)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		slices.Sort(found)
		t.Errorf("the credential was visible to other processes:\n%s", strings.Join(slices.Compact(found), "\n"))
	}
	var authed int
	for _, q := range fake.GitRequests() {
		if q.Login != "" {
			authed++
		}
	}
	if authed == 0 {
		t.Errorf("no git request authenticated: the test proves nothing")
	}
	t.Logf("%d scans of /proc, %d authenticated git requests", scans.Load(), authed)
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n > 0 || i == len(b) {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// TB7: the rewriting check itself — a git directory whose config sends the
// URL elsewhere (insteadOf for a fetch, pushInsteadOf for a push) is
// refused.
func TestRule_TB7_AURLRewrittenElsewhereIsRefused(t *testing.T) {
	t.Parallel()
	gd := filepath.Join(t.TempDir(), "x.git")
	gitT(t, "", "init", "--quiet", "--bare", gd)
	g := &Runner{}
	const url = "https://github.com/octo/app.git"
	if err := g.checkResolved(context.Background(), gd, url); err != nil {
		t.Fatalf("a clean directory: %v", err)
	}
	gitT(t, "", "--git-dir", gd, "config", "url./tmp/decoy.pushInsteadOf", "https://github.com/")
	if err := g.checkResolved(context.Background(), gd, url); err != nil {
		t.Fatalf("pushInsteadOf does not apply to a fetch: %v", err)
	}
	var refused *RefusedError
	gitT(t, "", "--git-dir", gd, "config", "url./tmp/other.insteadOf", "https://github.com/")
	if err := g.checkResolved(context.Background(), gd, url); !errors.As(err, &refused) || refused.Rule != "TB7" || !strings.Contains(err.Error(), "/tmp/other") {
		t.Fatalf("insteadOf: %v, want a TB7 refusal", err)
	}
}

// TB7: an ignore or attributes file a command leaves in git's private home
// (it is the same user's directory) is not read: a new file the fix
// creates is still seen.
func TestRule_TB7_NoIgnoreOrAttributesFileFromTheHome(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	home, err := privateHome()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "xdg", "git")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ignore"), []byte("*.tb7-planted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tr.Write(t, map[string]string{"new.tb7-planted": "x\n"})
	files, err := r.Git.ChangedFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, "new.tb7-planted") {
		t.Fatalf("ChangedFiles = %q: the planted ignore file hid the new file", files)
	}
}
