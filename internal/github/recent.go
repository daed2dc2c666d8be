package github

import (
	"context"
	"fmt"

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
				Number     int
				HeadRefOid string
				Reviews    struct {
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
		o := &Observation{Owner: owner, Repo: repo, Number: pr.Number, HeadSHA: pr.HeadRefOid, State: "OPEN", Complete: true}
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
