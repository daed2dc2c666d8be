package action_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

// SC4, run as Actions would: another workflow of the repository, posting
// as github-actions, plants a stopped loop's state that names one of its
// own runs. review-loop does not adopt it: the loop starts in a status
// comment of its own, which reports the planted one.
func TestRule_SC4_AStatePlantedByAnotherWorkflowStopsNothing(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	run, err := e.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Path: ".github/workflows/echo.yml", Event: "issue_comment", Status: "in_progress", HeadSHA: e.head})
	if err != nil {
		t.Fatal(err)
	}
	st := state.New()
	st.Status, st.EndReason = state.StatusStopped, "stopped"
	body, err := state.Encode("## review-loop\n\nStopped.\n\n[run](https://github.com/octo/app/actions/runs/"+strconv.FormatInt(run, 10)+")", st)
	if err != nil {
		t.Fatal(err)
	}
	planted, err := e.fake.AddIssueComment("octo", "app", 1, "github-actions", "NONE", body)
	if err != nil {
		t.Fatal(err)
	}
	r := e.run("workflow_dispatch", dispatch("1"), map[string]string{"engines": "copilot"})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var ours string
	for _, c := range e.fake.PR("octo", "app", 1).Comments {
		if c.ID != planted && strings.Contains(c.Body, "review-loop:state") {
			ours = c.Body
		}
	}
	if ours == "" {
		t.Fatalf("the planted state of comment %d was adopted: no status comment of review-loop's own\n%s", planted, r.stdout)
	}
	if !strings.Contains(ours, strconv.FormatInt(planted, 10)) || !strings.Contains(ours, "SC4") {
		t.Errorf("the status comment does not report the planted comment:\n%s", ours)
	}
}
