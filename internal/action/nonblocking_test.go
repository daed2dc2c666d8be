package action

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/loop"
)

// nonBlockingJudge answers NON_BLOCKING with one item, whatever it reads.
type nonBlockingJudge struct{}

func (nonBlockingJudge) Judge(context.Context, judge.Material) (judge.Result, error) {
	return judge.Result{Verdict: loop.JudgeNonBlocking, Items: []judge.Item{{Summary: "Name the helper after what it returns", Path: "calc/calc.go", Line: 4}}}, nil
}

// TestRule_J5_NonBlockingItemsAreFiledAsIssues: a prose engine judged
// NON_BLOCKING counts as clean (J2) and, with `non-blocking: issue`, each
// item is filed once as a follow-up issue and linked from the report.
func TestRule_J5_NonBlockingItemsAreFiledAsIssues(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if err := w.fake.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.PushCommit("octo", "app", "main", map[string]string{".github/workflows/claude-review.yml": "jobs:\n  claude-review:\n    steps:\n      - uses: anthropics/claude-code-action@v1\n        with:\n          prompt: /code-review --comment\n"}, "add the Claude workflow"); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	if _, err := w.fake.SetCheckRun("octo", "app", 1, ghfake.CheckRunOptions{Name: "claude-review", AppSlug: "github-actions", Status: "COMPLETED", Conclusion: "SUCCESS"}); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	if _, err := w.fake.AddIssueComment("octo", "app", 1, "claude", "NONE", "## Code review\n\nOne optional point: the helper's name could say what it returns."); err != nil {
		t.Fatal(err)
	}
	run := func() Result {
		t.Helper()
		res, err := w.cycleWith(nonBlockingJudge{}, "workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "claude", "non-blocking": "issue"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run()
	if res.PRs[0].Plan.Action != loop.ActionHandBack || res.PRs[0].Plan.EndReason != loop.EndClean {
		t.Fatalf("plan %s %s: NON_BLOCKING should count as clean (J2)\n%s", res.PRs[0].Plan.Action, res.PRs[0].Plan.EndReason, w.out.String())
	}
	issues := w.fake.Issues("octo", "app")
	if len(issues) != 1 || !strings.Contains(issues[0].Title, "Name the helper") {
		t.Fatalf("issues = %+v", issues)
	}
	st, body := statusState(t, w.fake)
	if !strings.Contains(body, "Name the helper") {
		t.Errorf("the report does not list the non-blocking item:\n%s", body)
	}
	// The issue's URL is kept with the item and shown (J5: the reviewer
	// sees it is tracked), in the status comment and the JSON report.
	url := issues[0].URL
	if len(st.NonBlocking) != 1 || st.NonBlocking[0].Issue != url {
		t.Errorf("state items %+v, want the issue URL %s kept", st.NonBlocking, url)
	}
	if !strings.Contains(body, "tracked in "+url) {
		t.Errorf("the status comment does not link the issue %s:\n%s", url, body)
	}
	raw, err := os.ReadFile(res.PRs[0].Outputs["report-json"])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"issue":"`+url+`"`) && !strings.Contains(string(raw), `"issue": "`+url+`"`) {
		t.Errorf("the JSON report has no issue field for the item:\n%s", raw)
	}
	// A later wake on the finished loop files nothing twice.
	run()
	if n := len(w.fake.Issues("octo", "app")); n != 1 {
		t.Errorf("issues after a second wake = %d, want 1", n)
	}
}
