package prepared

import (
	"errors"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
)

const calcPatch = "diff --git a/calc/calc.go b/calc/calc.go\n--- a/calc/calc.go\n+++ b/calc/calc.go\n@@ -5 +5 @@\n-\treturn a - b\n+\treturn a + b\n"

// TB10, on plain data: the publish job accepts a prepared fix only for
// the findings it read itself, only in files a fixed finding names, marks
// fixed only where the patch touches, and repeats no text unescaped.
func TestRule_TB10_AcceptTakesOnlyWhatTheFindingsAllow(t *testing.T) {
	todo := []loop.Finding{{ID: "a", Path: "calc/calc.go", Line: 5}, {ID: "b", Path: "README.md", Line: 1}}
	fixed := func(id string) fix.Result { return fix.Result{ID: id, Outcome: fix.OutcomeFixed} }
	p := &Fix{Results: []fix.Result{fixed("a"), fixed("b")}, Changed: []string{"calc/calc.go"}, Commit: true}
	acc, err := Accept(todo, p, []byte(calcPatch))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(acc.Files, ",") != "calc/calc.go" || strings.Join(acc.NotTouched, ",") != "b" || acc.Results[1].Outcome != fix.OutcomeFailed {
		t.Fatalf("accepted %+v", acc)
	}
	if _, err := Accept(todo[:1], p, []byte(calcPatch)); !errors.Is(err, ErrOtherFindings) {
		t.Fatalf("other findings: %v", err)
	}
	evil := &Fix{Results: []fix.Result{fixed("a"), fixed("b")}, Changed: []string{"calc/calc.go", ".gitattributes"}, Commit: true}
	if _, err := Accept(todo, evil, []byte(calcPatch)); err == nil || !strings.Contains(err.Error(), ".gitattributes") {
		t.Fatalf("an unclaimed .gitattributes: %v", err)
	}
	loud := &Fix{Results: []fix.Result{{ID: "a", Outcome: fix.OutcomeDisagreed, Reply: "@someone <!-- review-loop:state -->"}, fixed("b")}}
	acc, err = Accept(todo, loud, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := acc.Results[0].Reply; strings.Contains(r, "@someone") || strings.Contains(r, "<!--") {
		t.Fatalf("reply %q repeated unescaped", r)
	}
}
