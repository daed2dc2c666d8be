package observe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestRule_TR2_GoListFindsPackagesImportedTwice(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                      "module example.com/m\n\ngo 1.22\n",
		"internal/strutil/strutil.go": "package strutil\n\nfunc Ratio(a, b int) int { return a / b }\n",
		"a/a.go":                      "package a\n\nimport \"example.com/m/internal/strutil\"\n\nvar _ = strutil.Ratio\n",
		"b/b.go":                      "package b\n\nimport \"example.com/m/internal/strutil\"\n\nvar _ = strutil.Ratio\n",
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs, err := goSharedDirs(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dirs, []string{"internal/strutil"}) {
		t.Errorf("shared dirs %v, want [internal/strutil]", dirs)
	}
	if dirs, err := goSharedDirs(context.Background(), t.TempDir()); err != nil || dirs != nil {
		t.Errorf("no go.mod: %v, %v; want nothing and no error", dirs, err)
	}
}
