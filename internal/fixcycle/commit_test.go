package fixcycle

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
)

// TB9 at the commit: whatever produced the change, a file review-loop
// never commits, or a tool file no fixed finding is on, stops the push.
func TestRule_TB9_TheCommitRefusesWhatNoFixMayClaim(t *testing.T) {
	byID := map[string]loop.Finding{"a": {ID: "a", Path: "calc/calc.go"}, "b": {ID: "b", Path: ".gitattributes"}}
	fixed := []fix.Result{{ID: "a", Outcome: fix.OutcomeFixed}}
	for _, p := range []string{".github/actions/x/action.yml", ".github/workflows/ci.yml", ".gitattributes", ".gitmodules", ".husky/pre-commit", "CLAUDE.md"} {
		cyc := fix.CycleResult{Results: fixed, Changed: []string{"calc/calc.go", p}, Commit: true}
		if why := CommitRefusal(cyc, byID); !strings.Contains(why, p) {
			t.Errorf("%s: refusal %q", p, why)
		}
	}
	ok := fix.CycleResult{Results: append(fixed, fix.Result{ID: "b", Outcome: fix.OutcomeFixed}), Changed: []string{"calc/calc.go", ".gitattributes"}, Commit: true}
	if why := CommitRefusal(ok, byID); why != "" {
		t.Errorf("a finding on .gitattributes, fixed there: refused %q", why)
	}
}
