package github_test

import (
	"context"
	"strings"
	"testing"
)

// TestFileContent_ReadsAFileOfTheDefaultBranchOrSaysItIsMissing: the
// repository config of a run with no checkout is read through the
// contents API; a missing file is no error, a directory is one.
func TestFileContent_ReadsAFileOfTheDefaultBranchOrSaysItIsMissing(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	if err := e.f.SetProtected("o", "r", "main", false); err != nil {
		t.Fatal(err)
	}
	const cfg = "shared-paths:\n  - src/lib/**\n"
	if _, err := e.f.PushCommit("o", "r", "main", map[string]string{".github/review-loop.yml": cfg}, "config"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.PushCommit("o", "r", "feat", map[string]string{".github/review-loop.yml": "other\n"}, "config on the PR branch"); err != nil {
		t.Fatal(err)
	}
	got, found, err := e.c.FileContent(ctx, "o", "r", ".github/review-loop.yml", "")
	if err != nil || !found || string(got) != cfg {
		t.Errorf("FileContent = %q, %v, %v; want the default branch's file", got, found, err)
	}
	if got, found, err := e.c.FileContent(ctx, "o", "r", ".github/review-loop.yml", "feat"); err != nil || !found || string(got) != "other\n" {
		t.Errorf("FileContent at feat = %q, %v, %v; want the branch's file", got, found, err)
	}
	if got, found, err := e.c.FileContent(ctx, "o", "r", ".github/nothing.yml", ""); err != nil || found || got != nil {
		t.Errorf("a missing file: %q, %v, %v; want not found and no error", got, found, err)
	}
	if _, _, err := e.c.FileContent(ctx, "o", "r", ".github", ""); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a directory: err = %v, want one saying it is a directory", err)
	}
	assertContract(t, e.rec)
}
