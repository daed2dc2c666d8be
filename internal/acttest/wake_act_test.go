package acttest

import (
	"strings"
	"testing"
)

// checkRunEvent is the check_run event GitHub sends when app's check run
// named name completes on PR #1's head.
func checkRunEvent(w *world, app, name string) map[string]any {
	head := w.fake.HeadSHA(owner, repoName, 1)
	return map[string]any{
		"action": "completed",
		"check_run": map[string]any{
			"id": 7001, "name": name, "head_sha": head, "status": "completed", "conclusion": "success",
			"app": map[string]any{"slug": app, "name": app},
			"pull_requests": []any{map[string]any{
				"number": 1,
				"head":   map[string]any{"ref": "feature", "sha": head},
				"base":   map[string]any{"ref": "main"},
			}},
		},
		"repository": repository(),
		"sender":     map[string]any{"login": app + "[bot]", "type": "Bot"},
	}
}

// TestAct_ACIJobsCheckRunStartsNoJob: a third-party CI's check run (app
// circleci) completing on the PR is no engine signal; the example's
// job-level if: skips the job, so no runner starts, nothing is checked out
// and review-loop makes no request. Bugbot's check run still runs the job.
func TestAct_ACIJobsCheckRunStartsNoJob(t *testing.T) {
	w := newWorld(t)
	w.fake.ResetRequests()
	r := w.run("check_run", checkRunEvent(w, "circleci", "build (ubuntu)"), runOptions{})
	r.mustSucceed(t)
	t.Logf("irrelevant wake (CI check run): %s wall", r.Wall)
	if n := len(w.fake.Requests()); n != 0 {
		t.Errorf("a CI job's check run made %d requests to GitHub; the job should have been skipped:\n%s", n, r.Output)
	}
	if strings.Contains(r.Output, "Copy the PR checkout") && strings.Contains(r.Output, "✅  Success - Main Copy the PR checkout") {
		t.Errorf("the job checked out for a CI job's check run:\n%s", r.Output)
	}

	w.fake.ResetRequests()
	r = w.run("check_run", checkRunEvent(w, "cursor", "Cursor Bugbot"), runOptions{})
	r.mustSucceed(t)
	t.Logf("engine wake (Bugbot check run, no loop): %s wall", r.Wall)
	if n := len(w.fake.Requests()); n == 0 {
		t.Errorf("Bugbot's check run made no request: the filter drops engine signals too:\n%s", r.Output)
	}
}
