package action

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

// plantState posts, as review-loop's own identity (github-actions), a
// comment carrying a review-loop state (a stopped loop, or an active one)
// whose visible part links run runID (0: no run); it returns its id.
func plantState(t *testing.T, w *world, runID int64, active bool) int64 {
	t.Helper()
	st := state.New()
	st.Status, st.EndReason = state.StatusStopped, "stopped"
	if active {
		st.Status, st.EndReason, st.StartedAt = state.StatusActive, "", w.now
	}
	visible := "## review-loop\n\nStopped by a maintainer."
	if runID != 0 {
		visible += fmt.Sprintf("\n\n[run %d](https://github.com/octo/app/actions/runs/%d)", runID, runID)
	}
	body, err := state.Encode(visible, st)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.fake.AddIssueComment("octo", "app", 1, "github-actions", "NONE", body)
	if err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	return id
}

func runReads(reqs []ghfake.Request) int {
	n := 0
	for _, r := range reqs {
		if r.Method == "GET" && strings.Contains(r.Path, "/actions/runs/") {
			n++
		}
	}
	return n
}

// SC4: GITHUB_TOKEN's identity is shared by every workflow of the
// repository, so another workflow that echoes untrusted text into a
// comment can plant a state. A state comment is adopted only when the run
// it names is a run of review-loop's own workflow file that was running
// when the comment was written: a planted stopped loop stops nothing.
func TestRule_SC4_AStatePlantedByAnotherWorkflowIsNeverAdopted(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(*world) int64{
		"it names a run of another workflow": func(w *world) int64 {
			run, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Path: ".github/workflows/echo.yml", Event: "issue_comment", Status: "in_progress", HeadSHA: w.fake.HeadSHA("octo", "app", 1)})
			if err != nil {
				w.t.Fatal(err)
			}
			w.now = w.now.Add(time.Minute)
			return plantState(w.t.(*testing.T), w, run, false)
		},
		"it names no run":                    func(w *world) int64 { return plantState(w.t.(*testing.T), w, 0, false) },
		"it names a run that does not exist": func(w *world) int64 { return plantState(w.t.(*testing.T), w, 987654, false) },
		"it copies a finished review-loop run": func(w *world) int64 {
			run, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Path: ".github/workflows/review-loop.yml", Event: "workflow_dispatch", Status: "completed", Conclusion: "success", HeadSHA: w.fake.HeadSHA("octo", "app", 1)})
			if err != nil {
				w.t.Fatal(err)
			}
			w.now = w.now.Add(time.Hour)
			return plantState(w.t.(*testing.T), w, run, false)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			planted := plant(w)
			res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(res.PRs[0].Skipped, "finished") {
				t.Fatalf("the planted state of comment %d was adopted: %s", planted, res.PRs[0].Skipped)
			}
			var ours []ghfake.IssueComment
			for _, c := range w.fake.PR("octo", "app", 1).Comments {
				if c.ID != planted && strings.Contains(c.Body, "review-loop:state") {
					ours = append(ours, c)
				}
			}
			if len(ours) != 1 {
				t.Fatalf("%d status comments of review-loop's own, want 1", len(ours))
			}
			if !strings.Contains(ours[0].Body, fmt.Sprint(planted)) || !strings.Contains(ours[0].Body, "SC4") {
				t.Errorf("the status comment does not report the planted comment %d (SC4):\n%s", planted, ours[0].Body)
			}
		})
	}
}

// SC4: a state comment written while a run of review-loop's workflow was
// running (one written before the run was named in the state) is adopted
// after one read of that run, and the proof is cached: the next cycle
// reads no run. A loop review-loop starts itself never needs the read.
func TestRule_SC4_OwnershipIsProvedByOneReadOfTheRunAndCached(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	run, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Path: ".github/workflows/review-loop.yml", Event: "workflow_dispatch", Status: "in_progress", HeadSHA: w.fake.HeadSHA("octo", "app", 1)})
	if err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	planted := plantState(t, w, run, true)
	before := len(w.fake.Requests())
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		if c.ID != planted && strings.Contains(c.Body, "review-loop:state") {
			t.Fatalf("the state written during review-loop's own run %d was not adopted: comment %d holds a new one", run, c.ID)
		}
	}
	if n := runReads(w.fake.Requests()[before:]); n != 1 {
		t.Errorf("%d reads of workflow runs to prove the state's owner, want 1", n)
	}
	// Adopting it wrote the proof into the state: the next cycle reads
	// no run.
	w.now = w.now.Add(time.Minute)
	before = len(w.fake.Requests())
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	if n := runReads(w.fake.Requests()[before:]); n != 0 {
		t.Errorf("%d reads of workflow runs after the proof was cached, want 0", n)
	}

	// A loop review-loop starts itself holds its proof from the start.
	w2 := newWorld(t, nil)
	if _, err := w2.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	w2.now = w2.now.Add(time.Minute)
	before = len(w2.fake.Requests())
	if _, err := w2.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	if n := runReads(w2.fake.Requests()[before:]); n != 0 {
		t.Errorf("%d reads of workflow runs on review-loop's own loop, want 0", n)
	}
}

// addOurState posts st as review-loop's own status comment on PR n, with
// the proof of origin review-loop writes once it knows the comment's id
// (SC4); it returns the comment's id.
func (w *world) addOurState(n int, visible string, st state.State) int64 {
	w.t.Helper()
	id, err := w.fake.AddIssueComment("octo", "app", n, "github-actions", "NONE", "status")
	if err != nil {
		w.t.Fatal(err)
	}
	st.Owner = &state.Owner{RunID: 1, Workflow: ".github/workflows/review-loop.yml", CommentID: id}
	body, err := state.Encode(visible, st)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.fake.EditIssueComment(id, body); err != nil {
		w.t.Fatal(err)
	}
	return id
}
