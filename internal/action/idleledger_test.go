package action

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// wake runs one cycle as a run of the loop's own workflow, as GitHub
// lists it: created when the event comes, titled by the examples'
// run-name, completed when the job ends.
func (w *world) wake(t *testing.T, id int64, in map[string]string) {
	t.Helper()
	run, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{NewID: id, Name: "review-loop", DisplayTitle: loop.RunTitle(1),
		Path: ".github/workflows/review-loop.yml", Event: "workflow_dispatch", Status: "in_progress", HeadSHA: w.fake.BranchSHA("octo", "app", "")})
	if err != nil {
		t.Fatal(err)
	}
	w.env["GITHUB_RUN_ID"] = strconv.FormatInt(id, 10)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(40 * time.Second)
	if _, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{ID: run, Status: "completed", Conclusion: "success"}); err != nil {
		t.Fatal(err)
	}
}

// ownRunReads counts the reads of the loop's own workflow's runs.
func (w *world) ownRunReads() int { return w.fake.WorkflowRunListReadsOf("review-loop.yml") }

// C5: the wakes that wrote nothing (C2) are counted by the next wake that
// writes, in one request per writing cycle: one job each, the other
// PRs' runs and a run skipped by its `if:` not counted; an idle wake
// still reads nothing but its observation.
func TestRule_C5_TheNextWriteCountsTheJobsOfIdleWakesInOneRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot", "stall-factor": "100"}
	w.wake(t, 501, in) // the loop's start: writes
	w.now = w.now.Add(3 * time.Minute)
	w.wake(t, 502, in) // the first wait is noted: writes
	// Another PR's wake and a run whose job its `if:` skipped.
	if _, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{NewID: 503, DisplayTitle: loop.RunTitle(2), Path: ".github/workflows/review-loop.yml",
		Event: "workflow_dispatch", Status: "completed", Conclusion: "success", HeadSHA: w.fake.BranchSHA("octo", "app", "")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{NewID: 504, DisplayTitle: loop.RunTitle(1), Path: ".github/workflows/review-loop.yml",
		Event: "issue_comment", Status: "completed", Conclusion: "skipped", HeadSHA: w.fake.BranchSHA("octo", "app", "")}); err != nil {
		t.Fatal(err)
	}
	_, before := statusState(t, w.fake)
	for i := range 3 {
		w.now = w.now.Add(4*time.Minute + 30*time.Second)
		w.fake.ResetRequests()
		w.wake(t, int64(505+i), in)
		if n := w.ownRunReads(); n != 0 {
			t.Errorf("idle wake %d read the workflow's runs %d times, want 0 (C2)", i, n)
		}
	}
	if _, after := statusState(t, w.fake); after != before {
		t.Fatalf("an idle wake wrote")
	}
	st, _ := statusState(t, w.fake)
	jobsBefore := st.Ledger.Jobs
	// Copilot's review: a wake that writes.
	head := w.fake.HeadSHA("octo", "app", 1)
	if _, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\ngenerated no comments.", CommitSHA: head}); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	w.fake.ResetRequests()
	w.wake(t, 510, in)
	if n := w.ownRunReads(); n != 1 {
		t.Errorf("the writing wake read the workflow's runs %d times, want 1", n)
	}
	st, body := statusState(t, w.fake)
	if got, want := st.Ledger.Jobs-jobsBefore, 3+1; got != want {
		t.Errorf("the write added %d jobs to the ledger, want %d: the 3 idle wakes and its own", got, want)
	}
	if st.Ledger.IdleJobs != 3 {
		t.Errorf("ledger idle jobs = %d, want 3", st.Ledger.IdleJobs)
	}
	if !strings.Contains(body, "3 jobs of wakes that wrote nothing") {
		t.Errorf("the ledger line does not count the idle wakes:\n%s", body)
	}
}

// C5 without `actions: read`: the runs cannot be read, and the ledger
// line says that the wakes that wrote nothing are not counted.
func TestRule_C5_WithoutActionsReadTheLedgerSaysIdleWakesAreNotCounted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.fake.Inject(ghfake.Fault{Match: "GET /repos/octo/app/actions/workflows/review-loop.yml/runs", Status: http.StatusForbidden, Message: "Resource not accessible by integration"})
	in := map[string]string{"engines": "copilot", "stall-factor": "100"}
	w.wake(t, 601, in)
	st, body := statusState(t, w.fake)
	if st.Ledger == nil || st.Ledger.IdleUncounted == "" {
		t.Fatalf("the ledger does not record why idle wakes are not counted: %+v", st.Ledger)
	}
	if !strings.Contains(body, "wakes that wrote nothing are not counted: the token cannot read Actions") {
		t.Errorf("the ledger line does not say idle wakes are not counted:\n%s", body)
	}
}
