package github

import (
	"context"
	"fmt"
	"net/http"

	gh "github.com/google/go-github/v62/github"

	"github.com/shurcooL/githubv4"
)

// Sizes of the recent-activity query: the last RecentPRs pull requests,
// each with its last recentItems reviews and comments and the check runs
// of its head commit. One request, whatever the repository's size.
const (
	RecentPRs   = 10
	recentItems = 20
)

type recentQ struct {
	Repository *struct {
		PullRequests struct {
			Nodes []struct {
				Number            int
				HeadRefOid        string
				HeadRefName       string
				State             string
				IsCrossRepository bool
				Reviews           struct {
					Nodes []struct {
						Author *actorQ
						Commit *oidQ
						State  string
					}
				} `graphql:"reviews(last: $items)"`
				Comments struct {
					Nodes []struct {
						Author *actorQ
					}
				} `graphql:"comments(last: $items)"`
				HeadCommit struct {
					Nodes []struct {
						Commit struct {
							Oid         string
							CheckSuites *struct {
								Nodes []struct {
									App *struct {
										Slug string
									}
									CheckRuns *struct {
										Nodes []struct {
											ID         string
											Name       string
											Status     string
											Conclusion *string
										}
									} `graphql:"checkRuns(first: $items)"`
								}
							} `graphql:"checkSuites(first: $items)"`
						}
					}
				} `graphql:"headCommit: commits(last: 1)"`
			}
		} `graphql:"pullRequests(last: $prs)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// RecentActivity reads, in one GraphQL query, who reviewed and commented
// on the repository's last RecentPRs pull requests and which check runs
// ran on their heads: each as an Observation holding only those (no
// bodies), so each engine's own adapter can say whether it is among them
// (IN2's evidence that an engine is installed).
func (c *Client) RecentActivity(ctx context.Context, owner, repo string) ([]*Observation, error) {
	const op = "recent activity"
	var q recentQ
	vars := map[string]any{
		"owner": githubv4.String(owner),
		"name":  githubv4.String(repo),
		"prs":   githubv4.Int(RecentPRs),
		"items": githubv4.Int(recentItems),
	}
	qctx, rec := gqlContext(ctx, "repository.pullRequests", true)
	if err := c.gql.Query(qctx, &q, vars); err != nil {
		return nil, fmt.Errorf("reading the recent pull requests of %s/%s: %w", owner, repo, gqlErr(op, rec, err))
	}
	if q.Repository == nil {
		return nil, &APIError{Op: op, Status: 404, Message: fmt.Sprintf("repository %s/%s not found", owner, repo)}
	}
	var out []*Observation
	for _, pr := range q.Repository.PullRequests.Nodes {
		o := &Observation{Owner: owner, Repo: repo, Number: pr.Number, HeadSHA: pr.HeadRefOid, HeadRef: pr.HeadRefName,
			State: pr.State, IsFork: pr.IsCrossRepository, Complete: true}
		for _, r := range pr.Reviews.Nodes {
			o.Reviews = append(o.Reviews, Review{Author: actor(r.Author), CommitSHA: oid(r.Commit), State: r.State})
		}
		for _, cm := range pr.Comments.Nodes {
			o.IssueComments = append(o.IssueComments, IssueComment{Author: actor(cm.Author)})
		}
		for _, n := range pr.HeadCommit.Nodes {
			if n.Commit.Oid != pr.HeadRefOid || n.Commit.CheckSuites == nil {
				continue
			}
			for _, s := range n.Commit.CheckSuites.Nodes {
				if s.CheckRuns == nil {
					continue
				}
				slug := ""
				if s.App != nil {
					slug = s.App.Slug
				}
				for _, r := range s.CheckRuns.Nodes {
					o.CheckRuns = append(o.CheckRuns, CheckRun{NodeID: r.ID, Name: r.Name, Status: r.Status, Conclusion: ptrStr(r.Conclusion), AppSlug: slug})
				}
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// Viewer is the identity a token acts as: its login, and whether it is a
// bot (an Actions or App token) rather than a user.
// https://docs.github.com/en/graphql/reference/queries#viewer
func (c *Client) Viewer(ctx context.Context) (login string, bot bool, err error) {
	var q struct {
		Viewer struct {
			Typename string `graphql:"__typename"`
			Login    string
		}
	}
	const op = "viewer"
	qctx, rec := gqlContext(ctx, op, true)
	if err := c.gql.Query(qctx, &q, nil); err != nil {
		return "", false, fmt.Errorf("reading who the token is: %w", gqlErr(op, rec, err))
	}
	return q.Viewer.Login, q.Viewer.Typename == "Bot", nil
}

// EngineConfigs returns the paths of EngineConfigPaths present on the
// default branch, in one GraphQL request.
func (c *Client) EngineConfigs(ctx context.Context, owner, repo string) ([]string, error) {
	var q struct {
		Repository *struct {
			CodeRabbitYAML *oidQ `graphql:"coderabbitYaml: object(expression: $coderabbitYaml)"`
			CodeRabbitYML  *oidQ `graphql:"coderabbitYml: object(expression: $coderabbitYml)"`
			GeminiDir      *oidQ `graphql:"geminiDir: object(expression: $geminiDir)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	const op = "repository.object"
	qctx, rec := gqlContext(ctx, op, true)
	vars := map[string]any{"owner": githubv4.String(owner), "name": githubv4.String(repo),
		"coderabbitYaml": githubv4.String("HEAD:" + EngineConfigPaths[0]),
		"coderabbitYml":  githubv4.String("HEAD:" + EngineConfigPaths[1]),
		"geminiDir":      githubv4.String("HEAD:" + EngineConfigPaths[2])}
	if err := c.gql.Query(qctx, &q, vars); err != nil {
		return nil, fmt.Errorf("reading engine config files of %s/%s: %w", owner, repo, gqlErr(op, rec, err))
	}
	if q.Repository == nil {
		return nil, &APIError{Op: op, Status: 404, Message: "repository " + owner + "/" + repo + " not found"}
	}
	var out []string
	for i, f := range []*oidQ{q.Repository.CodeRabbitYAML, q.Repository.CodeRabbitYML, q.Repository.GeminiDir} {
		if f != nil && f.Oid != "" {
			out = append(out, EngineConfigPaths[i])
		}
	}
	return out, nil
}

// SecretNames lists the names of the repository's Actions secrets; GitHub
// shows them only to an admin token (never to an Actions token): visible
// is false, with no error, when the token may not see them.
// https://docs.github.com/en/rest/actions/secrets#list-repository-secrets
func (c *Client) SecretNames(ctx context.Context, owner, repo string) (names []string, visible bool, err error) {
	opts := &gh.ListOptions{PerPage: 100}
	for {
		page, resp, err := c.rest.Actions.ListRepoSecrets(ctx, owner, repo, opts)
		if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("listing the Actions secrets of %s/%s: %w", owner, repo, restErr("GET /repos/{owner}/{repo}/actions/secrets", resp, err))
		}
		for _, s := range page.Secrets {
			names = append(names, s.Name)
		}
		if resp.NextPage == 0 {
			return names, true, nil
		}
		opts.Page = resp.NextPage
	}
}
