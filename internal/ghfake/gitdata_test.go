package ghfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// gitDataFixture is a repository with a PR on branch feature, a bot token
// that may write (ghs_bot), a read-only one (ghs_read) and a user's token
// (ghp_user).
func gitDataFixture(t *testing.T) *ghfake.Fake {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	if err := f.AddRepo("octo", "demo", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "feature", Files: map[string]string{"a/b.txt": "one\n", "run.sh": "echo\n"}}); err != nil {
		t.Fatal(err)
	}
	f.AddToken("ghs_bot", ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	f.AddToken("ghs_read", ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true, ReadOnly: true})
	f.AddUser("octocat", 583231, false)
	f.AddToken("ghp_user", ghfake.Identity{Login: "octocat", ID: 583231})
	return f
}

// call sends one API request and decodes the answer into a map.
func call(t *testing.T, f *ghfake.Fake, token, method, path string, body any) (int, map[string]any, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.URL()+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, raw
}

// fixCommit makes a commit on the PR head through the API, as
// review-loop's push does, and returns its answer.
func fixCommit(t *testing.T, f *ghfake.Fake, token string, author map[string]any) (head, sha string, commit map[string]any) {
	t.Helper()
	head = f.HeadSHA("octo", "demo", 1)
	st, c, raw := call(t, f, token, "GET", "/repos/octo/demo/git/commits/"+head, nil)
	if st != 200 {
		t.Fatalf("get commit: %d %s", st, raw)
	}
	baseTree := c["tree"].(map[string]any)["sha"].(string)
	st, blob, raw := call(t, f, token, "POST", "/repos/octo/demo/git/blobs", map[string]any{"content": "dHdvCg==", "encoding": "base64"})
	if st != 201 {
		t.Fatalf("create blob: %d %s", st, raw)
	}
	st, tree, raw := call(t, f, token, "POST", "/repos/octo/demo/git/trees", map[string]any{"base_tree": baseTree,
		"tree": []any{map[string]any{"path": "a/b.txt", "mode": "100644", "type": "blob", "sha": blob["sha"]}}})
	if st != 201 {
		t.Fatalf("create tree: %d %s", st, raw)
	}
	req := map[string]any{"message": "fix: two", "tree": tree["sha"], "parents": []string{head}}
	if author != nil {
		req["author"] = author
	}
	st, commit, raw = call(t, f, token, "POST", "/repos/octo/demo/git/commits", req)
	if st != 201 {
		t.Fatalf("create commit: %d %s", st, raw)
	}
	return head, commit["sha"].(string), commit
}

// TB13: the fake's Git database builds a commit as git does: the new tree
// is the base tree with the one path changed, and the branch moves only by
// fast-forward, so a commit made on an old head is refused.
func TestRule_TB13_FakeGitDatabaseHasGitsSemantics(t *testing.T) {
	t.Parallel()
	f := gitDataFixture(t)
	head, sha, commit := fixCommit(t, f, "ghs_bot", nil)
	if p := commit["parents"].([]any); len(p) != 1 || p[0].(map[string]any)["sha"] != head {
		t.Fatalf("parents = %v, want [%s]", p, head)
	}
	st, tree, raw := call(t, f, "ghs_bot", "GET", "/repos/octo/demo/git/trees/"+sha+"?recursive=1", nil)
	if st != 200 {
		t.Fatalf("get tree: %d %s", st, raw)
	}
	got := map[string]string{}
	for _, e := range tree["tree"].([]any) {
		m := e.(map[string]any)
		got[m["path"].(string)] = m["type"].(string)
	}
	for _, p := range []string{"README.md", "a", "a/b.txt", "run.sh"} {
		if got[p] == "" {
			t.Errorf("the new tree lost %s of the base tree: %v", p, got)
		}
	}
	if st, _, raw := call(t, f, "ghs_read", "PATCH", "/repos/octo/demo/git/refs/heads/feature", map[string]any{"sha": sha}); st != 403 {
		t.Errorf("a read-only token moved the branch: %d %s", st, raw)
	}
	if st, ref, raw := call(t, f, "ghs_bot", "PATCH", "/repos/octo/demo/git/refs/heads/feature", map[string]any{"sha": sha, "force": false}); st != 200 || ref["object"].(map[string]any)["sha"] != sha {
		t.Fatalf("update ref: %d %s", st, raw)
	}
	if got := f.HeadSHA("octo", "demo", 1); got != sha {
		t.Fatalf("the PR head is %s, want %s", got, sha)
	}
	// A second fix built on the old head is not a fast-forward.
	_, stale, _ := fixCommitOn(t, f, head)
	st, body, raw := call(t, f, "ghs_bot", "PATCH", "/repos/octo/demo/git/refs/heads/feature", map[string]any{"sha": stale, "force": false})
	if st != 422 || !strings.Contains(body["message"].(string), "not a fast forward") {
		t.Errorf("a non-fast-forward update: %d %s", st, raw)
	}
	if got := f.HeadSHA("octo", "demo", 1); got != sha {
		t.Errorf("the refused update moved the head to %s", got)
	}
}

