package action

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/report"
)

// TestRule_CC_claimIsReReadAfterItsWrite: two cycles read the same status
// comment and both pass the check before writing their claim; the other
// run's claim lands just after ours. Reading the comment back after the
// write shows the other claim, and this run stops before it pushes.
func TestRule_CC_claimIsReReadAfterItsWrite(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	_, body := statusState(t, w.fake)
	var id int64
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		if c.Body == body {
			id = c.ID
		}
	}
	// The claim write and the write-ahead save before the push both pass
	// their check; the other run's claim lands right after the second.
	patches, done := 0, false
	w.fake.Inject(ghfake.Fault{Match: fmt.Sprintf("PATCH /repos/octo/app/issues/comments/%d", id), Before: func() { patches++ }})
	w.fake.Inject(ghfake.Fault{Match: fmt.Sprintf("GET /repos/octo/app/issues/comments/%d", id), Before: func() {
		if patches == 2 && !done {
			done = true
			done = true
			for _, c := range w.fake.PR("octo", "app", 1).Comments {
				if c.ID == id {
					_ = w.fake.EditIssueComment(id, c.Body[:strings.LastIndex(c.Body, report.ClaimMarker)]+report.ClaimMarker+"other-run -->")
				}
			}
		}
	}})
	head := w.fake.HeadSHA("octo", "app", 1)
	rid, _ := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "generated 1 comment.", CommitSHA: head})
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
		Body: "Add subtracts.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatal(err)
	}
	if res.PRs[0].Pushed != "" || w.fake.HeadSHA("octo", "app", 1) != head {
		t.Fatalf("the run whose claim was overwritten still pushed (skipped %q)", res.PRs[0].Skipped)
	}
	if !strings.Contains(res.PRs[0].Skipped, "another run") {
		t.Errorf("skipped = %q, want the lost-race stop", res.PRs[0].Skipped)
	}
}
