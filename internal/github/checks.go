package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// CheckRunWrite is a check run's status and output, as review-loop
// publishes its own check run (the merge gate).
type CheckRunWrite struct {
	Name    string
	HeadSHA string // create only
	// Status is "in_progress" or "completed"; Conclusion is set when
	// completed (success, failure, neutral).
	Status     string
	Conclusion string
	Title      string
	Summary    string
	DetailsURL string
	// At is when the status was reached (started_at on create,
	// completed_at when completed).
	At time.Time
}

func (w CheckRunWrite) output() *gh.CheckRunOutput {
	return &gh.CheckRunOutput{Title: gh.String(w.Title), Summary: gh.String(w.Summary)}
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return gh.String(s)
}

// CreateCheckRun creates a check run on a commit and returns its id. Only
// a GitHub App token (the Actions GITHUB_TOKEN is one) may create one.
// https://docs.github.com/en/rest/checks/runs#create-a-check-run
func (c *Client) CreateCheckRun(ctx context.Context, owner, repo string, w CheckRunWrite) (int64, error) {
	o := gh.CreateCheckRunOptions{Name: w.Name, HeadSHA: w.HeadSHA, Status: gh.String(w.Status), Conclusion: optString(w.Conclusion),
		DetailsURL: optString(w.DetailsURL), Output: w.output()}
	if !w.At.IsZero() {
		o.StartedAt = &gh.Timestamp{Time: w.At}
		if w.Conclusion != "" {
			o.CompletedAt = &gh.Timestamp{Time: w.At}
		}
	}
	cr, resp, err := c.rest.Checks.CreateCheckRun(ctx, owner, repo, o)
	if err != nil {
		return 0, fmt.Errorf("creating check run %q on %s in %s/%s: %w", w.Name, w.HeadSHA, owner, repo, restErr("POST /repos/{owner}/{repo}/check-runs", resp, err))
	}
	return cr.GetID(), nil
}

// UpdateCheckRun updates the status, conclusion and output of a check run
// this token created.
// https://docs.github.com/en/rest/checks/runs#update-a-check-run
func (c *Client) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, w CheckRunWrite) error {
	o := gh.UpdateCheckRunOptions{Name: w.Name, Status: gh.String(w.Status), Conclusion: optString(w.Conclusion),
		DetailsURL: optString(w.DetailsURL), Output: w.output()}
	if w.Conclusion != "" && !w.At.IsZero() {
		o.CompletedAt = &gh.Timestamp{Time: w.At}
	}
	_, resp, err := c.rest.Checks.UpdateCheckRun(ctx, owner, repo, id, o)
	if err != nil {
		return fmt.Errorf("updating check run %d in %s/%s: %w", id, owner, repo, restErr("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", resp, err))
	}
	return nil
}
