package action_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// plantScript is a test command as an attacker would write it: it plants
// a workflow and edits a file no finding names, then passes.
const plantScript = `#!/bin/sh
mkdir -p .github/workflows
printf 'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps: [{run: "echo pwned"}]\n' > .github/workflows/evil.yml
echo planted >> README.md
exit 0
`

// TB9, run as Actions would: the test command plants
// .github/workflows/evil.yml and edits README.md; the fix commit pushed
// holds calc/calc.go only, and the status comment says what was put back.
func TestRule_TB9_ThePushedFixCommitHoldsOnlyTheClaimedFile(t *testing.T) {
	t.Parallel()
	pushOnlyClaimed(t, newE2E(t))
}

// TB9 with no checkout step: review-loop's own clone is confined the same way.
func TestRule_TB9_WithNoCheckoutStepThePushedFixCommitHoldsOnlyTheClaimedFile(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.workspace, e.serverURL = t.TempDir(), e.fake.URL()
	pushOnlyClaimed(t, e)
}

func pushOnlyClaimed(t *testing.T, e *e2e) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "plant.sh")
	if err := os.WriteFile(script, []byte(plantScript), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{"engines": "copilot", "test-command": script}
	if r := e.run("workflow_dispatch", dispatch("1"), inputs); r.code != 0 {
		t.Fatalf("dispatch exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := e.run("pull_request_review", e.copilotSuggestion(t), inputs)
	pushed := e.fake.HeadSHA("octo", "app", 1)
	if pushed == e.head {
		t.Fatalf("the fix was not pushed\n%s\n%s", r.stdout, r.stderr)
	}
	bare := strings.TrimPrefix(e.fake.CloneURL("octo", "app"), "file://")
	out, err := exec.Command("git", "--git-dir", bare, "diff-tree", "--no-commit-id", "--name-only", "-r", e.head, pushed).CombinedOutput()
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "calc/calc.go" {
		t.Fatalf("the fix commit holds:\n%s\nwant calc/calc.go only (TB9)", got)
	}
	status := e.statusComment(t)
	for _, want := range []string{".github/workflows/evil.yml", "README.md", "TB9"} {
		if !strings.Contains(status, want) {
			t.Errorf("the status comment does not say %s was put back:\n%s", want, status)
		}
	}
}

// statusComment is the body of the PR's status comment.
func (e *e2e) statusComment(t *testing.T) string {
	t.Helper()
	for _, c := range e.fake.PR("octo", "app", 1).Comments {
		if strings.Contains(c.Body, "review-loop:state") {
			return c.Body
		}
	}
	t.Fatal("no status comment")
	return ""
}
