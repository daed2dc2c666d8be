package action_test

import (
	"strings"
	"testing"
)

// Publish caps: a fix patch over max-patch-bytes is refused with a clear
// hand-back; nothing is pushed and the status comment names the cap.
func TestRule_TB10_AnOversizedPatchIsRefusedWithAHandBack(t *testing.T) {
	t.Parallel()
	oversized(t, newE2E(t))
}

// The same with no checkout step.
func TestRule_TB10_WithNoCheckoutStepAnOversizedPatchIsRefusedWithAHandBack(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.workspace, e.serverURL = t.TempDir(), e.fake.URL()
	oversized(t, e)
}

func oversized(t *testing.T, e *e2e) {
	t.Helper()
	inputs := map[string]string{"engines": "copilot", "max-patch-bytes": "64"}
	if r := e.run("workflow_dispatch", dispatch("1"), inputs); r.code != 0 {
		t.Fatalf("dispatch exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := e.run("pull_request_review", e.copilotSuggestion(t), inputs)
	if got := e.fake.HeadSHA("octo", "app", 1); got != e.head {
		t.Fatalf("a patch over max-patch-bytes was pushed\n%s\n%s", r.stdout, r.stderr)
	}
	if r.code != 0 {
		t.Errorf("exit %d, want a hand-back that exits 0\n%s", r.code, r.stderr)
	}
	status := e.statusComment(t)
	if !strings.Contains(status, "max-patch-bytes") {
		t.Errorf("the status comment does not name the cap:\n%s", status)
	}
}
