package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/shurcooL/githubv4"
)

// BranchRule is one active rule of a repository ruleset that applies to a
// branch.
type BranchRule struct {
	// Type is the rule's type: update, pull_request,
	// required_status_checks, required_signatures, non_fast_forward, …
	Type string
	// RulesetID and RulesetSource name the ruleset the rule comes from.
	RulesetID     int64
	RulesetSource string
	// StatusChecks are the contexts a required_status_checks rule requires.
	StatusChecks []string
}

// BranchRules lists the active ruleset rules that apply to a branch (which
// need not exist), at every level (repository, organization). Rules of
// rulesets in evaluate or disabled mode are not listed.
// https://docs.github.com/en/rest/repos/rules#get-rules-for-a-branch
func (c *Client) BranchRules(ctx context.Context, owner, repo, branch string) ([]BranchRule, error) {
	const op = "GET /repos/{owner}/{repo}/rules/branches/{branch}"
	var out []BranchRule
	for page := 1; ; page++ {
		u := fmt.Sprintf("repos/%s/%s/rules/branches/%s?per_page=100&page=%d", url.PathEscape(owner), url.PathEscape(repo), url.PathEscape(branch), page)
		req, err := c.rest.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		var rules []struct {
			Type          string `json:"type"`
			RulesetID     int64  `json:"ruleset_id"`
			RulesetSource string `json:"ruleset_source"`
			Parameters    *struct {
				RequiredStatusChecks []struct {
					Context string `json:"context"`
				} `json:"required_status_checks"`
			} `json:"parameters"`
		}
		resp, err := c.rest.Do(ctx, req, &rules)
		if err != nil {
			return nil, fmt.Errorf("reading the rules of branch %s of %s/%s: %w", branch, owner, repo, restErr(op, resp, err))
		}
		for _, r := range rules {
			br := BranchRule{Type: r.Type, RulesetID: r.RulesetID, RulesetSource: r.RulesetSource}
			if r.Parameters != nil {
				for _, s := range r.Parameters.RequiredStatusChecks {
					br.StatusChecks = append(br.StatusChecks, s.Context)
				}
			}
			out = append(out, br)
		}
		if resp.NextPage == 0 {
			return out, nil
		}
	}
}

// RulesetInfo is what review-loop reads of one ruleset.
type RulesetInfo struct {
	ID   int64
	Name string
	// CurrentUserCanBypass is whether the token's identity may bypass the
	// ruleset: always, pull_requests_only, never or exempt; empty when
	// GitHub does not say (it says it only at the repository level).
	CurrentUserCanBypass string
}

// Ruleset reads one ruleset of the repository as the client's token sees
// it (current_user_can_bypass is about that token's identity).
// https://docs.github.com/en/rest/repos/rules#get-a-repository-ruleset
func (c *Client) Ruleset(ctx context.Context, owner, repo string, id int64) (RulesetInfo, error) {
	const op = "GET /repos/{owner}/{repo}/rulesets/{ruleset_id}"
	req, err := c.rest.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/rulesets/%d", url.PathEscape(owner), url.PathEscape(repo), id), nil)
	if err != nil {
		return RulesetInfo{}, err
	}
	var raw json.RawMessage
	resp, err := c.rest.Do(ctx, req, &raw)
	if err != nil {
		return RulesetInfo{}, fmt.Errorf("reading ruleset %d of %s/%s: %w", id, owner, repo, restErr(op, resp, err))
	}
	var rs struct {
		ID                   int64  `json:"id"`
		Name                 string `json:"name"`
		CurrentUserCanBypass string `json:"current_user_can_bypass"`
	}
	if err := json.Unmarshal(raw, &rs); err != nil {
		return RulesetInfo{}, fmt.Errorf("reading ruleset %d of %s/%s: %w", id, owner, repo, err)
	}
	return RulesetInfo{ID: rs.ID, Name: rs.Name, CurrentUserCanBypass: rs.CurrentUserCanBypass}, nil
}

// DefaultBranch is the repository's default branch, in one GraphQL request.
// https://docs.github.com/en/graphql/reference/objects#repository — defaultBranchRef
func (c *Client) DefaultBranch(ctx context.Context, owner, repo string) (string, error) {
	var q struct {
		Repository *struct {
			DefaultBranchRef *struct{ Name string }
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	const op = "repository.defaultBranchRef"
	qctx, rec := gqlContext(ctx, op, true)
	if err := c.gql.Query(qctx, &q, map[string]any{"owner": githubv4.String(owner), "name": githubv4.String(repo)}); err != nil {
		return "", fmt.Errorf("reading the default branch of %s/%s: %w", owner, repo, gqlErr(op, rec, err))
	}
	if q.Repository == nil || q.Repository.DefaultBranchRef == nil {
		return "", &APIError{Op: op, Status: 404, Message: fmt.Sprintf("repository %s/%s not found or empty", owner, repo)}
	}
	return q.Repository.DefaultBranchRef.Name, nil
}
