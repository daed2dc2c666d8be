package acttest

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAct_DoctorExampleChecksTheRepositoryAndWritesNothing runs
// docs/examples/doctor.yml through act against the fake: the job prints
// the checklist, fails on what the fake repository lacks (no review-loop
// workflow on its default branch, no secrets passed) with the fix, and
// sends no write request.
func TestAct_DoctorExampleChecksTheRepositoryAndWritesNothing(t *testing.T) {
	w := newWorld(t)
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "examples", "doctor.yml"))
	if err != nil {
		t.Fatal(err)
	}
	w.example = b
	w.fake.ResetRequests()
	r := w.run("workflow_dispatch", dispatchEvent(1), runOptions{})
	if r.Err == nil {
		t.Errorf("doctor passed on a repository without the workflow:\n%s", r.Output)
	}
	for _, want := range []string{"review-loop doctor: " + owner + "/" + repoName, "[ ] workflow on the default branch", "fix: copy docs/examples/review-loop-hardened.yml",
		"[x] engines seen", "copilot (seen on PR #2)"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("doctor's log lacks %q:\n%s", want, r.Output)
		}
	}
	for _, q := range w.fake.Requests() {
		if q.Method != http.MethodGet && q.Operation != "query" {
			t.Errorf("doctor wrote: %+v", q)
		}
	}
}
