package ghfake_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// gitFixture is a fake with one repository octo/demo, an open PR #1 from
// branch feature, a write token and a read-only token.
type gitFixture struct {
	f      *ghfake.Fake
	number int
}

const (
	writeToken = "ghs_write"
	readToken  = "ghs_read"
)

func newGitFixture(t *testing.T, tokens bool) gitFixture {
	t.Helper()
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	if err := f.AddRepo("octo", "demo", "main"); err != nil {
		t.Fatal(err)
	}
	n, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "feature", Files: map[string]string{"main.go": "package main\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if tokens {
		f.AddToken(writeToken, ghfake.Identity{Login: "octo"})
		f.AddToken(readToken, ghfake.Identity{Login: "github-actions", Bot: true, ReadOnly: true})
	}
	return gitFixture{f: f, number: n}
}

// gitEnv authenticates the way review-loop does: the header
// "AUTHORIZATION: basic base64(x-access-token:TOKEN)" in
// http.<server>/.extraheader, given through GIT_CONFIG_COUNT so it never
// lands in a config file. An empty token sends no header.
func gitEnv(server, token string) []string {
	env := append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	if token == "" {
		return env
	}
	h := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	return append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http."+server+"/.extraheader", "GIT_CONFIG_VALUE_0="+h)
}

