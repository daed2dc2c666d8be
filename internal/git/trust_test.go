package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/git/gittest"
)

// commitChange makes one commit in the clone through r, ready to push.
func commitChange(t *testing.T, tr *gittest.Repo, r *Repo) string {
	t.Helper()
	tr.Write(t, map[string]string{"README.md": "changed\n"})
	sha, err := r.Commit(context.Background(), CommitRequest{Files: []string{"README.md"}, Message: "fix(review): address review 1 (PR #1)\n"})
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// TB2: an insteadOf line added to .git/config after the checkout (it would
// send the push, and its credential, elsewhere) refuses the push; so do the
// other keys that run programs or redirect credentials, and a new hook.
func TestRule_TB2_GitConfigOrHooksGainedSinceTheCheckoutRefusePush(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		plant func(t *testing.T, tr *gittest.Repo, elsewhere string)
		want  string
	}{
		{"insteadOf", func(t *testing.T, tr *gittest.Repo, elsewhere string) {
			tr.Git(t, "config", "url."+elsewhere+".insteadOf", tr.Remote)
		}, "insteadof"},
		{"pushInsteadOf", func(t *testing.T, tr *gittest.Repo, elsewhere string) {
			tr.Git(t, "config", "url."+elsewhere+".pushInsteadOf", tr.Remote)
		}, "pushinsteadof"},
		{"credential helper", func(t *testing.T, tr *gittest.Repo, _ string) {
			tr.Git(t, "config", "credential.helper", "!sh -c 'cat > /tmp/x'")
		}, "credential.helper"},
		{"include", func(t *testing.T, tr *gittest.Repo, _ string) {
			tr.Git(t, "config", "include.path", "/tmp/evil.cfg")
		}, "include.path"},
		{"sshCommand", func(t *testing.T, tr *gittest.Repo, _ string) {
			tr.Git(t, "config", "core.sshCommand", "evil")
		}, "core.sshcommand"},
		{"a new hook", func(t *testing.T, tr *gittest.Repo, _ string) {
			if err := os.WriteFile(filepath.Join(tr.Dir, ".git", "hooks", "reference-transaction"), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "reference-transaction"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, r := newRepo(t)
			elsewhere := filepath.Join(t.TempDir(), "elsewhere.git")
			tr.Git(t, "init", "--quiet", "--bare", elsewhere)
			base, err := r.Git.Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			r.Baseline = base
			tr.Git(t, "checkout", "-B", "feature", "origin/feature") // git's own branch.* tracking is not an addition
			commitChange(t, tr, r)
			tc.plant(t, tr, elsewhere)
			err = r.CheckUnchanged(context.Background())
			var refused *RefusedError
			if !errors.As(err, &refused) || refused.Rule != "TB2" || !strings.Contains(strings.ToLower(err.Error()), tc.want) {
				t.Fatalf("CheckUnchanged: got %v, want a TB2 refusal naming %q", err, tc.want)
			}
		})
	}
}

// TB2, TB7: the credential is sent only to the GitHub host; a remote on
// any other host, scheme or with credentials of its own is refused before
// git runs with the token, and plain HTTP only to this machine.
func TestRule_TB2_TheCredentialIsScopedToTheGitHubHost(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	commitChange(t, tr, r)
	r.Git.ServerURL = "https://github.com"
	tr.Git(t, "remote", "set-url", "origin", "https://evil.example.com/octo/app.git")
	err := r.Git.FetchBranch(context.Background(), "feature", "ghs_scoped_token")
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Rule != "TB7" || !strings.Contains(err.Error(), "evil.example.com") {
		t.Fatalf("FetchBranch: got %v, want a TB7 refusal naming the host", err)
	}
	for _, tc := range []struct{ server, remote, want string }{
		{"https://github.com", "http://github.com/o/r.git", "not the GitHub server"},
		{"https://github.com", "https://u:p@github.com/o/r.git", "credentials of its own"},
		{"https://github.com", "ssh://git@github.com/o/r.git", "not the GitHub server"},
		{"https://github.com", "git@github.com:o/r.git", "not an https URL"},
		{"http://ghe.example.com", "http://ghe.example.com/o/r.git", "HTTPS only"},
	} {
		g := &Runner{ServerURL: tc.server}
		if _, err := g.target(tc.remote, "tok"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("target(%s, server %s) = %v, want %q", tc.remote, tc.server, err, tc.want)
		}
	}
	g := &Runner{ServerURL: "http://127.0.0.1:8080"}
	if got, err := g.target("http://127.0.0.1:8080/o/r.git", "tok"); err != nil || !got.Credential {
		t.Errorf("a loopback test server: %+v, %v", got, err)
	}
	if got, err := g.target("/srv/r.git", "tok"); err != nil || got.Credential {
		t.Errorf("a local remote must get no credential: %+v, %v", got, err)
	}
}

// TB1: credentials a checkout persisted in .git/config — an http
// extraheader, user information in the remote URL — are removed.
func TestRule_TB1_PersistedCheckoutCredentialsAreRemoved(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	tr.Git(t, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic c2VjcmV0")
	tr.Git(t, "remote", "set-url", "--push", "origin", "https://x-access-token:ghs_in_url@github.com/o/r.git")
	dropped, err := r.Git.DropPersistedCredentials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 2 {
		t.Errorf("dropped %v, want the extraheader and the push URL", dropped)
	}
	b, err := os.ReadFile(filepath.Join(tr.Dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "c2VjcmV0") || strings.Contains(string(b), "ghs_in_url") {
		t.Errorf("a credential is still in .git/config:\n%s", b)
	}
	if !strings.Contains(string(b), "pushurl = https://github.com/o/r.git") {
		t.Errorf("the push URL was not kept without its credential:\n%s", b)
	}
}
