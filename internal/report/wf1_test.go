package report

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// WF1 with R1: a decision read back from review-loop's reply (it has no
// row in the state) is listed in the hand-back once, with its rationale,
// its link and the engines that raised it again.
func TestRule_WF1_TheHandBackListsDecisionsReadFromTheReplies(t *testing.T) {
	t.Parallel()
	in := noProgress()
	in.State.WontFix = nil
	in.Plan.Reraised = []state.WontFix{{Path: "calc/calc.go", Title: "Max returns the smaller value", Context: "ed628c6c0bad573b",
		FindingID: "copilot-5", Engine: "copilot", CommentID: 5, Reason: "Intended: Max is documented wrongly.",
		ReplyURL: "https://github.com/o/r/pull/7#discussion_r6", ReplyID: 6, ReraisedBy: []string{"bugbot"}}}
	hb := HandBack(in)
	if n := strings.Count(hb, "Won't fix, remembered (WF1)"); n != 1 {
		t.Fatalf("the hand-back has %d won't-fix sections, want 1:\n%s", n, hb)
	}
	for _, want := range []string{"Intended: Max is documented wrongly.", "discussion_r6", "raised again by bugbot"} {
		if !strings.Contains(hb, want) {
			t.Errorf("the hand-back lacks %q:\n%s", want, hb)
		}
	}
}
