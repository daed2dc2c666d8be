package ghfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/review-loop/review-loop/internal/ghfake"
)

func getREST(t *testing.T, f *ghfake.Fake, path, accept string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer ghs_read")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// validate checks one answer of the fake against GitHub's description of
// the operation at tpl.
func validate(t *testing.T, tpl, path string, status int, body []byte) {
	t.Helper()
	router, err := gorillamux.NewRouter(describedOperation(t, tpl))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "https://api.github.com"+path, nil)
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Fatal(err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status,
		Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}},
		Body:   io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s: the fake's %d answer does not validate: %v\n%.600s", path, status, err, body)
	}
}

// TestRule_CV6_PullDiffAnswersLikeGitHub: the fake serves a PR as the
// diff media type byte for byte as git diffs it from the merge base (what
// CV6 counts the characters of), and refuses with GitHub's 406 too_large
// over 300 files or 20,000 diff lines instead of truncating; as JSON it
// answers pulls/get as GitHub describes it.
func TestRule_CV6_PullDiffAnswersLikeGitHub(t *testing.T) {
	f := contentsFixture(t)
	status, hdr, body := getREST(t, f, "/repos/octo/demo/pulls/1", "application/vnd.github.diff")
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/vnd.github.diff") {
		t.Fatalf("diff: %d %s: %s", status, hdr.Get("Content-Type"), body)
	}
	bare := strings.TrimPrefix(f.CloneURL("octo", "demo"), "file://")
	want, err := exec.Command("git", "--git-dir", bare, "diff", "main...feature").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) || !bytes.Contains(body, []byte("+max_cycles: 1\n")) {
		t.Fatalf("diff =\n%s\nwant git's\n%s", body, want)
	}
	status, _, body = getREST(t, f, "/repos/octo/demo/pulls/1", "application/vnd.github+json")
	var pr struct {
		Number       int `json:"number"`
		ChangedFiles int `json:"changed_files"`
	}
	if err := json.Unmarshal(body, &pr); status != 200 || err != nil || pr.Number != 1 || pr.ChangedFiles != 1 {
		t.Fatalf("json: %d %v %+v", status, err, pr)
	}
	validate(t, "/repos/{owner}/{repo}/pulls/{pull_number}", "/repos/octo/demo/pulls/1", status, body)

	// Over 20,000 diff lines (context and headers count): refused.
	long := strings.Repeat("x\n", ghfake.MaxDiffLines)
	if _, err := f.PushCommit("octo", "demo", "feature", map[string]string{"long.txt": long}, "long"); err != nil {
		t.Fatal(err)
	}
	status, _, body = getREST(t, f, "/repos/octo/demo/pulls/1", "application/vnd.github.diff")
	if status != 406 || !bytes.Contains(body, []byte(`"code":"too_large"`)) || !bytes.Contains(body, []byte("maximum number of lines (20000)")) {
		t.Fatalf("a diff of over 20,000 lines: %d %s", status, body)
	}
	validate(t, "/repos/{owner}/{repo}/pulls/{pull_number}", "/repos/octo/demo/pulls/1", status, body)
	// Over 300 files: refused, files named first.
	many := map[string]string{"long.txt": "x\n"}
	for i := range ghfake.MaxDiffFiles + 1 {
		many[fmt.Sprintf("f/%03d.txt", i)] = "y\n"
	}
	if _, err := f.PushCommit("octo", "demo", "feature", many, "many"); err != nil {
		t.Fatal(err)
	}
	status, _, body = getREST(t, f, "/repos/octo/demo/pulls/1", "application/vnd.github.diff")
	if status != 406 || !bytes.Contains(body, []byte("maximum number of files (300)")) {
		t.Fatalf("a diff of 302 files: %d %s", status, body)
	}
	if status, _, _ = getREST(t, f, "/repos/octo/demo/pulls/9", "application/vnd.github.diff"); status != 404 {
		t.Fatalf("unknown PR: %d, want 404", status)
	}
}

// TestRule_CV1_CommitAnswersLikeGitHub: GET a commit lists the files it
// changed against its parent with their patches (an engine fixer's own
// changed lines, CV1/CV5), attributes it by its noreply address, and
// validates against repos/get-commit.
func TestRule_CV1_CommitAnswersLikeGitHub(t *testing.T) {
	f := contentsFixture(t)
	auto, err := f.PushCommitAs("octo", "demo", "feature", map[string]string{"calc.go": "package calc\n\nfunc A() int { return 2 }\n"},
		"fix: A returns 2", "Cursor Agent <206951365+cursor[bot]@users.noreply.github.com>")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.PushCommit("octo", "demo", "feature", map[string]string{"other.go": "package calc\n"}, "human"); err != nil {
		t.Fatal(err)
	}
	path := "/repos/octo/demo/commits/" + auto
	status, _, body := getREST(t, f, path, "application/vnd.github+json")
	var c struct {
		SHA    string `json:"sha"`
		Author *struct {
			Login string `json:"login"`
		} `json:"author"`
		Files []struct {
			Filename string `json:"filename"`
			Patch    string `json:"patch"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &c); status != 200 || err != nil {
		t.Fatalf("%d %v %s", status, err, body)
	}
	if c.SHA != auto || c.Author == nil || c.Author.Login != "cursor[bot]" || len(c.Files) != 1 || c.Files[0].Filename != "calc.go" ||
		!strings.HasPrefix(c.Files[0].Patch, "@@ -0,0 +1,3 @@") {
		t.Fatalf("commit = %+v", c)
	}
	validate(t, "/repos/{owner}/{repo}/commits/{ref}", path, status, body)
	status, _, body = getREST(t, f, "/repos/octo/demo/commits/"+strings.Repeat("0", 40), "application/vnd.github+json")
	if status != 422 {
		t.Fatalf("unknown commit: %d %s", status, body)
	}
	validate(t, "/repos/{owner}/{repo}/commits/{ref}", "/repos/octo/demo/commits/"+strings.Repeat("0", 40), status, body)
}
