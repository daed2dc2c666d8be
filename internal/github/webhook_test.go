package github_test

import (
	"os"
	"path/filepath"
	"testing"

	gh "github.com/google/go-github/v62/github"

	"github.com/review-loop/review-loop/internal/contract"
)

// TestWebhookExamplesParseIntoGoGitHubEvents reads octokit's recorded
// payloads in place and parses each into go-github's event type.
func TestWebhookExamplesParseIntoGoGitHubEvents(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(contract.SharedDir(t), "webhooks")
	events := map[string]string{
		"check_run": "check_run", "check_suite": "check_suite", "issue_comment": "issue_comment",
		"pull_request": "pull_request", "pull_request_review": "pull_request_review",
		"pull_request_review_comment": "pull_request_review_comment", "pull_request_review_thread": "pull_request_review_thread",
		"push": "push", "workflow_dispatch": "workflow_dispatch", "workflow_run": "workflow_run",
	}
	// Payloads go-github cannot parse, with the reason; internal/event must
	// tolerate them (or decode the fields it needs itself).
	knownBad := map[string]string{
		"check_run/rerequested.json": `timestamps without a zone ("2018-04-25 20:42:10") are not RFC 3339`,
	}
	for folder, event := range events {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*.json"))
		if len(files) == 0 {
			t.Errorf("no examples in %s", folder)
		}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := gh.ParseWebHook(event, b)
			rel := folder + "/" + filepath.Base(p)
			if why, bad := knownBad[rel]; bad {
				if err == nil {
					t.Errorf("%s now parses; drop it from knownBad (%s)", rel, why)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			switch e := ev.(type) {
			case *gh.CheckRunEvent:
				if e.GetCheckRun().GetID() == 0 {
					t.Errorf("%s: no check run id", p)
				}
			case *gh.PullRequestReviewEvent:
				if e.GetReview().GetID() == 0 || e.GetPullRequest().GetNumber() == 0 {
					t.Errorf("%s: review or PR missing", p)
				}
			case *gh.IssueCommentEvent:
				if e.GetComment().GetID() == 0 {
					t.Errorf("%s: no comment id", p)
				}
			case *gh.PullRequestEvent:
				if e.GetPullRequest().GetHead().GetSHA() == "" {
					t.Errorf("%s: no head sha", p)
				}
			}
		}
	}
}
