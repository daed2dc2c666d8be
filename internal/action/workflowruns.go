package action

import (
	"context"
	"strings"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/state"
)

// This file reads the workflow runs the engines watch (Claude's review
// workflow), at most one request per workflow file.

// engineTriggers is each engine's last trigger as the state records it,
// for adapters that must find the run a trigger started (engines.Env).
func engineTriggers(st state.State) map[string]engines.Trigger {
	out := make(map[string]engines.Trigger, len(st.EngineStates))
	for name, es := range st.EngineStates {
		if es.TriggeredSHA != "" {
			out[name] = engines.Trigger{SHA: es.TriggeredSHA, At: es.TriggeredAt, CommentID: es.SignalID}
		}
	}
	return out
}

// readWorkflowRuns reads the workflow runs the selected engines ask for
// (engines.RunWatcher) into the observation, one request per workflow
// file, and none when no engine asks: an idle wake does not grow. A
// failed read leaves the engine without its run (still TRIGGERED) and is
// logged; the cycle goes on. Each call reads afresh.
func (c *prCycle) readWorkflowRuns(ctx context.Context) {
	type key struct{ file, event string }
	seen := map[key]bool{}
	c.obs.WorkflowRuns = c.obs.WorkflowRuns[:0]
	for _, e := range c.selected {
		w, ok := e.(engines.RunWatcher)
		if !ok {
			continue
		}
		for _, q := range w.WorkflowRunQueries(c.obs, c.env) {
			k := key{q.File, q.Event}
			if seen[k] {
				continue
			}
			seen[k] = true
			if run, ok := wakeRun(c.wake, q); ok {
				// The workflow_run that woke us is this trigger's run:
				// no request.
				c.obs.WorkflowRuns = append(c.obs.WorkflowRuns, run)
				continue
			}
			runs, err := c.gh.ListWorkflowRuns(ctx, c.owner, c.repo, q.File, q.Event, q.Since)
			if err != nil {
				c.gha.Warningf("review-loop: %s: reading the runs of %s: %v", e.Name(), q.File, err)
				continue
			}
			c.obs.WorkflowRuns = append(c.obs.WorkflowRuns, runs...)
		}
	}
}

// wakeRun is the run of the workflow_run event that woke the cycle when
// it answers q: the same workflow file and event, created since the
// trigger, and completed (a completed run is the newest news of it; for a
// run still going the read tells more). Its pull_requests list is empty
// for comment-triggered runs, so it is matched by path and time.
func wakeRun(w event.Wake, q engines.RunQuery) (github.WorkflowRun, bool) {
	r := w.WorkflowRun
	if w.Event != "workflow_run" || r == nil || r.CreatedAt.IsZero() || !strings.EqualFold(r.Status, "completed") {
		return github.WorkflowRun{}, false
	}
	run := github.WorkflowRun{ID: r.ID, Name: r.Name, Path: r.Path, Event: r.Event, Status: r.Status, Conclusion: r.Conclusion,
		HeadSHA: r.HeadSHA, HeadBranch: r.HeadBranch, Actor: r.Actor, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, RunStartedAt: r.RunStartedAt}
	return run, q.Matches(run) && !strings.EqualFold(r.Conclusion, "skipped")
}
