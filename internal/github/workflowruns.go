package github

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// WorkflowRun is one GitHub Actions workflow run. Status and Conclusion
// are in REST spelling (queued, in_progress, completed; success, failure,
// skipped, ...).
type WorkflowRun struct {
	ID           int64
	Name         string
	DisplayTitle string // display_title: the workflow's run-name, else the event's title
	Path         string // the workflow file read (go-github v62 has no run path)
	Event        string // pull_request, issue_comment, ...
	Status       string
	Conclusion   string // "" while running
	HeadSHA      string // for issue_comment runs: the default branch's head
	HeadBranch   string
	Actor        string // REST login of the user whose action started the run
	PRs          []int  // pull_requests; empty for runs on the default branch
	CreatedAt    time.Time
	UpdatedAt    time.Time
	RunStartedAt time.Time
}

// workflowRunsPage is how many runs one read asks for: the runs created
// since one trigger comment, usually one or two (every comment on the
// repository starts a run of an issue_comment workflow, most skipped).
const workflowRunsPage = 30

// ListWorkflowRuns reads the runs of one workflow file started by event
// and created at or after since, newest first (one page: the newest
// workflowRunsPage runs). file is the workflow's file name or path
// (".github/workflows/claude.yml"); the request names its base name.
//
// https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
func (c *Client) ListWorkflowRuns(ctx context.Context, owner, repo, file, event string, since time.Time) ([]WorkflowRun, error) {
	name := path.Base(file)
	opts := &gh.ListWorkflowRunsOptions{Event: event, ListOptions: gh.ListOptions{PerPage: workflowRunsPage}}
	if !since.IsZero() {
		opts.Created = ">=" + since.UTC().Format(time.RFC3339)
	}
	runs, resp, err := c.rest.Actions.ListWorkflowRunsByFileName(ctx, owner, repo, name, opts)
	if err != nil {
		return nil, fmt.Errorf("listing %s runs of %s in %s/%s: %w", event, name, owner, repo, restErr("GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs", resp, err))
	}
	out := make([]WorkflowRun, 0, len(runs.WorkflowRuns))
	for _, r := range runs.WorkflowRuns {
		wr := WorkflowRun{ID: r.GetID(), Name: r.GetName(), DisplayTitle: r.GetDisplayTitle(), Path: file, Event: r.GetEvent(), Status: r.GetStatus(),
			Conclusion: r.GetConclusion(), HeadSHA: r.GetHeadSHA(), HeadBranch: r.GetHeadBranch(), Actor: r.GetActor().GetLogin(),
			CreatedAt: r.GetCreatedAt().Time, UpdatedAt: r.GetUpdatedAt().Time, RunStartedAt: r.GetRunStartedAt().Time}
		for _, p := range r.PullRequests {
			wr.PRs = append(wr.PRs, p.GetNumber())
		}
		out = append(out, wr)
	}
	return out, nil
}

// ownRunsPage is how many runs ListOwnRuns asks for: GitHub's largest
// page. One request a writing cycle reads the runs of the loop's own
// workflow since the ledger's last write (C5).
const ownRunsPage = 100

// ListOwnRuns reads, in one request, the runs of the workflow file
// created at or after since, newest first (at most ownRunsPage), every
// event's: the wakes of the loop's own workflow, whose jobs the ledger
// counts (C5). total is GitHub's total_count, which exceeds the runs read
// when more than a page matched.
//
// https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
func (c *Client) ListOwnRuns(ctx context.Context, owner, repo, file string, since time.Time) (runs []WorkflowRun, total int, err error) {
	name := path.Base(file)
	opts := &gh.ListWorkflowRunsOptions{ListOptions: gh.ListOptions{PerPage: ownRunsPage}}
	if !since.IsZero() {
		opts.Created = ">=" + since.UTC().Format(time.RFC3339)
	}
	read, resp, err := c.rest.Actions.ListWorkflowRunsByFileName(ctx, owner, repo, name, opts)
	if err != nil {
		return nil, 0, fmt.Errorf("listing the runs of %s in %s/%s: %w", name, owner, repo, restErr("GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs", resp, err))
	}
	for _, r := range read.WorkflowRuns {
		wr := WorkflowRun{ID: r.GetID(), Name: r.GetName(), DisplayTitle: r.GetDisplayTitle(), Path: file, Event: r.GetEvent(), Status: r.GetStatus(),
			Conclusion: r.GetConclusion(), HeadSHA: r.GetHeadSHA(), HeadBranch: r.GetHeadBranch(), Actor: r.GetActor().GetLogin(),
			CreatedAt: r.GetCreatedAt().Time, UpdatedAt: r.GetUpdatedAt().Time, RunStartedAt: r.GetRunStartedAt().Time}
		for _, p := range r.PullRequests {
			wr.PRs = append(wr.PRs, p.GetNumber())
		}
		runs = append(runs, wr)
	}
	return runs, read.GetTotalCount(), nil
}

// GetWorkflowRun reads one workflow run, with the path of the workflow
// file it ran (the run's "path", which go-github v62 does not decode).
//
// https://docs.github.com/en/rest/actions/workflow-runs#get-a-workflow-run
func (c *Client) GetWorkflowRun(ctx context.Context, owner, repo string, id int64) (WorkflowRun, error) {
	const op = "GET /repos/{owner}/{repo}/actions/runs/{run_id}"
	req, err := c.rest.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/actions/runs/%d", owner, repo, id), nil)
	if err != nil {
		return WorkflowRun{}, err
	}
	var r struct {
		gh.WorkflowRun
		Path string `json:"path"`
	}
	resp, err := c.rest.Do(ctx, req, &r)
	if err != nil {
		return WorkflowRun{}, fmt.Errorf("reading workflow run %d of %s/%s: %w", id, owner, repo, restErr(op, resp, err))
	}
	wr := WorkflowRun{ID: r.GetID(), Name: r.GetName(), Path: r.Path, Event: r.GetEvent(), Status: r.GetStatus(),
		Conclusion: r.GetConclusion(), HeadSHA: r.GetHeadSHA(), HeadBranch: r.GetHeadBranch(), Actor: r.GetActor().GetLogin(),
		CreatedAt: r.GetCreatedAt().Time, UpdatedAt: r.GetUpdatedAt().Time, RunStartedAt: r.GetRunStartedAt().Time}
	for _, p := range r.PullRequests {
		wr.PRs = append(wr.PRs, p.GetNumber())
	}
	return wr, nil
}
