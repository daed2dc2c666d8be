package fixcycle

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/triage"
)

// triaged is a triage of three findings: a Tier 1 one the fixer worked
// on, a Tier 2 one left pending and a Tier 3 escalation.
func triaged() Triaged {
	return Triaged{
		Table: triage.Table{Rows: []triage.Row{
			{FindingID: "a", Engine: "bugbot", CommentID: 1, Tier: triage.Tier1, Justification: "nil check", Outcome: triage.OutcomePending},
			{FindingID: "b", Engine: "copilot", CommentID: 2, Tier: triage.Tier2, Justification: "shared helper", Outcome: triage.OutcomePending},
			{FindingID: "c", Engine: "claude", CommentID: 3, Tier: triage.Tier3, Reason: "changes the public API", Outcome: triage.OutcomeEscalated},
		}},
		ByID: map[string]loop.Finding{
			"a": {ID: "a", Path: "calc/calc.go", Category: "nil-deref"},
			"b": {ID: "b", Path: "internal/strutil/s.go", Key: "strutil:ratio"},
			"c": {ID: "c", Path: "api/api.go", Category: "api"},
		},
	}
}

func TestRule_H3_TierThreeRowsCarryTheirEscalationReason(t *testing.T) {
	t.Parallel()
	rows := Rows(triaged(), nil, false)
	if len(rows) != 3 {
		t.Fatalf("rows %+v", rows)
	}
	if rows[2].Justification != "changes the public API" || rows[2].Tier != 3 {
		t.Errorf("Tier 3 row %+v: want its escalation reason as justification", rows[2])
	}
	if rows[0].Justification != "nil check" {
		t.Errorf("a row's own justification is kept: %+v", rows[0])
	}
	// The no-progress key is the finding's key, else its category (L3).
	if rows[0].Key != "nil-deref" || rows[1].Key != "strutil:ratio" {
		t.Errorf("keys %q, %q", rows[0].Key, rows[1].Key)
	}
}

func TestRule_E4_TheFixersOutcomeIsTheRowsAndAFailedCycleFixesNothing(t *testing.T) {
	t.Parallel()
	results := []fix.Result{{ID: "a", Outcome: fix.OutcomeFixed}}
	rows := Rows(triaged(), results, false)
	if rows[0].Outcome != loop.OutcomeFixed || rows[1].Outcome != string(triage.OutcomePending) || rows[2].Outcome != string(triage.OutcomeEscalated) {
		t.Errorf("outcomes %q %q %q", rows[0].Outcome, rows[1].Outcome, rows[2].Outcome)
	}
	// A cycle that failed after the fixer ran commits nothing: what it
	// fixed is recorded reverted.
	rows = Rows(triaged(), results, true)
	if rows[0].Outcome != loop.OutcomeReverted {
		t.Errorf("failed cycle: %q, want reverted", rows[0].Outcome)
	}
	if rows[1].Outcome != string(triage.OutcomePending) {
		t.Errorf("failed cycle: an untouched row changed: %q", rows[1].Outcome)
	}
}

func TestRule_E4_EveryFixerOutcomeMapsToARowOutcome(t *testing.T) {
	t.Parallel()
	for o, want := range map[fix.Outcome]string{
		fix.OutcomeFixed: loop.OutcomeFixed, fix.OutcomeOutdated: loop.OutcomeOutdated, fix.OutcomeDisagreed: loop.OutcomeDisagreed,
		fix.OutcomeReverted: loop.OutcomeReverted, fix.Outcome("something new"): loop.OutcomeReverted,
	} {
		if got := outcome(o); got != want {
			t.Errorf("outcome(%q) = %q, want %q", o, got, want)
		}
	}
}

func TestRule_E4_TheFixOutcomeHandsTheCoreTheResultsAndTriagesOwnReplies(t *testing.T) {
	t.Parallel()
	tr := triaged()
	tr.Table.Rows[1].Reply = "needs a maintainer: shared helper"
	tr.Table.Rows[2].Outcome, tr.Table.Rows[2].Reply = triage.OutcomeDisagreed, "not a bug"
	o := Outcome{Triaged: tr, Result: fix.CycleResult{Results: []fix.Result{{ID: "a", Outcome: fix.OutcomeFixed, Reply: "fixed in abc"}}}}
	got := o.After("abc1234")
	if got.Pushed != "abc1234" || len(got.Findings) != 3 {
		t.Errorf("pushed %q, %d findings", got.Pushed, len(got.Findings))
	}
	if !slices.Equal(got.Results, []loop.FixResultRow{{ID: "a", Outcome: loop.OutcomeFixed, Reply: "fixed in abc"}}) {
		t.Errorf("results %+v", got.Results)
	}
	want := []loop.TriageReply{{FindingID: "b", Tier: 2, Reply: "needs a maintainer: shared helper"}, {FindingID: "c", Tier: 3, Disagreed: true, Reply: "not a bug"}}
	if !slices.Equal(got.Rows, want) {
		t.Errorf("triage replies %+v, want %+v", got.Rows, want)
	}
}

func TestRule_TB9_TheStatusCommentSaysWhatTheCommitLeavesOutOncePerReason(t *testing.T) {
	t.Parallel()
	var rs []fix.Revert
	for i := range 12 {
		rs = append(rs, fix.Revert{Path: fmt.Sprintf("gen/%02d.go", i), Why: "generated file"})
	}
	rs = append(rs, fix.Revert{Path: ".github/workflows/ci.yml", Why: "a workflow file is never committed"})
	got := revertedNotices(rs)
	if len(got) != 2 {
		t.Fatalf("notices %q, want one per reason", got)
	}
	if !strings.HasPrefix(got[0], "left out of the fix commit: gen/00.go, ") || !strings.Contains(got[0], "gen/09.go and 2 more — generated file") || strings.Contains(got[0], "gen/10.go") {
		t.Errorf("first notice %q", got[0])
	}
	if got[1] != "left out of the fix commit: .github/workflows/ci.yml — a workflow file is never committed" {
		t.Errorf("second notice %q", got[1])
	}
	if revertedNotices(nil) != nil {
		t.Error("nothing left out: a notice")
	}
}

// TB11 and every other refusal: a fix the pipeline reverted or could not
// make says why on its row, which the status comment shows — a command
// that tampered with the runner's file commands is not only "reverted".
func TestRule_TB11_ARevertedFixNamesItsReasonOnItsRow(t *testing.T) {
	t.Parallel()
	why := "targeted test failed: the command changed the runner's file-command files (TB11), which set later steps' environment and PATH; they were restored: GITHUB_ENV"
	rows := Rows(triaged(), []fix.Result{{ID: "a", Outcome: fix.OutcomeReverted, Reason: why}, {ID: "b", Outcome: fix.OutcomeFailed, Reason: "no suggestion block to apply"}}, false)
	if rows[0].Outcome != loop.OutcomeReverted || !strings.Contains(rows[0].Justification, "(TB11)") {
		t.Errorf("reverted row %+v: want its reason", rows[0])
	}
	if !strings.Contains(rows[1].Justification, "no suggestion block") {
		t.Errorf("failed row %+v: want its reason", rows[1])
	}
}
