package action

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/sim"
	"github.com/review-loop/review-loop/internal/state"
)

// After an "@claude review once" trigger for the head, Claude's run is a
// workflow run on the default branch's head (GitHub docs, issue_comment
// runs on the last commit of the default branch): the cycle reads the
// Claude workflow's issue_comment runs, one request, and only while that
// trigger awaits its run; a wake with no such trigger reads none.
func TestRule_S1_claudeWorkflowRunsAreReadOnlyWhileACommentTriggerAwaitsItsRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if err := w.fake.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.PushCommit("octo", "app", "main", map[string]string{".github/workflows/claude.yml": sim.ClaudeCommentWorkflow}, "add claude"); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	mainSHA := w.fake.BranchSHA("octo", "app", "main")
	cid, err := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "@claude review once")
	if err != nil {
		t.Fatal(err)
	}
	saved := func(es state.EngineState) {
		t.Helper()
		st := state.New()
		st.Status, st.Engines = state.StatusActive, []string{"claude"}
		st.EngineStates = map[string]state.EngineState{"claude": es}
		for _, c := range w.fake.PR("octo", "app", 1).Comments {
			if _, found, _ := state.Decode(c.Body); found {
				st.Owner = &state.Owner{RunID: 1, CommentID: c.ID}
				body, err := state.Encode("status", st)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.fake.EditIssueComment(c.ID, body); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		w.addOurState(1, "status", st)
	}
	inputs := map[string]string{"engines": "claude", "trigger-token": "ghp_maintainer"}
	claudeState := func(t *testing.T) loop.ReviewState {
		t.Helper()
		w.fake.ResetRequests()
		res, err := w.cycle("workflow_dispatch", dispatchPayload(1), inputs)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.PRs[0].Plan.Engines {
			if e.Engine == "claude" {
				return e.State
			}
		}
		t.Fatalf("no claude in %+v", res.PRs[0].Plan.Engines)
		return ""
	}

	t.Run("a trigger for another head reads no runs", func(t *testing.T) {
		saved(state.EngineState{TriggeredSHA: "0000000000000000000000000000000000000000", TriggeredAt: w.now, SignalID: cid, FirstReviewSeen: true})
		claudeState(t)
		if n := w.fake.WorkflowRunListReadsOf("claude.yml"); n != 0 {
			t.Fatalf("%d workflow-run reads, want 0", n)
		}
	})
	trigger := state.EngineState{TriggeredSHA: head, TriggeredAt: w.now, SignalID: cid, FirstReviewSeen: true, WaitSHA: head, WaitSince: w.now}
	t.Run("no run yet: one read, TRIGGERED", func(t *testing.T) {
		saved(trigger)
		if got := claudeState(t); got != loop.Triggered {
			t.Fatalf("claude %s, want TRIGGERED", got)
		}
		if n := w.fake.WorkflowRunListReadsOf("claude.yml"); n != 1 {
			t.Fatalf("%d workflow-run reads, want 1", n)
		}
	})
	w.now = w.now.Add(5 * time.Second)
	id, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Name: "Claude Code", Path: ".github/workflows/claude.yml", Event: "issue_comment",
		Status: "in_progress", HeadSHA: mainSHA, HeadBranch: "main", Actor: "maintainer"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the run on the default branch's head in progress: RUNNING", func(t *testing.T) {
		saved(trigger)
		if got := claudeState(t); got != loop.Running {
			t.Fatalf("claude %s, want RUNNING", got)
		}
		if n := w.fake.WorkflowRunListReadsOf("claude.yml"); n != 1 {
			t.Fatalf("%d workflow-run reads, want 1", n)
		}
	})
	w.now = w.now.Add(2 * time.Minute)
	if _, err := w.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{ID: id, Status: "completed", Conclusion: "success"}); err != nil {
		t.Fatal(err)
	}
	t.Run("the completed run: DONE", func(t *testing.T) {
		saved(trigger)
		if got := claudeState(t); got != loop.Done {
			t.Fatalf("claude %s, want DONE", got)
		}
	})
	// Its workflow_run event names no PR (pull_requests is empty, head_sha
	// is the default branch's): the wake visits the live loops, and the
	// loop waiting for this run reads it from the payload, no request.
	t.Run("the workflow_run of the comment-triggered run wakes the live loop, which reads it from the payload", func(t *testing.T) {
		saved(trigger)
		runs := w.fake.WorkflowRuns("octo", "app")
		r := runs[len(runs)-1]
		payload := map[string]any{
			"action":   "completed",
			"workflow": map[string]any{"name": "Claude Code", "path": ".github/workflows/claude.yml"},
			"workflow_run": map[string]any{"id": r.ID, "name": "Claude Code", "path": ".github/workflows/claude.yml", "event": "issue_comment",
				"status": "completed", "conclusion": "success", "head_sha": mainSHA, "head_branch": "main", "pull_requests": []any{},
				"created_at": r.CreatedAt.Format(time.RFC3339), "updated_at": r.UpdatedAt.Format(time.RFC3339),
				"run_started_at": r.RunStartedAt.Format(time.RFC3339), "actor": map[string]any{"login": "maintainer", "type": "User"}},
			"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
			"sender":     map[string]any{"login": "github-actions[bot]", "type": "Bot"},
		}
		// A live loop carries the live label (the sweep's index).
		if err := w.fake.AddLabel("octo", "app", 1, LiveLabel); err != nil {
			t.Fatal(err)
		}
		w.fake.ResetRequests()
		res, err := w.cycle("workflow_run", payload, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.PRs) != 1 || res.PRs[0].PR != 1 {
			t.Fatalf("PRs %+v, want the live loop of PR #1", res.PRs)
		}
		var got loop.ReviewState
		for _, e := range res.PRs[0].Plan.Engines {
			if e.Engine == "claude" {
				got = e.State
			}
		}
		if got != loop.Done {
			t.Fatalf("claude %s, want DONE", got)
		}
		if n := w.fake.WorkflowRunListReadsOf("claude.yml"); n != 0 {
			t.Fatalf("%d workflow-run reads, want 0: the payload is the run", n)
		}
	})
}
