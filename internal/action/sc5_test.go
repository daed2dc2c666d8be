package action

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// SC5: a command that prints a secret and fails never publishes its output
// on the PR: the error record in the public state comment keeps the
// command, its exit status and the job-log link only.
func TestRule_SC5_CommandOutputNeverReachesTheStateComment(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	inputs := map[string]string{"engines": "copilot", "setup-command": "sh -c 'echo leaked-secret-$((6*7))-SC5; echo more-$((2+3))-output; exit 3'"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), inputs); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(3 * time.Minute)
	head := w.fake.HeadSHA("octo", "app", 1)
	rid, _ := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated 1 comment.", CommitSHA: head})
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
		Body: "Add subtracts instead of adding.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	review := map[string]any{
		"action":       "submitted",
		"review":       map[string]any{"id": rid, "user": map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}, "commit_id": head, "state": "commented"},
		"pull_request": map[string]any{"number": 1, "head": map[string]any{"sha": head, "ref": "feature"}},
		"repository":   map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":       map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"},
	}
	_, err := w.cycle("pull_request_review", review, inputs)
	if err == nil {
		t.Fatalf("a failing setup-command did not fail the cycle\n%s", w.out.String())
	}
	if !strings.Contains(w.out.String()+err.Error(), "leaked-secret-42-SC5") {
		t.Errorf("the command's output is not in the job log either:\n%s", w.out.String())
	}
	st, body := statusState(t, w.fake)
	var record string
	for _, ev := range st.Events {
		if ev.Name == "iter-error" {
			record = ev.Detail
		}
	}
	if record == "" {
		t.Fatalf("no error record in the state:\n%s", body)
	}
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		if strings.Contains(c.Body, "leaked-secret-42-SC5") || strings.Contains(c.Body, "more-5-output") {
			t.Errorf("the command's output was published on the PR:\n%s", c.Body)
		}
	}
	for _, want := range []string{"setup-command", "exit status 3", "https://github.com/octo/app/actions/runs/77"} {
		if !strings.Contains(record, want) {
			t.Errorf("the error record %q lacks %q", record, want)
		}
	}
}
