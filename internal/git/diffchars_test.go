package git

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/review-loop/review-loop/internal/git/gittest"
)

// CV6, C1: the diff a pull request shows (from the merge base of base and
// head) is counted in one git run; only when that run fails do the
// follow-up runs find out what the checkout lacks, and the error names it.
func TestRule_CV6_DiffCharsIsOneGitRunAndNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
	tr := gittest.New(t, map[string]string{"calc/calc.go": "package calc\n"})
	base := tr.Git(t, "rev-parse", "main")
	tr.Write(t, map[string]string{"calc/calc.go": "package calc\n\n// Ünïcode counts as characters.\nfunc Add(a, b int) int { return a + b }\n"})
	head := tr.CommitAll(t, "add")
	// main moves on after the branch: the PR's diff starts at the merge
	// base, not at main's tip.
	tr.Git(t, "checkout", "--quiet", "main")
	tr.Write(t, map[string]string{"README.md": "main moved\n"})
	movedBase := tr.CommitAll(t, "main moves")
	tr.Git(t, "checkout", "--quiet", "feature")
	want := utf8.RuneCountInString(tr.Git(t, "diff", "--no-color", "--no-ext-diff", base, head, "--") + "\n")

	g := &Runner{Dir: tr.Dir}
	n, err := g.DiffChars(context.Background(), movedBase, head)
	if err != nil || n != want {
		t.Fatalf("DiffChars = %d, %v; want %d", n, err, want)
	}
	if calls := g.Calls(); len(calls) != 1 {
		t.Errorf("counting the diff ran git %d times, want once: %v", len(calls), calls)
	}

	missing := strings.Repeat("0", 39) + "1"
	if _, err := g.DiffChars(context.Background(), movedBase, missing); err == nil || !strings.Contains(err.Error(), "commit "+missing+" is not in the checkout") {
		t.Errorf("a head missing from the checkout: %v, want it named", err)
	}
	if _, err := g.DiffChars(context.Background(), "--output=x", head); err == nil || !strings.Contains(err.Error(), "invalid commit") {
		t.Errorf("an option for a commit: %v", err)
	}
}
