package git

import (
	"context"
	"strings"
	"testing"
)

// TB10: git pathspecs are literal everywhere. A claimed file whose name is
// pathspec magic (a glob, or ":(glob)…") commits that one file and never
// the other changes its pattern would match; restoring it touches only it.
func TestRule_TB10_PathspecsAreLiteral(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"*.go", ":(glob)**", ":!README.md"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr, r := newRepo(t)
			tr.Write(t, map[string]string{"internal/fix/a.go": "package fix\n\nvar planted = 1\n", "README.md": "planted\n", "x.go": "package x\n", name: "claimed\n"})
			if _, err := r.Commit(context.Background(), CommitRequest{Files: []string{name}, Message: "fix"}); err != nil {
				t.Fatal(err)
			}
			got := strings.TrimSpace(tr.Git(t, "show", "--name-only", "--format=", "HEAD"))
			if got != name {
				t.Fatalf("the commit for %q holds:\n%s", name, got)
			}
			tr.Write(t, map[string]string{name: "edited\n"})
			if err := r.Git.RestoreFiles(context.Background(), []string{name}); err != nil {
				t.Fatal(err)
			}
			if got := tr.Read(t, "internal/fix/a.go"); !strings.Contains(got, "planted") {
				t.Errorf("restoring %q also restored internal/fix/a.go", name)
			}
		})
	}
}
