package github

import (
	"context"
	"fmt"
	"net/http"

	"github.com/shurcooL/githubv4"
)

// AddLabel adds a label to a PR (its issue), creating the label in the
// repository if it does not exist yet.
// https://docs.github.com/en/rest/issues/labels#add-labels-to-an-issue
func (c *Client) AddLabel(ctx context.Context, owner, repo string, number int, label string) error {
	_, resp, err := c.rest.Issues.AddLabelsToIssue(ctx, owner, repo, number, []string{label})
	if err != nil {
		return fmt.Errorf("adding label %q to %s/%s#%d: %w", label, owner, repo, number, restErr("POST /repos/{owner}/{repo}/issues/{number}/labels", resp, err))
	}
	return nil
}

// RemoveLabel removes a label from a PR; a label the PR no longer carries
// (a human removed it first: 404 "Label does not exist") is not an error.
// https://docs.github.com/en/rest/issues/labels#remove-a-label-from-an-issue
func (c *Client) RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error {
	resp, err := c.rest.Issues.RemoveLabelForIssue(ctx, owner, repo, number, label)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing label %q from %s/%s#%d: %w", label, owner, repo, number, restErr("DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}", resp, err))
	}
	return nil
}

// ListLabeledPullRequests lists the open PRs carrying label, 100 per
// GraphQL request: the sweep's one read, whatever the number of open PRs.
// It also returns the default branch (a dispatch's ref), at no cost.
// https://docs.github.com/en/graphql/reference/objects#repository — pullRequests(labels:, states: OPEN)
func (c *Client) ListLabeledPullRequests(ctx context.Context, owner, repo, label string) ([]PRRef, string, error) {
	var out []PRRef
	var defaultBranch string
	var cursor *githubv4.String
	for {
		var q struct {
			RateLimit  *rateLimitQ
			Repository *struct {
				DefaultBranchRef *struct{ Name string }
				PullRequests     struct {
					PageInfo struct {
						HasNextPage bool
						EndCursor   string
					}
					Nodes []struct {
						Number      int
						HeadRefName string
						HeadRefOid  string
						IsDraft     bool
					}
				} `graphql:"pullRequests(states: [OPEN], labels: $labels, first: 100, after: $cursor)"`
			} `graphql:"repository(owner: $owner, name: $name)"`
		}
		const op = "repository.pullRequests"
		qctx, rec := gqlContext(ctx, op, true)
		vars := map[string]any{"owner": githubv4.String(owner), "name": githubv4.String(repo),
			"labels": []githubv4.String{githubv4.String(label)}, "cursor": cursor}
		if err := c.gql.Query(qctx, &q, vars); err != nil {
			return nil, "", fmt.Errorf("listing the open pull requests of %s/%s labelled %s: %w", owner, repo, label, gqlErr(op, rec, err))
		}
		c.recordGraphQLRateLimit(q.RateLimit)
		if q.Repository == nil {
			return nil, "", &APIError{Op: op, Status: http.StatusNotFound, Message: "repository " + owner + "/" + repo + " not found"}
		}
		if q.Repository.DefaultBranchRef != nil {
			defaultBranch = q.Repository.DefaultBranchRef.Name
		}
		for _, n := range q.Repository.PullRequests.Nodes {
			out = append(out, PRRef{Number: n.Number, HeadRef: n.HeadRefName, HeadSHA: n.HeadRefOid, IsDraft: n.IsDraft})
		}
		pi := q.Repository.PullRequests.PageInfo
		if !pi.HasNextPage || pi.EndCursor == "" {
			return out, defaultBranch, nil
		}
		next := githubv4.String(pi.EndCursor)
		cursor = &next
	}
}
