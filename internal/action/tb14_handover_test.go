package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/secret"
)

const judgeLeakKey = "sk-ant-api03-tb14-judge-verdict-key-1c9"

// leakyJudge is a prompt-injected judge: its one NON_BLOCKING item quotes
// the key it runs with.
type leakyJudge struct{}

func (leakyJudge) Judge(context.Context, judge.Material) (judge.Result, error) {
	return judge.Result{Verdict: "NON_BLOCKING", Items: []judge.Item{{Summary: "As asked, the key is " + judgeLeakKey, Path: "calc/calc.go", Line: 4}}}, nil
}

// TB14: in hardened mode a judge verdict that holds a secret (a
// prompt-injected judge quoting its key) is not handed over: the prepare
// job hands over only that something was withheld, naming the input and
// what held it, and the publish job hands the PR back saying so. Nothing
// either job writes — the artifact, any request to GitHub — holds the key.
func TestRule_TB14_AJudgeVerdictHoldingASecretIsHandedBackNotLost(t *testing.T) {
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
	dir := t.TempDir()
	in := map[string]string{"engines": "claude", "non-blocking": "issue", "anthropic-api-key": judgeLeakKey, "mode": "prepare", "artifact-dir": dir}
	if _, err := w.cycleWith(leakyJudge{}, "workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatalf("the prepare job failed instead of handing over what it withheld: %v\n%s", err, w.out.String())
	}
	forms := secret.Forms(judgeLeakKey)
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			for _, f := range forms {
				if strings.Contains(string(b), f) {
					t.Errorf("the hand-over's %s holds the key (as %q)", filepath.Base(p), f)
				}
			}
		}
		return nil
	})
	in = map[string]string{"engines": "claude", "non-blocking": "issue", "mode": "publish", "artifact-dir": dir}
	if _, err := w.cycleWith(nil, "workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatalf("publish: %v\n%s", err, w.out.String())
	}
	for _, r := range w.fake.Requests() {
		for _, f := range forms {
			if strings.Contains(string(r.Body), f) || strings.Contains(r.Path+"?"+r.Query, f) {
				t.Errorf("%s %s sent the key (as %q) to GitHub", r.Method, r.Path, f)
			}
		}
	}
	_, body := statusState(t, w.fake)
	if !strings.Contains(body, "`anthropic-api-key`") || !strings.Contains(body, "TB14") || !strings.Contains(body, "judge") {
		t.Errorf("the status comment does not hand back naming the input and the judge's verdict:\n%s\n%s", body, w.out.String())
	}
}
