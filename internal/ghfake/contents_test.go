package ghfake_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

const reviewLoopYML = "engines:\n  - copilot\n  - cursor\nmax_cycles: 5\n# a line long enough that its base64 wraps over more than one sixty-character line\n"

// contentsFixture has .github/review-loop.yml on main and a different one
// on branch feature (PR #1).
func contentsFixture(t *testing.T) *ghfake.Fake {
	t.Helper()
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	if err := f.AddRepo("octo", "demo", "main"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetProtected("octo", "demo", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.PushCommit("octo", "demo", "main", map[string]string{".github/review-loop.yml": reviewLoopYML, ".github/workflows/ci.yml": "on: push\n"}, "config"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreatePR("octo", "demo", ghfake.PROptions{Head: "feature", Files: map[string]string{".github/review-loop.yml": "max_cycles: 1\n"}}); err != nil {
		t.Fatal(err)
	}
	f.AddToken("ghs_read", ghfake.Identity{Login: "github-actions", Bot: true, ReadOnly: true})
	return f
}

func getContents(t *testing.T, f *ghfake.Fake, path, ref string) (int, []byte) {
	t.Helper()
	u := f.URL() + "/repos/octo/demo/contents/" + path
	if ref != "" {
		u += "?ref=" + ref
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer ghs_read")
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type contentFile struct {
	Type, Encoding, Content, Name, Path, SHA string
	Size                                     int
	URL                                      string `json:"url"`
	GitURL                                   string `json:"git_url"`
	HTMLURL                                  string `json:"html_url"`
	DownloadURL                              string `json:"download_url"`
	Links                                    struct {
		Self, Git, HTML string
	} `json:"_links"`
}

func decodeFile(t *testing.T, status int, body []byte) contentFile {
	t.Helper()
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", status, body)
	}
	var c contentFile
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatalf("file body: %v\n%s", err, body)
	}
	return c
}

func fileAt(t *testing.T, f *ghfake.Fake, path, ref string) contentFile {
	t.Helper()
	status, body := getContents(t, f, path, ref)
	return decodeFile(t, status, body)
}

func decodeContent(t *testing.T, c contentFile) string {
	t.Helper()
	if c.Type != "file" || c.Encoding != "base64" {
		t.Fatalf("type %q encoding %q, want file/base64", c.Type, c.Encoding)
	}
	for _, line := range strings.Split(strings.TrimSuffix(c.Content, "\n"), "\n") {
		if len(line) > 60 {
			t.Fatalf("base64 line of %d characters, GitHub wraps at 60: %q", len(line), c.Content)
		}
	}
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(c.Content, "\n", ""))
	if err != nil {
		t.Fatalf("content is not base64: %v", err)
	}
	return string(b)
}

func TestContents_FileAtDefaultBranch(t *testing.T) {
	f := contentsFixture(t)
	f.ResetRequests()
	c := fileAt(t, f, ".github/review-loop.yml", "")
	if got := decodeContent(t, c); got != reviewLoopYML {
		t.Fatalf("content = %q, want %q", got, reviewLoopYML)
	}
	if !strings.Contains(c.Content, "\n") || !strings.HasSuffix(c.Content, "\n") {
		t.Fatalf("content %q is not wrapped like GitHub's", c.Content)
	}
	if c.Name != "review-loop.yml" || c.Path != ".github/review-loop.yml" || c.Size != len(reviewLoopYML) {
		t.Fatalf("name %q path %q size %d", c.Name, c.Path, c.Size)
	}
	if c.URL == "" || c.GitURL == "" || c.HTMLURL == "" || c.DownloadURL == "" || c.Links.Self != c.URL || c.Links.Git != c.GitURL || c.Links.HTML != c.HTMLURL {
		t.Fatalf("links incomplete: %+v", c)
	}
	if reqs := f.Requests(); len(reqs) != 1 || reqs[0].Path != "/repos/octo/demo/contents/.github/review-loop.yml" || reqs[0].Status != http.StatusOK {
		t.Fatalf("request log %+v, want the one contents request", reqs)
	}
}

func TestContents_FileAtBranchAndSHA(t *testing.T) {
	f := contentsFixture(t)
	c := fileAt(t, f, ".github/review-loop.yml", "feature")
	if got := decodeContent(t, c); got != "max_cycles: 1\n" {
		t.Fatalf("content at feature = %q", got)
	}
	head := f.HeadSHA("octo", "demo", 1)
	byName := c.SHA
	c = fileAt(t, f, ".github/review-loop.yml", head)
	if got := decodeContent(t, c); got != "max_cycles: 1\n" || c.SHA != byName {
		t.Fatalf("content at %s = %q (blob %s, by branch %s)", head, got, c.SHA, byName)
	}
	main := fileAt(t, f, ".github/review-loop.yml", "main")
	if main.SHA == byName {
		t.Fatalf("main and feature answer the same blob %s", main.SHA)
	}
}

func TestContents_DirectoryListing(t *testing.T) {
	f := contentsFixture(t)
	status, body := getContents(t, f, ".github", "")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var entries []contentFile
	if err := json.Unmarshal(body, &entries); err != nil {
		t.Fatalf("directory is not an array: %v\n%s", err, body)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Type+" "+e.Path)
		if e.SHA == "" || e.URL == "" || e.Name == "" {
			t.Errorf("entry %+v lacks sha/url/name", e)
		}
	}
	if strings.Join(got, ",") != "file .github/review-loop.yml,dir .github/workflows" {
		t.Fatalf("entries %v", got)
	}
}

func TestContents_NotFound(t *testing.T) {
	f := contentsFixture(t)
	for _, c := range []struct{ path, ref string }{
		{"nope.yml", ""}, {".github/review-loop.yml", "no-such-branch"}, {".github/review-loop.yml", strings.Repeat("0", 40)},
		{"../demo.git/config", ""}, {"main.go", "main"},
	} {
		status, body := getContents(t, f, c.path, c.ref)
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		if status != http.StatusNotFound || m["message"] != "Not Found" || m["documentation_url"] == nil {
			t.Errorf("%s at %q: %d %s, want 404 Not Found", c.path, c.ref, status, body)
		}
	}
}

func TestContents_UnknownRepository(t *testing.T) {
	f := contentsFixture(t)
	req, _ := http.NewRequest(http.MethodGet, f.URL()+"/repos/octo/nope/contents/README.md", nil)
	req.Header.Set("Authorization", "Bearer ghs_read")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown repository: %d, want 404", resp.StatusCode)
	}
}

