package ghfake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

func getCompare(t *testing.T, f *ghfake.Fake, basehead string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.URL()+"/repos/octo/demo/compare/"+basehead, nil)
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

// TestRule_CV5_CompareAnswersLikeGitHub: the fake's compare (CV4, CV5)
// says ahead or diverged as git does, attributes a commit made with a
// noreply address to its account (Bugbot Autofix: cursor[bot]), carries a
// revert's own message, and validates against GitHub's description of
// repos/compare-commits.
func TestRule_CV5_CompareAnswersLikeGitHub(t *testing.T) {
	f := contentsFixture(t)
	base := f.HeadSHA("octo", "demo", 1)
	fix, err := f.PushCommit("octo", "demo", "feature", map[string]string{"calc.go": "package calc\n\nfunc A() int { return 1 }\n"}, "review-loop: fix")
	if err != nil {
		t.Fatal(err)
	}
	auto, err := f.PushCommitAs("octo", "demo", "feature", map[string]string{"calc.go": "package calc\n\nfunc A() int { return 2 }\n"},
		"fix: A returns 2\n\nApplied by Bugbot Autofix.", "Cursor Agent <206951365+cursor[bot]@users.noreply.github.com>")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := f.RevertCommit("octo", "demo", "feature", auto, "alice <alice@users.noreply.github.com>")
	if err != nil {
		t.Fatal(err)
	}
	status, body := getCompare(t, f, fix+"..."+rev)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var cmp struct {
		Status  string `json:"status"`
		AheadBy int    `json:"ahead_by"`
		Commits []struct {
			SHA    string `json:"sha"`
			Author *struct {
				Login string `json:"login"`
			} `json:"author"`
			Commit struct {
				Message string `json:"message"`
			} `json:"commit"`
		} `json:"commits"`
		Files []struct {
			Filename string `json:"filename"`
			Patch    string `json:"patch"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &cmp); err != nil {
		t.Fatal(err)
	}
	if cmp.Status != "ahead" || cmp.AheadBy != 2 || len(cmp.Commits) != 2 {
		t.Fatalf("compare = %s ahead by %d with %d commits", cmp.Status, cmp.AheadBy, len(cmp.Commits))
	}
	if c := cmp.Commits[0]; c.SHA != auto || c.Author == nil || c.Author.Login != "cursor[bot]" {
		t.Fatalf("first commit %+v, want Bugbot Autofix's by cursor[bot]", c)
	}
	if c := cmp.Commits[1]; c.Author == nil || c.Author.Login != "alice" || !strings.Contains(c.Commit.Message, "This reverts commit "+auto) {
		t.Fatalf("second commit %+v, want alice's revert", c)
	}
	if len(cmp.Files) != 0 {
		t.Fatalf("files = %+v, want none: the revert undid the change", cmp.Files)
	}
	if status, body = getCompare(t, f, fix+"..."+auto); status != 200 || !bytes.Contains(body, []byte(`"patch":"@@ -1,3 +1,3 @@`)) {
		t.Fatalf("compare of Autofix's commit: %d %s", status, body)
	}
	// The loop's commit is no longer an ancestor: diverged.
	if status, body = getCompare(t, f, fix+"..."+base); status != 200 || !bytes.Contains(body, []byte(`"status":"behind"`)) {
		t.Fatalf("compare back to the base: %d %s", status, body)
	}
	if status, _ = getCompare(t, f, "nope...feature"); status != 404 {
		t.Fatalf("unknown base: status %d, want 404", status)
	}

	for _, bh := range []string{fix + "..." + rev, fix + "..." + auto, fix + "..." + base, "nope...feature"} {
		status, body := getCompare(t, f, bh)
		validate(t, "/repos/{owner}/{repo}/compare/{basehead}", "/repos/octo/demo/compare/"+bh, status, body)
	}
}
