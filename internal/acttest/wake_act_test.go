package acttest

import (
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/action"
)

// ranJob reports whether the job started: act ran its first step, the
// stand-in for actions/checkout, or with no checkout step the link to
// this repository's action.
func ranJob(r actRun) bool {
	return strings.Contains(r.Output, "Success - Main Copy the PR checkout") ||
		strings.Contains(r.Output, "Success - Main Link this repository's action")
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
			// GitHub sends the labels the PR has, the new one included.
			"labels": append(w.labels(), map[string]any{"name": label}),
			"head":   map[string]any{"ref": "feature", "sha": head, "repo": map[string]any{"full_name": owner + "/" + repoName}},
			"base":   map[string]any{"ref": "main", "repo": map[string]any{"full_name": owner + "/" + repoName}},
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
	// The start label asks for a loop only from someone who may give the
	// start command (TB15): the maintainer who adds it may write.
	if err := w.fake.SetPermission(owner, repoName, "maintainer", "write"); err != nil {
		t.Fatal(err)
	}
	r = w.run("pull_request", labeledEvent(w, "review-loop"), runOptions{})
	r.mustSucceed(t)
	if _, st, ok := w.statusComment(); !ok || st.Status == "" {
		t.Errorf("the review-loop label started no loop (outputs %v):\n%s", r.Outputs, r.Output)
	}
}

// reviewEvent is the pull_request_review event of login's review of PR
// #1's head, with the labels the PR has.
func reviewEvent(w *world, login string) map[string]any {
	head := w.fake.HeadSHA(owner, repoName, 1)
	return map[string]any{
		"action": "submitted",
		"review": map[string]any{
			"id": 9001, "commit_id": head, "state": "commented",
			"user": map[string]any{"login": login, "type": "User"},
		},
		"pull_request": map[string]any{
			"number": 1, "state": "open", "labels": w.labels(),
			"head": map[string]any{"ref": "feature", "sha": head, "repo": map[string]any{"full_name": owner + "/" + repoName}},
			"base": map[string]any{"ref": "main", "repo": map[string]any{"full_name": owner + "/" + repoName}},
		},
		"repository": repository(),
		"sender":     map[string]any{"login": login, "type": "User"},
	}
}

// TestAct_AReviewOnAPRWithNoLoopStartsNoJob: under start-on: command a
// review on a PR with no loop is a wake review-loop skips; the example's
// job-level if: skips it before a runner starts. Once the loop runs (the
// PR carries review-loop:live) the same review runs the job.
func TestAct_AReviewOnAPRWithNoLoopStartsNoJob(t *testing.T) {
	w := newWorld(t)
	w.fake.ResetRequests()
	r := w.run("pull_request_review", reviewEvent(w, "maintainer"), runOptions{})
	r.mustSucceed(t)
	t.Logf("irrelevant wake (a review on a PR with no loop): %s wall", r.Wall)
	if n := len(w.fake.Requests()); n != 0 || ranJob(r) {
		t.Errorf("a review on a PR with no loop started the job (%d requests):\n%s", n, r.Output)
	}

	w.run("workflow_dispatch", dispatchEvent(1), runOptions{}).mustSucceed(t)
	if !slices.Contains(w.fake.PR(owner, repoName, 1).Labels, action.LiveLabel) {
		t.Fatalf("the loop's first cycle left no %s label", action.LiveLabel)
	}
	w.fake.ResetRequests()
	r = w.run("pull_request_review", reviewEvent(w, "maintainer"), runOptions{})
	r.mustSucceed(t)
	if n := len(w.fake.Requests()); n == 0 || !ranJob(r) {
		t.Errorf("a review on a PR with a live loop did not run the job (%d requests):\n%s", n, r.Output)
	}
}

// TestAct_AWaitingCycleClonesNothing: the example has no checkout step;
// a wake while the engines are still reviewing runs the job, reads the PR
// through the API and makes no git request at all.
func TestAct_AWaitingCycleClonesNothing(t *testing.T) {
	w := newWorld(t)
	w.run("workflow_dispatch", dispatchEvent(1), runOptions{}).mustSucceed(t)
	w.fake.ResetRequests()
	w.fake.ResetGitRequests()
	r := w.run("check_run", checkRunEvent(w, "cursor", "Cursor Bugbot"), runOptions{})
	r.mustSucceed(t)
	t.Logf("engine wake, loop waiting, no checkout step: %s wall, %d API requests", r.Wall, len(w.fake.Requests()))
	if got := r.Outputs["phase"]; got != "wait" {
		t.Errorf("phase = %q, want wait\n%s", got, r.Output)
	}
	if g := w.fake.GitRequests(); len(g) != 0 {
		t.Errorf("a waiting cycle made %d git requests, want none: %+v", len(g), g)
	}
}
