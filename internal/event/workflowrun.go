package event

import "time"

// WorkflowRun is the run a workflow_run event reports, as far as the loop
// reads it. A run started by an issue comment runs on the default
// branch's head with an empty pull_requests list (GitHub docs, "Events
// that trigger workflows"): nothing in it names the PR, so its wake
// visits the live loops (RunNamesNoPR) and each matches the run to its
// own trigger by workflow path, event and time.
type WorkflowRun struct {
	ID           int64
	Name         string
	Path         string // the workflow file, ".github/workflows/claude.yml"
	Event        string // the event that started the run: pull_request, issue_comment, ...
	Status       string
	Conclusion   string
	HeadSHA      string
	HeadBranch   string
	Actor        string
	CreatedAt    time.Time // zero when the payload's time is unreadable
	UpdatedAt    time.Time
	RunStartedAt time.Time
}

func workflowRunOf(wf *workflow, run *workflowRun) *WorkflowRun {
	if run == nil {
		return nil
	}
	p := run.Path
	if wf != nil && wf.Path != "" {
		p = wf.Path
	}
	at := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return time.Time{}
		}
		return t
	}
	out := &WorkflowRun{ID: run.ID, Name: run.Name, Path: p, Event: run.Event, Status: run.Status, Conclusion: run.Conclusion,
		HeadSHA: run.HeadSHA, HeadBranch: run.HeadBranch, CreatedAt: at(run.CreatedAt), UpdatedAt: at(run.UpdatedAt), RunStartedAt: at(run.RunStartedAt)}
	if run.Actor != nil {
		out.Actor = run.Actor.Login
	}
	return out
}

// RunNamesNoPR reports whether the wake is a completed, not skipped run
// started by an issue comment whose payload lists no PR: a comment-
// triggered run on the default branch's head, which only the loops
// waiting for it can claim.
func (w Wake) RunNamesNoPR() bool {
	r := w.WorkflowRun
	return w.Kind == KindEngineSignal && r != nil && len(w.PRs) == 0 && r.Event == "issue_comment" && r.Conclusion != "skipped"
}
