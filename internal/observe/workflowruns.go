package observe

import (
	"context"
	"strings"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
)

// This file reads the workflow runs the engines watch (Claude's review
// workflow), at most one request per workflow file.

// WorkflowRuns reads the workflow runs the selected engines ask for
// (engines.RunWatcher), for Observation.WorkflowRuns: one request per
// workflow file, and none when no engine asks, so that an idle wake does
// not grow; the run of the workflow_run event that woke the cycle is read
// from the wake. A failed read leaves the engine without its run (still
// TRIGGERED) and is returned as a warning; the cycle goes on. Each call
// reads afresh.
func WorkflowRuns(ctx context.Context, gh *github.Client, owner, repo string, selected []engines.Engine, obs *github.Observation, env engines.Env, wake event.Wake) (runs []github.WorkflowRun, warnings []string) {
	type key struct{ file, event string }
	seen := map[key]bool{}
	for _, e := range selected {
		w, ok := e.(engines.RunWatcher)
		if !ok {
			continue
		}
		for _, q := range w.WorkflowRunQueries(obs, env) {
			k := key{q.File, q.Event}
			if seen[k] {
				continue
			}
			seen[k] = true
			if run, ok := wakeRun(wake, q); ok {
				// The workflow_run that woke us is this trigger's run:
				// no request.
				runs = append(runs, run)
				continue
			}
			read, err := gh.ListWorkflowRuns(ctx, owner, repo, q.File, q.Event, q.Since)
			if err != nil {
				warnings = append(warnings, e.Name()+": reading the runs of "+q.File+": "+err.Error())
				continue
			}
			runs = append(runs, read...)
		}
	}
	return runs, warnings
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
