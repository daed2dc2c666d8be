package acttest

import (
	"strings"
	"testing"
)

// ranJob reports whether the job started: act ran its first step, the
// stand-in for actions/checkout.
func ranJob(r actRun) bool {
	return strings.Contains(r.Output, "Success - Main Copy the PR checkout")
}

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
	if ranJob(r) {
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

// labeledEvent is the pull_request event of a label added to PR #1.
func labeledEvent(w *world, label string) map[string]any {
	head := w.fake.HeadSHA(owner, repoName, 1)
	return map[string]any{
		"action": "labeled",
		"number": 1,
		"label":  map[string]any{"name": label},
		"pull_request": map[string]any{
			"number": 1, "state": "open",
			"head": map[string]any{"ref": "feature", "sha": head, "repo": map[string]any{"full_name": owner + "/" + repoName}},
			"base": map[string]any{"ref": "main", "repo": map[string]any{"full_name": owner + "/" + repoName}},
		},
		"repository": repository(),
		"sender":     map[string]any{"login": "maintainer", "type": "User"},
	}
}

// TestAct_TheStartLabelStartsALoopAndOtherLabelsStartNoJob: with the
// default start-on: command, adding the `review-loop` label starts a loop
// (the status comment appears); any other label starts no runner.
func TestAct_TheStartLabelStartsALoopAndOtherLabelsStartNoJob(t *testing.T) {
	w := newWorld(t)
	w.fake.ResetRequests()
	r := w.run("pull_request", labeledEvent(w, "bug"), runOptions{})
	r.mustSucceed(t)
	if n := len(w.fake.Requests()); n != 0 || ranJob(r) {
		t.Errorf("the label bug started the job (%d requests); it should have been skipped:\n%s", n, r.Output)
	}
	r = w.run("pull_request", labeledEvent(w, "review-loop"), runOptions{})
	r.mustSucceed(t)
	if _, st, ok := w.statusComment(); !ok || st.Status == "" {
		t.Errorf("the review-loop label started no loop (outputs %v):\n%s", r.Outputs, r.Output)
	}
}
