package observe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/sim"
	"github.com/review-loop/review-loop/internal/state"
)

// S1: while an "@claude review once" trigger for the head awaits its run,
// Claude's workflow runs are read: one request per workflow file however
// many engines ask, none when the workflow_run that woke the cycle is
// that run, and a failed read is a warning returned, not an error.
func TestRule_S1_TheWorkflowRunsAnEngineWatchesAreReadOncePerFile(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	if err := r.fake.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.fake.PushCommit("octo", "app", "main", map[string]string{".github/workflows/claude.yml": sim.ClaudeCommentWorkflow}, "add claude"); err != nil {
		t.Fatal(err)
	}
	cid := r.comment("maintainer", "@claude review once")
	obs := r.observe()
	st := state.New()
	st.EngineStates = map[string]state.EngineState{claude.Name: {TriggeredSHA: obs.HeadSHA, TriggeredAt: r.now, SignalID: cid}}
	env := EngineEnv(obs, st, true, r.now)
	r.now = r.now.Add(5 * time.Second)
	run, err := r.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Name: "Claude Code", Path: ".github/workflows/claude.yml", Event: claude.CommentEvent,
		Status: "completed", Conclusion: "success", HeadSHA: r.fake.BranchSHA("octo", "app", "main"), HeadBranch: "main", Actor: "maintainer"})
	if err != nil {
		t.Fatal(err)
	}
	cl := claude.New(claude.Options{})
	twice := []engines.Engine{cl, cl}
	ctx := context.Background()

	r.fake.ResetRequests()
	runs, warnings := WorkflowRuns(ctx, r.gh, "octo", "app", twice, obs, env, event.Wake{})
	if len(runs) != 1 || runs[0].ID != run || len(warnings) != 0 {
		t.Fatalf("runs %+v warnings %q, want run %d", runs, warnings, run)
	}
	if n := r.fake.WorkflowRunListReads(); n != 1 {
		t.Errorf("%d reads of the workflow's runs, want 1", n)
	}

	read := runs[0]
	wake := event.Wake{Event: "workflow_run", WorkflowRun: &event.WorkflowRun{ID: read.ID, Name: read.Name, Path: read.Path, Event: read.Event,
		Status: read.Status, Conclusion: read.Conclusion, HeadSHA: read.HeadSHA, HeadBranch: read.HeadBranch, Actor: read.Actor,
		CreatedAt: read.CreatedAt, UpdatedAt: read.UpdatedAt, RunStartedAt: read.RunStartedAt}}
	r.fake.ResetRequests()
	runs, _ = WorkflowRuns(ctx, r.gh, "octo", "app", twice, obs, env, wake)
	if len(runs) != 1 || runs[0].ID != run || r.fake.WorkflowRunListReads() != 0 {
		t.Errorf("runs %+v after %d reads, want run %d from the wake and no read", runs, r.fake.WorkflowRunListReads(), run)
	}

	r.fake.Inject(ghfake.Fault{Match: "GET /repos/octo/app/actions/workflows/claude.yml/runs", Status: 500, Message: "boom"})
	runs, warnings = WorkflowRuns(ctx, r.gh, "octo", "app", twice, obs, env, event.Wake{})
	if len(runs) != 0 || len(warnings) != 1 || !strings.HasPrefix(warnings[0], "claude: reading the runs of .github/workflows/claude.yml: ") {
		t.Errorf("runs %+v warnings %q, want no run and one warning naming the engine and the file", runs, warnings)
	}

	none := []engines.Engine{cl}
	r.fake.ResetRequests()
	if runs, _ := WorkflowRuns(ctx, r.gh, "octo", "app", none, obs, EngineEnv(obs, state.New(), true, r.now), event.Wake{}); len(runs) != 0 || len(r.fake.Requests()) != 0 {
		t.Errorf("with no trigger awaiting its run: runs %+v, %d requests; want none", runs, len(r.fake.Requests()))
	}
	if tr, ok := env.Triggers[claude.Name]; !ok || len(env.Triggers) != 1 || tr.CommentID != cid || tr.SHA != obs.HeadSHA {
		t.Errorf("triggers of the env %+v, want claude's trigger of comment %d alone", env.Triggers, cid)
	}
}
