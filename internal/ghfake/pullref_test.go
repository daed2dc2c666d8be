package ghfake_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// GitHub keeps every pull request's head in the base repository as
// refs/pull/<N>/head, advertised to a fetch, and moves it on each push to
// the head branch, a fork's included (docs: "Checking out pull requests
// locally"). It is how a fork PR's head is fetched from the base
// repository.
func TestGitHTTP_PullHeadRefIsAdvertisedAndFollowsPushes(t *testing.T) {
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	if err := f.AddRepo("octo", "demo", "main"); err != nil {
		t.Fatal(err)
	}
	f.AddToken(writeToken, ghfake.Identity{Login: "octo"})
	f.AddUser("contributor", 2002, false)
	own, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "feature", Files: map[string]string{"a.go": "package a\n"}})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "patch-1", Author: "contributor", Fork: true,
		Files: map[string]string{"b.go": "package b\n"}})
	if err != nil {
		t.Fatal(err)
	}
	env := gitEnv(f.URL(), writeToken)
	url := f.HTTPCloneURL("octo", "demo")
	advertised := func() map[string]string {
		refs := map[string]string{}
		for _, l := range strings.Split(mustGit(t, "", env, "ls-remote", url, "refs/pull/*"), "\n") {
			if sha, ref, ok := strings.Cut(l, "\t"); ok {
				refs[ref] = sha
			}
		}
		return refs
	}
	refs := advertised()
	for _, n := range []int{own, fork} {
		ref := "refs/pull/" + itoa(n) + "/head"
		if got, want := refs[ref], f.HeadSHA("octo", "demo", n); got != want {
			t.Errorf("%s advertised at %q, want the PR head %s (all refs/pull: %v)", ref, got, want, refs)
		}
	}
	// A push to the fork's branch moves the base repository's ref.
	moved, err := f.PushCommit("octo", "demo", "patch-1", map[string]string{"b.go": "package b\n\nvar X = 1\n"}, "more")
	if err != nil {
		t.Fatal(err)
	}
	if got := advertised()["refs/pull/"+itoa(fork)+"/head"]; got != moved {
		t.Errorf("after a push to the fork branch refs/pull/%d/head = %q, want %s", fork, got, moved)
	}
	// The fetch a fork PR's checkout makes.
	dir := t.TempDir()
	mustGit(t, dir, env, "init", "-q")
	mustGit(t, dir, env, "fetch", "--quiet", url, "pull/"+itoa(fork)+"/head")
	if got := mustGit(t, dir, env, "rev-parse", "FETCH_HEAD"); got != moved {
		t.Errorf("fetch of pull/%d/head gave %s, want %s", fork, got, moved)
	}
	// The fork's branch is the fork's: the base repository neither
	// advertises it nor takes a push to it; the PR's own branch is there.
	heads := mustGit(t, "", env, "ls-remote", "--heads", url)
	if strings.Contains(heads, "refs/heads/patch-1") || !strings.Contains(heads, "refs/heads/feature") {
		t.Errorf("the base repository advertises heads:\n%s\nwant feature and not the fork's patch-1", heads)
	}
	// refs/pull/* are GitHub's: a push to one is refused as GitHub does.
	out, err := runGit(t, dir, env, "push", url, "FETCH_HEAD:refs/pull/"+itoa(own)+"/head")
	if err == nil || !strings.Contains(out, "deny updating a hidden ref") {
		t.Errorf("a push to refs/pull/%d/head: %v\n%s\nwant it refused (deny updating a hidden ref)", own, err, out)
	}
	if got := f.HeadSHA("octo", "demo", own); got == moved {
		t.Errorf("a push to refs/pull/%d/head moved the PR", own)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
