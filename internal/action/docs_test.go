package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/actionyml"
	"github.com/review-loop/review-loop/internal/report"
)

func repoRootDir() string { return filepath.Join("..", "..") }

// TestDocs_OutputsListedAsTheActionSetsThem: the README's outputs
// paragraph names every output of action.yml and every phase the code
// can set.
func TestDocs_OutputsListedAsTheActionSetsThem(t *testing.T) {
	t.Parallel()
	root := repoRootDir()
	a, err := actionyml.Load(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	i := strings.Index(string(readme), "Outputs, set on every run")
	if i < 0 {
		t.Fatal("README has no outputs paragraph")
	}
	para := string(readme)[i:]
	para = para[:strings.Index(para, "\n\n")]
	for _, o := range a.Outputs {
		if !strings.Contains(para, "`"+o.Name+"`") {
			t.Errorf("README's outputs paragraph lacks `%s`", o.Name)
		}
	}
	for _, ph := range []string{"trigger", "wait", "fix", "hand-back", "done", "stopped", string(report.PhaseNone), "error"} {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(ph) + `\b`).MatchString(para[strings.Index(para, "`phase`"):]) {
			t.Errorf("README's outputs paragraph lacks phase %s", ph)
		}
	}
}

// TestDocs_ReadmeIsUserFirst: the README opens with what review-loop is
// and the two commands, its quick start carries the hardened example
// exactly as the file is (so a copy is the tested workflow), and the
// contributor material lives in CONTRIBUTING.md.
func TestDocs_ReadmeIsUserFirst(t *testing.T) {
	t.Parallel()
	root := repoRootDir()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	head := strings.Join(strings.SplitN(text, "\n", 40)[:39], "\n")
	for _, want := range []string{"go run ./cmd/review-loop demo", "./scripts/test", "review-loop demo"} {
		if !strings.Contains(head, want) {
			t.Errorf("the README's first 40 lines lack %q", want)
		}
	}
	hardened, err := os.ReadFile(filepath.Join(root, "docs", "examples", "review-loop-hardened.yml"))
	if err != nil {
		t.Fatal(err)
	}
	qs := strings.Index(text, "## Quick start")
	if qs < 0 || !strings.Contains(text[qs:], "```yaml\n"+string(hardened)+"```") {
		t.Error("the quick start does not carry docs/examples/review-loop-hardened.yml as it is")
	}
	for _, want := range []string{"secrets", "default branch", "@review-loop start", "`review-loop` label", "start-on: auto", "What you will see"} {
		if qs < 0 || !strings.Contains(text[qs:qs+strings.Index(text[qs:], "```yaml")], want) {
			t.Errorf("the quick start's checklist does not say %q", want)
		}
	}
	if !strings.Contains(text, "(docs/rules.md)") {
		t.Error("the README does not link docs/rules.md")
	}
	contrib, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, moved := range []string{"## Mutation testing", "## Performance", "## Layout"} {
		if strings.Contains(text, moved+"\n") || !strings.Contains(string(contrib), moved+"\n") {
			t.Errorf("%s belongs in CONTRIBUTING.md, not the README", moved)
		}
	}
}