// fixCommitOn is a commit with parent on the PR's tree.
func fixCommitOn(t *testing.T, f *ghfake.Fake, parent string) (string, string, map[string]any) {
	t.Helper()
	_, c, _ := call(t, f, "ghs_bot", "GET", "/repos/octo/demo/git/commits/"+parent, nil)
	st, commit, raw := call(t, f, "ghs_bot", "POST", "/repos/octo/demo/git/commits", map[string]any{"message": "other", "tree": c["tree"].(map[string]any)["sha"], "parents": []string{parent}})
	if st != 201 {
		t.Fatalf("create commit: %d %s", st, raw)
	}
	return parent, commit["sha"].(string), commit
}

// TB13: on a branch whose ruleset requires signed commits, a bot's API
// commit with no author of its own is verified and accepted; the same
// commit with a custom author is unsigned and refused, as is any push of
// a commit over git.
func TestRule_TB13_RequiredSignaturesAcceptAnAPICommit(t *testing.T) {
	t.Parallel()
	f := gitDataFixture(t)
	if _, err := f.AddRuleset("octo", "demo", ghfake.Ruleset{Name: "signed", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}}); err != nil {
		t.Fatal(err)
	}
	_, unsigned, c := fixCommit(t, f, "ghs_bot", map[string]any{"name": "review-loop", "email": "rl@example.invalid"})
	if v := c["verification"].(map[string]any); v["verified"] != false || v["reason"] != "unsigned" {
		t.Errorf("a commit with a custom author: verification %v, want unsigned", v)
	}
	st, body, raw := call(t, f, "ghs_bot", "PATCH", "/repos/octo/demo/git/refs/heads/feature", map[string]any{"sha": unsigned})
	if st != 422 || !strings.Contains(body["message"].(string), "Commits must have verified signatures") {
		t.Errorf("an unsigned commit on a branch requiring signatures: %d %s", st, raw)
	}
	_, userSHA, uc := fixCommit(t, f, "ghp_user", nil)
	if v := uc["verification"].(map[string]any); v["verified"] != false {
		t.Errorf("a user's API commit: verification %v, want unsigned", v)
	}
	_ = userSHA
	_, signed, c := fixCommit(t, f, "ghs_bot", nil)
	if v := c["verification"].(map[string]any); v["verified"] != true || v["reason"] != "valid" {
		t.Fatalf("a bot's API commit: verification %v, want verified", v)
	}
	if st, _, raw := call(t, f, "ghs_bot", "PATCH", "/repos/octo/demo/git/refs/heads/feature", map[string]any{"sha": signed}); st != 200 {
		t.Fatalf("a verified commit on a branch requiring signatures: %d %s", st, raw)
	}
	if got := f.HeadSHA("octo", "demo", 1); got != signed {
		t.Errorf("the PR head is %s, want the signed fix %s", got, signed)
	}
	// The same tree pushed over git, as a commit git made: refused.
	dir := t.TempDir()
	u, _ := url.Parse(f.HTTPCloneURL("octo", "demo"))
	u.User = url.UserPassword("x-access-token", "ghs_bot")
	gitRun(t, dir, "clone", "--quiet", "--branch", "feature", u.String(), ".")
	gitRun(t, dir, "-c", "user.name=x", "-c", "user.email=x@example.invalid", "commit", "--quiet", "--allow-empty", "-m", "unsigned")
	cmd := exec.Command("git", "push", "--quiet", "origin", "HEAD:feature")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "GH013") {
		t.Errorf("a git push of an unsigned commit was not refused: %v\n%s", err, out)
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The fake's Git database answers (and review-loop's requests) validate
// against GitHub's OpenAPI description of each operation.
func TestGitDatabase_MatchesGitHubsDescription(t *testing.T) {
	f := gitDataFixture(t)
	head := f.HeadSHA("octo", "demo", 1)
	_, c, _ := call(t, f, "ghs_bot", "GET", "/repos/octo/demo/git/commits/"+head, nil)
	baseTree := c["tree"].(map[string]any)["sha"].(string)
	_, blob, _ := call(t, f, "ghs_bot", "POST", "/repos/octo/demo/git/blobs", map[string]any{"content": "two\n", "encoding": "utf-8"})
	treeReq := map[string]any{"base_tree": baseTree, "tree": []any{
		map[string]any{"path": "a/b.txt", "mode": "100644", "type": "blob", "sha": blob["sha"]},
		map[string]any{"path": "run.sh", "mode": "100755", "type": "blob", "content": "echo two\n"},
		map[string]any{"path": "gone.txt", "mode": "100644", "type": "blob", "sha": nil},
	}}
	_, tree, _ := call(t, f, "ghs_bot", "POST", "/repos/octo/demo/git/trees", treeReq)
	commitReq := map[string]any{"message": "fix", "tree": tree["sha"], "parents": []string{head}}
	_, commit, _ := call(t, f, "ghs_bot", "POST", "/repos/octo/demo/git/commits", commitReq)
	cases := []struct {
		tpl, method, path string
		body              any
		status            int
	}{
		{"/repos/{owner}/{repo}/git/blobs", "POST", "/repos/octo/demo/git/blobs", map[string]any{"content": "dHdvCg==", "encoding": "base64"}, 201},
		{"/repos/{owner}/{repo}/git/trees/{tree_sha}", "GET", "/repos/octo/demo/git/trees/" + baseTree, nil, 200},
		{"/repos/{owner}/{repo}/git/trees/{tree_sha}", "GET", "/repos/octo/demo/git/trees/" + strings.Repeat("0", 40), nil, 404},
		{"/repos/{owner}/{repo}/git/trees", "POST", "/repos/octo/demo/git/trees", treeReq, 201},
		{"/repos/{owner}/{repo}/git/commits/{commit_sha}", "GET", "/repos/octo/demo/git/commits/" + head, nil, 200},
		{"/repos/{owner}/{repo}/git/commits", "POST", "/repos/octo/demo/git/commits", commitReq, 201},
		{"/repos/{owner}/{repo}/git/commits", "POST", "/repos/octo/demo/git/commits", map[string]any{"message": "x", "tree": baseTree, "parents": []string{head},
			"author": map[string]any{"name": "n", "email": "n@example.invalid", "date": "2026-12-06T12:00:00Z"}}, 201},
		{"/repos/{owner}/{repo}/git/ref/{ref}", "GET", "/repos/octo/demo/git/ref/heads/feature", nil, 200},
		{"/repos/{owner}/{repo}/git/refs/{ref}", "PATCH", "/repos/octo/demo/git/refs/heads/feature", map[string]any{"sha": commit["sha"], "force": false}, 200},
		{"/repos/{owner}/{repo}/git/refs/{ref}", "PATCH", "/repos/octo/demo/git/refs/heads/feature", map[string]any{"sha": head, "force": false}, 422},
	}
	for _, c := range cases {
		d := describedOperation(t, c.tpl)
		router, err := gorillamux.NewRouter(d)
		if err != nil {
			t.Fatal(err)
		}
		status, _, body := call(t, f, "ghs_bot", c.method, c.path, c.body)
		if status != c.status {
			t.Fatalf("%s %s: status %d, want %d: %s", c.method, c.path, status, c.status, body)
		}
		var reqBody []byte
		if c.body != nil {
			reqBody, _ = json.Marshal(c.body)
		}
		// {ref} is one router segment though it holds "/": route on a
		// stand-in, validate with the real value.
		routed := strings.Replace(c.path, "heads/feature", "heads", 1)
		req, _ := http.NewRequest(c.method, "https://api.github.com"+routed, bytes.NewReader(reqBody))
		if c.body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		if _, ok := params["ref"]; ok {
			params["ref"] = "heads/feature"
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("%s %s: the request does not validate: %v", c.method, c.path, err)
		}
		hdr := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: hdr,
			Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("%s %s: the fake's %d answer does not validate: %v\n%s", c.method, c.path, status, err, body)
		}
	}
}
