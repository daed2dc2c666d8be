package triage

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// C1: triage's allocations are linear in the findings: at a busy PR's
// 150 and at 1,500.
func TestRule_C1_TriageGrowsLinearlyInFindings(t *testing.T) {
	findings := func(n int) []loop.Finding {
		fs := make([]loop.Finding, n)
		for i := range fs {
			fs[i] = loop.Finding{ID: fmt.Sprintf("bugbot-%d", i), Engine: "bugbot", CommentID: int64(i), Path: fmt.Sprintf("pkg%d/a.go", i/15),
				Line: 1 + i%40, Title: "Nil map read panics when the cache is empty", Category: "bug",
				Body: fmt.Sprintf("The value is read before it is checked.\n\n```suggestion\n\treturn %d\n```\n", i)}
		}
		return fs
	}
	small, large := findings(150), findings(1500)
	in := Inputs{TestCommand: true}
	as := testing.AllocsPerRun(3, func() { Classify(small, in) })
	al := testing.AllocsPerRun(1, func() { Classify(large, in) })
	t.Logf("%.0f allocations at 150 findings, %.0f at 1,500 (%.1f per finding)", as, al, al/1500)
	if al > 13*as {
		t.Errorf("allocations grow faster than linearly: %.0f at 150, %.0f at 1,500 (%.1f×, want ≤ 13×)", as, al, al/as)
	}
	// The regular expressions' pooled matchers make the count vary with
	// the collector (25–45 per finding seen, more under -race).
	if al > 100*1500 {
		t.Errorf("%.0f allocations at 1,500 findings, above the ceiling of 100 per finding", al)
	}
}

// C1: the built-in catalogue is parsed and compiled once per process,
// not on every cycle (each cycle loads the repository's configuration,
// which starts from it): a call is one copy of the pattern list.
func TestRule_C1_TheBuiltinCatalogueIsParsedOnce(t *testing.T) {
	Builtin()
	if a := testing.AllocsPerRun(10, func() { Builtin() }); a > 2 {
		t.Errorf("Builtin() makes %.0f allocations a call, want ≤ 2: it parses the catalogue again", a)
	}
	a, b := Builtin(), Builtin()
	a.Patterns[0].ID = "changed"
	if b.Patterns[0].ID == "changed" || Builtin().Patterns[0].ID == "changed" {
		t.Error("a change to one Builtin() catalogue shows in another")
	}
}
