package fix

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// TB5: a suggestion on a tracked symlink (cfg -> .git/config) is refused;
// nothing is written through the link.
func TestRule_TB5_ASuggestionOnATrackedSymlinkIsRefused(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	for name, target := range map[string]string{"cfg": ".git/config", "linkdir": ".git"} {
		if err := os.Symlink(target, filepath.Join(tr.Dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	tr.Git(t, "add", "cfg", "linkdir")
	tr.Git(t, "commit", "--quiet", "-m", "links")
	head := tr.Head(t)
	before, err := os.ReadFile(filepath.Join(tr.Dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	findings := []loop.Finding{
		sugg("copilot-1", "copilot", "cfg", 0, 1, head, "[core]", "\thooksPath = /tmp/evil"),
		sugg("copilot-2", "copilot", "linkdir/config", 0, 1, head, "[core]", "\thooksPath = /tmp/evil"),
	}
	res, _ := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: findings})
	after, _ := os.ReadFile(filepath.Join(tr.Dir, ".git", "config"))
	if string(after) != string(before) {
		t.Fatalf("a suggestion was written through a symlink into .git/config:\n%s", after)
	}
	if got := res.Fixed(); len(got) != 0 {
		t.Errorf("fixed %v through a symlink; log %v", got, res.Log)
	}
}

// TB5: {files} and {dirs} expand to ./-prefixed paths, so a file named
// like an option stays a path.
func TestRule_TB5_PathPlaceholdersCanNeverBecomeOptions(t *testing.T) {
	got := ExpandPlaceholders([]string{"lint", "{files}", "--", "{dirs}", "x={files}"}, []string{"--output=/etc/passwd", "a/-rf", "b.go"})
	want := []string{"lint", "./--output=/etc/passwd", "./a/-rf", "./b.go", "--", "./--output=/etc", "./a", ".", "x=./--output=/etc/passwd ./a/-rf ./b.go"}
	if !slices.Equal(got, want) {
		t.Errorf("ExpandPlaceholders =\n%q\nwant\n%q", got, want)
	}
	for _, a := range got[1:] {
		if strings.HasPrefix(a, "-") && a != "--" {
			t.Errorf("%q can be read as an option", a)
		}
	}
}

// TB5: a fixer that replaces a file with a symlink gets the cycle
// refused: no symlink is ever committed.
func TestRule_TB5_AFixerThatPlantsASymlinkIsRefused(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	argv, _ := fixerScript(t, tr, "rm internal/app/a.go\nln -s ../../.git/config internal/app/a.go\necho '{\"fixed\":[\"copilot-1\"],\"error\":null}'")
	cfg.FixerCommand = argv
	_, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: []loop.Finding{commandFinding("x")}})
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("RunCycle: %v, want a refusal naming the symlink", err)
	}
	if info, lerr := os.Lstat(filepath.Join(tr.Dir, "internal/app/a.go")); lerr != nil || info.Mode()&os.ModeSymlink != 0 {
		t.Errorf("the symlink was left in the checkout: %v", lerr)
	}
}