// richContentsFixture adds to contentsFixture, on branch feature, a file
// over 1 MB, a symlink and a submodule, pushed over HTTP.
func richContentsFixture(t *testing.T) (*ghfake.Fake, string) {
	t.Helper()
	f := contentsFixture(t)
	big := strings.Repeat("x", 1<<20+1)
	if _, err := f.PushCommit("octo", "demo", "feature", map[string]string{"big.txt": big,
		".gitmodules": "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = https://github.com/octo/lib.git\n"}, "big"); err != nil {
		t.Fatal(err)
	}
	f.AddToken("ghs_write", ghfake.Identity{Login: "octo"})
	env := gitEnv(f.URL(), "ghs_write")
	dir, out, err := shallowFetch(t, f.HTTPCloneURL("octo", "demo"), env, "feature")
	if err != nil {
		t.Fatalf("fetch: %v\n%s", err, out)
	}
	mustGit(t, dir, env, "checkout", "-q", "FETCH_HEAD")
	if err := os.Symlink(".github/review-loop.yml", filepath.Join(dir, "link.yml")); err != nil {
		t.Fatal(err)
	}
	mustGit(t, dir, env, "add", "link.yml")
	mustGit(t, dir, env, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",vendor/lib")
	mustGit(t, dir, env, "commit", "-q", "-m", "link and submodule")
	mustGit(t, dir, env, "push", "-q", f.HTTPCloneURL("octo", "demo"), "HEAD:refs/heads/feature")
	return f, big
}

// TestContents_SymlinkSubmoduleAndLargeFile: GitHub answers a symlink
// with type "symlink" and its target, a submodule with type "submodule"
// and the url .gitmodules gives it, and a file over 1 MB with encoding
// "none" and empty content.
func TestContents_SymlinkSubmoduleAndLargeFile(t *testing.T) {
	f, big := richContentsFixture(t)
	get := func(path string) map[string]any {
		t.Helper()
		status, body := getContents(t, f, path, "feature")
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil || status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		return m
	}
	if m := get("link.yml"); m["type"] != "symlink" || m["target"] != ".github/review-loop.yml" {
		t.Fatalf("symlink answer %v, want type symlink with its target", m)
	}
	if m := get("vendor/lib"); m["type"] != "submodule" || m["submodule_git_url"] != "https://github.com/octo/lib.git" || m["sha"] != strings.Repeat("ab", 20) {
		t.Fatalf("submodule answer %v", m)
	}
	status, body := getContents(t, f, "vendor", "feature")
	if status != http.StatusOK || !strings.Contains(string(body), `"type":"submodule"`) {
		t.Fatalf("listing with a submodule: %d %s", status, body)
	}
	c := fileAt(t, f, "big.txt", "feature")
	if c.Encoding != "none" || c.Content != "" || c.Size != len(big) {
		t.Fatalf("file over 1 MB: encoding %q, %d content bytes, size %d", c.Encoding, len(c.Content), c.Size)
	}
}
