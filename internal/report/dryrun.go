package report

import (
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/triage"
)

// DryRun is the plan a dry run would carry out, in the words of the
// job summary: what gets triggered, waited for, triaged and fixed, which
// threads a kept fix would resolve, and whether the loop hands back.
func DryRun(p loop.Plan, head string, table triage.Table, fixable map[string]bool, effects []loop.Effect) string {
	var b strings.Builder
	b.WriteString("#### Dry run: what this cycle would do\n\n")
	fmt.Fprintf(&b, "Nothing was written to the pull request. Plan: **%s**", p.Action)
	if p.Why != "" {
		fmt.Fprintf(&b, " — %s", WhyMarkdown(p.Why, RulesURL, 300))
	}
	b.WriteString("\n\n")
	if p.MarkReady {
		b.WriteString("- would mark the draft PR ready for review (IN3)\n")
	}
	if len(p.Triggers) > 0 {
		names := make([]string, 0, len(p.Triggers))
		for _, t := range p.Triggers {
			names = append(names, t.Engine)
		}
		fmt.Fprintf(&b, "- would trigger: %s (head %s)\n", strings.Join(names, ", "), shortSHA(head))
	}
	var waiting []string
	for _, e := range p.Engines {
		if e.Verdict == "" && (e.State == loop.Triggered || e.State == loop.Running) {
			waiting = append(waiting, e.Engine)
		}
	}
	if p.Action == loop.ActionWait && len(waiting) > 0 {
		fmt.Fprintf(&b, "- would wait for: %s\n", strings.Join(waiting, ", "))
	}
	if len(p.Triage) > 0 {
		b.WriteString(dryRunTriage(table, fixable))
	}
	if p.Action == loop.ActionHandBack {
		fmt.Fprintf(&b, "- would hand back: end reason `%s`\n", p.EndReason)
	}
	if len(effects) > 0 {
		b.WriteString("\nThe plan, effect by effect:\n\n")
		for i, e := range effects {
			fmt.Fprintf(&b, "%d. %s\n", i+1, Escape(e.String(), maxNoteRunes))
		}
	}
	return b.String()
}

// dryRunTriage classifies the plan's findings as the fix cycle would,
// without running a fixer or a test.
func dryRunTriage(table triage.Table, fixable map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- would triage %d finding(s):\n", len(table.Rows))
	var resolve []string
	for _, r := range table.Rows {
		what := "would escalate (left open)"
		switch {
		case fixable[r.FindingID]:
			what = "would fix, run its targeted test, and keep or revert it"
			resolve = append(resolve, r.FindingID)
		case r.Tier == triage.Tier2 && !r.Approved:
			what = "would await `approve " + r.FindingID + "`"
		case r.Outcome != triage.OutcomePending && r.Outcome != triage.OutcomeEscalated:
			what = "would record it " + string(r.Outcome)
		}
		fmt.Fprintf(&b, "  - `%s` (%s) Tier %d: %s — %s\n", r.FindingID, r.Engine, r.Tier, Escape(r.Reason, 200), what)
	}
	if len(resolve) > 0 {
		fmt.Fprintf(&b, "- would commit the kept fixes in one commit, push, and resolve the threads of: %s\n", strings.Join(resolve, ", "))
		b.WriteString("- would then retrigger every engine on the new head (T7)\n")
	}
	return b.String()
}
