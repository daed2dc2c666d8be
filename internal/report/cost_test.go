package report

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// manyFindings is the mid-loop report with n active findings of bugbot
// and n triage rows.
func manyFindings(n int) Input {
	in := midLoop()
	in.ServerURL, in.RulesURL = "https://github.com", "https://github.com/review-loop/review-loop/blob/main/docs/rules.md"
	in.Titles = map[int64]string{}
	in.Plan.Engines[0].Active = nil
	for i := range n {
		id := int64(3000000000 + i)
		in.Plan.Engines[0].Active = append(in.Plan.Engines[0].Active, id)
		in.Titles[id] = fmt.Sprintf("Finding %d reads the value before it is checked", i)
		in.State.Triage = append(in.State.Triage, state.TriageRow{FindingID: fmt.Sprintf("bugbot-%d", id), Engine: "bugbot", CommentID: id,
			Tier: 1 + i%3, Justification: "the null check prevents a panic", Outcome: "fixed", Cycle: 1})
	}
	return in
}

// C1: rendering the status comment and the JSON report costs allocations
// linear in the findings: at a busy PR's 150 and at 1,500.
func TestRule_C1_ReportRenderingGrowsLinearlyInFindings(t *testing.T) {
	small, large := manyFindings(150), manyFindings(1500)
	for _, r := range []struct {
		name    string
		render  func(Input)
		perItem float64
	}{
		{"status comment", func(in Input) { StatusComment(in) }, 40},
		{"JSON report", func(in Input) { _, _ = JSON(in) }, 40},
	} {
		as := testing.AllocsPerRun(3, func() { r.render(small) })
		al := testing.AllocsPerRun(1, func() { r.render(large) })
		t.Logf("%s: %.0f allocations at 150 findings, %.0f at 1,500 (%.1f per finding)", r.name, as, al, al/1500)
		if al > 13*as {
			t.Errorf("%s: allocations grow faster than linearly: %.0f at 150, %.0f at 1,500 (%.1f×, want ≤ 13×)", r.name, as, al, al/as)
		}
		if al > r.perItem*1500 {
			t.Errorf("%s: %.0f allocations at 1,500 findings, above the ceiling of %.0f per finding", r.name, al, r.perItem)
		}
	}
}
