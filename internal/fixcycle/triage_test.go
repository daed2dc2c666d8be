package fixcycle

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func codified(id, path string) loop.Finding {
	return loop.Finding{ID: id, Engine: "copilot", CommentID: 7, Path: path, Line: 3, Title: "Magic number 20 should be a constant", Body: "plain prose"}
}

// Triage fixes what the table says is Tier 1 or approved, leaves out what
// a maintainer skipped, and hands the approvals' directions to the fixer.
func TestRule_TR1_TriagePicksTheFindingsToFixFromTheTable(t *testing.T) {
	t.Parallel()
	fs := []loop.Finding{codified("a", "internal/app/a.go"), codified("b", "internal/app/b.go"), codified("c", "internal/util/u.go")}
	in := TriageInputs{Findings: fs, TestCommand: true, Skips: []string{"b"},
		Approvals: []state.Approval{{FindingID: "c", Direction: "keep the signature"}}, SharedHelpers: []string{"internal/util/**"}}
	got := Triage(in)
	var ids []string
	for _, f := range got.Todo {
		ids = append(ids, f.ID)
	}
	if !slices.Equal(ids, []string{"a", "c"}) {
		t.Errorf("to fix %v, want [a c] (b skipped, c an approved shared helper)", ids)
	}
	if got.Directions["c"] != "keep the signature" || len(got.ByID) != 3 || len(got.Table.Rows) != 3 {
		t.Errorf("directions %v, %d findings, %d rows", got.Directions, len(got.ByID), len(got.Table.Rows))
	}
	// TR1: without a test command nothing is Tier 1.
	in.TestCommand = false
	if got := Triage(in); len(got.Todo) != 1 || got.Todo[0].ID != "c" {
		t.Errorf("no test command: to fix %+v, want only the approved c", got.Todo)
	}
}
