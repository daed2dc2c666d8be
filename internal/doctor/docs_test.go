package doctor

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/github"
)

func repoRootDir() string { return filepath.Join("..", "..") }

// TestDocs_PermissionsAreTheOnesDoctorChecks: every example workflow, and
// every workflow block of the README, grants the job that writes the
// permissions `review-loop doctor` requires (workflowPermissions), and no
// doc tells the writing job `checks: read`.
func TestDocs_PermissionsAreTheOnesDoctorChecks(t *testing.T) {
	t.Parallel()
	root := repoRootDir()
	examples, _ := filepath.Glob(filepath.Join(root, "docs", "examples", "*.yml"))
	var wfs []github.File
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		wfs = append(wfs, github.File{Path: filepath.Base(p), Text: string(b)})
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range regexp.MustCompile("(?s)```ya?ml\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], "review-loop/review-loop@") && strings.Contains(m[1], "jobs:") {
			wfs = append(wfs, github.File{Path: "README.md block " + string(rune('a'+i)), Text: m[1]})
		}
	}
	if len(wfs) < 5 {
		t.Fatalf("found %d workflows", len(wfs))
	}
	for _, f := range wfs {
		if c := checkWorkflowPermissions(f); c.Status != DoctorOK {
			t.Errorf("%s: %s", f.Path, c.Detail)
		}
	}
	for _, doc := range []string{"action.yml", "docs/tokens.md", "README.md", "internal/cli/help_inputs.txt"} {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		// Workflow blocks are checked above: a prepare job reads only.
		prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
		if strings.Contains(prose, "checks: read") {
			t.Errorf("%s says checks: read; the gate needs checks: write", doc)
		}
	}
	tokens, _ := os.ReadFile(filepath.Join(root, "docs", "tokens.md"))
	for _, p := range workflowPermissions {
		name, _, _ := strings.Cut(p, ":")
		if !strings.Contains(string(tokens), "`"+p+"`") {
			t.Errorf("docs/tokens.md does not name %s (%s)", p, name)
		}
	}
}
