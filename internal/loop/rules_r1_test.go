package loop

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// R1: over a loop's life of 100 fix cycles, an engine raises 10,000
// findings, 100 a cycle: most are fixed, some disagreed with, reverted
// or escalated (which stay open), some await approval. The state still
// fits one comment with room for the visible report, and nothing a rule
// reads is lost: the totals count all 10,000, an escalated finding still
// open is not triaged again, and every finding awaiting approval can
// still be approved.
func TestRule_R1_TenThousandFindingsFitOneComment(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	st := active(sha1, "bugbot")
	var open []Finding
	var awaiting []string
	id := int64(2233029565)
	categories := []string{"nil-deref", "race", "leak", "bounds", "error-handling"}
	for cycle := 1; cycle <= 100; cycle++ {
		var fresh []Finding
		for i := range 100 {
			id += 37
			fresh = append(fresh, Finding{ID: fmt.Sprintf("bugbot-%d", id), CommentID: id, ThreadID: fmt.Sprintf("PRRT_kwDOAbc%d", id),
				Path: fmt.Sprintf("internal/pkg%d/file%d.go", i%17, i), Line: i + 1, Category: categories[i%len(categories)],
				Title: fmt.Sprintf("Possible nil dereference in handler %d of cycle %d", i, cycle)})
		}
		st.Status, st.Iteration = state.StatusActive, cycle
		_, st = Decide(st, obs(sha1, time.Duration(cycle)*time.Minute, done("bugbot", sha1, int64(cycle), append(slices.Clone(open), fresh...)...)), cfg)
		rows := make([]state.TriageRow, 0, len(fresh))
		for i, f := range fresh {
			out := OutcomeFixed
			switch {
			case i%20 == 0:
				out = OutcomeEscalated
				open = append(open, f)
			case i%50 == 1:
				out = OutcomeAwaitingApproval
				awaiting = append(awaiting, f.ID)
			case i%10 == 2:
				out = OutcomeDisagreed
			case i%10 == 3:
				out = OutcomeReverted
			}
			rows = append(rows, state.TriageRow{FindingID: f.ID, Engine: "bugbot", CommentID: f.CommentID, Tier: 1 + i%3,
				Justification: "a one-line fix at the flagged lines, covered by the package's tests", Outcome: out, Key: NoProgressKey(f)})
		}
		st.Iteration = cycle
		st = RecordFixCycle(st, FixResult{Rows: rows}, t0.Add(time.Duration(cycle)*time.Minute))
	}
	// The state fits with at least half the comment left for the report.
	body, err := state.Encode("", st)
	if err != nil {
		t.Fatalf("encoding the state of 10,000 findings: %v (%d triage rows)", err, len(st.Triage))
	}
	if n := len([]rune(body)); n > state.MaxCommentChars/2 {
		t.Errorf("the state takes %d characters of the comment's %d (%d triage rows)", n, state.MaxCommentChars, len(st.Triage))
	}
	tot := st.Totals
	if got := tot.Fixed + tot.Escalated + tot.Disagreed + tot.Reverted + countOutcome(st.Triage, OutcomeAwaitingApproval); got < 10000-200 {
		t.Errorf("the totals count %d findings (%+v)", got, tot)
	}
	// An escalated finding still open is not triaged again.
	st.Status, st.Iteration = state.StatusActive, 101
	id += 37
	newest := Finding{ID: fmt.Sprintf("bugbot-%d", id), CommentID: id, Path: "main.go", Line: 1, Category: "new", Title: "New"}
	p, _ := Decide(st, obs(sha1, 200*time.Minute, done("bugbot", sha1, 101, append(slices.Clone(open), newest)...)), cfg)
	if ids := triageIDs(p); len(ids) != 1 || ids[0] != id {
		t.Errorf("triage %d findings (%v…), want only the new one: the escalated ones were triaged again", len(ids), ids[:min(len(ids), 5)])
	}
	// Every finding awaiting approval can still be named.
	for _, a := range awaiting {
		if _, err := ResolveFindingRef(st, nil, a); err != nil {
			t.Fatalf("approving %s: %v", a, err)
		}
	}
}