func runGit(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGit(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := runGit(t, dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

// shallowFetch makes a new work tree holding branch at depth 1, as
// review-loop's own clone does.
func shallowFetch(t *testing.T, url string, env []string, branch string) (string, string, error) {
	t.Helper()
	dir := t.TempDir()
	mustGit(t, dir, env, "init", "-q")
	out, err := runGit(t, dir, env, "fetch", "--depth=1", url, "refs/heads/"+branch)
	return dir, out, err
}

func TestGitHTTP_ShallowFetchOfPRHeadWithToken(t *testing.T) {
	fx := newGitFixture(t, true)
	env := gitEnv(fx.f.URL(), writeToken)
	for _, url := range []string{fx.f.HTTPCloneURL("octo", "demo"), fx.f.URL() + "/octo/demo"} {
		dir, out, err := shallowFetch(t, url, env, "feature")
		if err != nil {
			t.Fatalf("fetch %s: %v\n%s", url, err, out)
		}
		if got, want := mustGit(t, dir, env, "rev-parse", "FETCH_HEAD"), fx.f.HeadSHA("octo", "demo", fx.number); got != want {
			t.Fatalf("FETCH_HEAD = %s, want the PR head %s", got, want)
		}
		if got := mustGit(t, dir, env, "rev-parse", "--is-shallow-repository"); got != "true" {
			t.Fatalf("--depth=1 fetch is not shallow: %s", got)
		}
	}
	// A read-only token fetches too.
	if _, out, err := shallowFetch(t, fx.f.HTTPCloneURL("octo", "demo"), gitEnv(fx.f.URL(), readToken), "feature"); err != nil {
		t.Fatalf("read-only fetch: %v\n%s", err, out)
	}
}

func TestGitHTTP_FetchWithoutOrWithUnknownTokenIsRefused(t *testing.T) {
	fx := newGitFixture(t, true)
	for name, tok := range map[string]string{"no token": "", "unknown token": "ghs_unknown"} {
		fx.f.ResetGitRequests()
		_, out, err := shallowFetch(t, fx.f.HTTPCloneURL("octo", "demo"), gitEnv(fx.f.URL(), tok), "feature")
		if err == nil {
			t.Fatalf("%s: fetch succeeded:\n%s", name, out)
		}
		reqs := fx.f.GitRequests()
		if len(reqs) == 0 || reqs[0].Status != http.StatusUnauthorized || reqs[0].Service != "git-upload-pack" {
			t.Fatalf("%s: git requests %+v, want a 401 for git-upload-pack", name, reqs)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, fx.f.HTTPCloneURL("octo", "demo")+"/info/refs?service=git-upload-pack", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Basic realm="GitHub"` {
		t.Fatalf("anonymous info/refs: %d %q, want 401 with Basic realm=\"GitHub\"", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestGitHTTP_AnonymousWhenNoTokenIsRegistered(t *testing.T) {
	fx := newGitFixture(t, false)
	if _, out, err := shallowFetch(t, fx.f.HTTPCloneURL("octo", "demo"), gitEnv(fx.f.URL(), ""), "feature"); err != nil {
		t.Fatalf("anonymous fetch without registered tokens: %v\n%s", err, out)
	}
}

func TestGitHTTP_ProtocolV2(t *testing.T) {
	fx := newGitFixture(t, true)
	req, _ := http.NewRequest(http.MethodGet, fx.f.HTTPCloneURL("octo", "demo")+"/info/refs?service=git-upload-pack", nil)
	req.SetBasicAuth("x-access-token", writeToken)
	req.Header.Set("Git-Protocol", "version=2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("version 2")) {
		t.Fatalf("info/refs with Git-Protocol: version=2: %d\n%s", resp.StatusCode, body)
	}
}

// pushFixture fetches the PR head and commits one file on top of it.
func pushFixture(t *testing.T, fx gitFixture, token string) (string, []string, string) {
	t.Helper()
	env := gitEnv(fx.f.URL(), token)
	dir, out, err := shallowFetch(t, fx.f.HTTPCloneURL("octo", "demo"), gitEnv(fx.f.URL(), writeToken), "feature")
	if err != nil {
		t.Fatalf("fetch: %v\n%s", err, out)
	}
	mustGit(t, dir, env, "checkout", "-q", "FETCH_HEAD")
	if err := os.WriteFile(filepath.Join(dir, "fix.go"), []byte("package main\n// fixed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, dir, env, "add", "fix.go")
	mustGit(t, dir, env, "commit", "-q", "-m", "fix")
	return dir, env, mustGit(t, dir, env, "rev-parse", "HEAD")
}

func TestGitHTTP_PushMovesPRHead(t *testing.T) {
	fx := newGitFixture(t, true)
	before := fx.f.HeadSHA("octo", "demo", fx.number)
	var mu sync.Mutex
	var events []ghfake.PushEvent
	fx.f.OnPush(func(ev ghfake.PushEvent) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev)
	})
	dir, env, sha := pushFixture(t, fx, writeToken)
	fx.f.ResetRequests()
	fx.f.ResetGitRequests()
	if out, err := runGit(t, dir, env, "push", fx.f.HTTPCloneURL("octo", "demo"), "HEAD:refs/heads/feature"); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	mu.Lock()
	got := append([]ghfake.PushEvent(nil), events...)
	mu.Unlock()
	want := ghfake.PushEvent{Owner: "octo", Repo: "demo", Number: fx.number, Branch: "feature", Before: before, After: sha}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("push events right after the push = %+v, want [%+v]", got, want)
	}
	if h := fx.f.HeadSHA("octo", "demo", fx.number); h != sha {
		t.Fatalf("HeadSHA = %s, want the pushed %s", h, sha)
	}
	if n := len(fx.f.Requests()); n != 0 {
		t.Fatalf("git traffic in Requests(): %+v", fx.f.Requests())
	}
	var services []string
	for _, r := range fx.f.GitRequests() {
		if r.Login != "octo" || r.Status != http.StatusOK {
			t.Errorf("git request %+v, want login octo, status 200", r)
		}
		services = append(services, r.Method+" "+r.Service)
	}
	if strings.Join(services, ",") != "GET git-receive-pack,POST git-receive-pack" {
		t.Fatalf("git requests %v, want the receive-pack advertisement and the push", services)
	}
}

func TestGitHTTP_PushToProtectedBranchGH006(t *testing.T) {
	fx := newGitFixture(t, true)
	dir, env, _ := pushFixture(t, fx, writeToken)
	// Forced: the shallow clone cannot tell the push is a fast-forward;
	// the protection refuses it either way.
	out, err := runGit(t, dir, env, "push", "--force", fx.f.HTTPCloneURL("octo", "demo"), "HEAD:refs/heads/main")
	if err == nil || !strings.Contains(out, "GH006: Protected branch update failed for refs/heads/main.") {
		t.Fatalf("push to protected main: err %v, want GH006 in git's output:\n%s", err, out)
	}
}

func TestGitHTTP_RejectPushesAppliesOverHTTP(t *testing.T) {
	fx := newGitFixture(t, true)
	dir, env, _ := pushFixture(t, fx, writeToken)
	before := fx.f.HeadSHA("octo", "demo", fx.number)
	if err := fx.f.RejectPushes("octo", "demo", true); err != nil {
		t.Fatal(err)
	}
	out, err := runGit(t, dir, env, "push", fx.f.HTTPCloneURL("octo", "demo"), "HEAD:refs/heads/feature")
	if err == nil || !strings.Contains(out, "push rejected (injected fault)") {
		t.Fatalf("push under RejectPushes: err %v\n%s", err, out)
	}
	if h := fx.f.HeadSHA("octo", "demo", fx.number); h != before {
		t.Fatalf("HeadSHA moved to %s after a rejected push", h)
	}
}

func TestGitHTTP_PushWithReadOnlyTokenIs403(t *testing.T) {
	fx := newGitFixture(t, true)
	dir, env, _ := pushFixture(t, fx, readToken)
	before := fx.f.HeadSHA("octo", "demo", fx.number)
	fx.f.ResetGitRequests()
	out, err := runGit(t, dir, env, "push", fx.f.HTTPCloneURL("octo", "demo"), "HEAD:refs/heads/feature")
	if err == nil || !strings.Contains(out, "Permission to octo/demo.git denied to github-actions[bot].") || !strings.Contains(out, "403") {
		t.Fatalf("read-only push: err %v, want 403 and GitHub's permission text:\n%s", err, out)
	}
	if h := fx.f.HeadSHA("octo", "demo", fx.number); h != before {
		t.Fatalf("HeadSHA moved to %s after a refused push", h)
	}
	reqs := fx.f.GitRequests()
	if len(reqs) != 1 || reqs[0].Status != http.StatusForbidden || reqs[0].Service != "git-receive-pack" || reqs[0].Login != "github-actions" {
		t.Fatalf("git requests %+v, want one 403 receive-pack by github-actions", reqs)
	}
}

func TestGitHTTP_UnknownRepositoryKeepsRESTBehaviour(t *testing.T) {
	fx := newGitFixture(t, true)
	req, _ := http.NewRequest(http.MethodGet, fx.f.URL()+"/octo/nope.git/info/refs?service=git-upload-pack", nil)
	req.Header.Set("Authorization", "token "+writeToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(fx.f.GitRequests()) != 0 || len(fx.f.Requests()) != 1 {
		t.Fatalf("unknown repository: %d, git log %+v, API log %+v; want a REST 404 in the API log", resp.StatusCode, fx.f.GitRequests(), fx.f.Requests())
	}
}
