package fixcycle

import (
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file triages the plan's findings (TR1-TR3): the table, and the
// findings to fix with the maintainers' directions.

// TriageInputs are what triage reads.
type TriageInputs struct {
	// Findings are the plan's findings to triage (loop.Plan.Triage).
	Findings []loop.Finding
	// Approvals and Skips are the maintainers' commands the state holds.
	Approvals []state.Approval
	Skips     []string
	Catalogue *triage.Catalogue
	// TestCommand is true when a test-command is configured (TR1).
	TestCommand bool
	CopilotOnly bool
	// SharedHelpers are the globs of shared-helper files (TR2,
	// observe.SharedHelpers).
	SharedHelpers []string
}

// Triaged is the triage of a cycle's findings.
type Triaged struct {
	Table triage.Table
	// ByID are the plan's findings by id.
	ByID map[string]loop.Finding
	// Todo are the findings to fix this cycle, in the table's order, and
	// Directions the fix directions of their approvals.
	Todo       []loop.Finding
	Directions map[string]string
}

// Triage classifies the findings and picks the ones to fix.
func Triage(in TriageInputs) Triaged {
	t := Triaged{ByID: map[string]loop.Finding{}, Directions: map[string]string{}}
	for _, a := range in.Approvals {
		t.Directions[a.FindingID] = a.Direction
	}
	skips := map[string]bool{}
	for _, s := range in.Skips {
		skips[s] = true
	}
	t.Table = triage.Classify(in.Findings, triage.Inputs{
		Catalogue: in.Catalogue, TestCommand: in.TestCommand, Approvals: t.Directions, Skips: skips,
		CopilotOnly: in.CopilotOnly, SharedHelpers: in.SharedHelpers,
	})
	for _, f := range in.Findings {
		t.ByID[f.ID] = f
	}
	for _, id := range t.Table.Fixable() {
		t.Todo = append(t.Todo, t.ByID[id])
	}
	return t
}
