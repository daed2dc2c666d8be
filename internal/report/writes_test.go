package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_E6_TheBodyFindingsCommentNamesEachFindingsPlace(t *testing.T) {
	t.Parallel()
	got := BodyFindingsComment("abc1234", []loop.BodyFinding{
		{Finding: loop.Finding{ID: "cr-1", Engine: "coderabbit", Path: "a.go", Line: 9, StartLine: 4, Title: "range"}},
		{Finding: loop.Finding{ID: "cr-2", Engine: "coderabbit", Path: "b.go", Line: 3, Title: "line"}},
		{Finding: loop.Finding{ID: "cr-3", Engine: "coderabbit", Path: "c.go", Title: "file"}},
	})
	for _, want := range []string{"fixed these findings in abc1234", "no thread to reply to or resolve",
		"- coderabbit `a.go` (lines 4-9): range (`cr-1`)", "- coderabbit `b.go` (line 3): line (`cr-2`)", "- coderabbit `c.go`: file (`cr-3`)"} {
		if !strings.Contains(got, want) {
			t.Errorf("comment lacks %q:\n%s", want, got)
		}
	}
}

func TestRule_J5_AFollowUpIssueNamesItsEnginePRAndPlace(t *testing.T) {
	t.Parallel()
	title, body := FollowUpIssue(state.Item{Engine: "gemini", Title: "rename x", Path: "a.go", Line: 7}, 12, "https://github.com/o/r/pull/12")
	if title != "Follow-up: rename x" {
		t.Errorf("title = %q", title)
	}
	for _, want := range []string{"from gemini on #12 (https://github.com/o/r/pull/12)", "rename x", "Location: `a.go` line 7"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if _, body := FollowUpIssue(state.Item{Engine: "gemini", Title: "t"}, 1, "u"); strings.Contains(body, "Location") {
		t.Errorf("an item with no path names a location:\n%s", body)
	}
}

func TestRule_CI1_ARefusedDispatchSaysWhatToAdd(t *testing.T) {
	t.Parallel()
	err := errors.New("HTTP 422")
	if got := CIDispatchRefused("ci.yml", "feature", err, true, false); !strings.Contains(got, "add `workflow_dispatch:` to its `on:`") {
		t.Errorf("no trigger: %q", got)
	}
	if got := CIDispatchRefused("ci.yml", "feature", err, false, true); !strings.Contains(got, "could not dispatch the CI workflow ci.yml on feature") || !strings.HasSuffix(got, "needs `actions: write`") {
		t.Errorf("permission: %q", got)
	}
}
