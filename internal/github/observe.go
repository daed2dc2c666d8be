package github

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shurcooL/githubv4"
)

// Page sizes of the observation query. GitHub caps first/last at 100.
const (
	threadsPage       = 100
	threadCommentsMax = 50
	reviewsPage       = 100
	issueCommentsPage = 100
	checkSuitesFirst  = 20
	checkRunsFirst    = 50
	reviewersFirst    = 50
)

// DefaultMaxPages is how many pages of reviews, and of issue comments, one
// observation reads at most (Options.MaxPages): 5,000 of each. Past it the
// observation is marked incomplete rather than growing without bound.
const DefaultMaxPages = 50

type actorQ struct {
	Typename string `graphql:"__typename"`
	Login    string
	Bot      struct {
		DatabaseID *int64 `graphql:"databaseId"`
	} `graphql:"... on Bot"`
	User struct {
		DatabaseID *int64 `graphql:"databaseId"`
	} `graphql:"... on User"`
}

type oidQ struct{ Oid string }

type threadQ struct {
	ID           string
	IsResolved   bool
	IsOutdated   bool
	Path         string
	Line         *int
	StartLine    *int
	OriginalLine *int
	Comments     struct {
		TotalCount int
		Nodes      []struct {
			ID                string
			FullDatabaseID    string `graphql:"fullDatabaseId"`
			Author            *actorQ
			Body              string
			CreatedAt         githubv4.DateTime
			PullRequestReview *struct {
				FullDatabaseID string `graphql:"fullDatabaseId"`
			}
			Commit         *oidQ
			OriginalCommit *oidQ
		}
	} `graphql:"comments(first: $commentsFirst)"`
}

type pageInfoQ struct {
	HasNextPage bool
	EndCursor   string
}

type reviewsQ struct {
	TotalCount int
	PageInfo   pageInfoQ
	Nodes      []reviewNode
}

type issueCommentsQ struct {
	TotalCount int
	PageInfo   pageInfoQ
	Nodes      []issueCommentNode
}

type threadsQ struct {
	PageInfo struct {
		HasNextPage bool
		EndCursor   string
	}
	Nodes []threadQ
}

type observeQ struct {
	Viewer struct {
		Login string
	}
	// RateLimit is the GraphQL budget after this query (B7); it costs no
	// extra point.
	RateLimit  *rateLimitQ
	Repository *struct {
		NameWithOwner    string
		DefaultBranchRef *struct {
			Name string
		}
		// The default branch's workflow files come in the same query, so
		// knowing whether an engine's workflow is installed costs nothing.
		Workflows *treeQ `graphql:"workflows: object(expression: $workflows)"`
		// Engines' own config files on the default branch, in the same
		// query: evidence that an engine is installed (IN2) for no request.
		CodeRabbitYAML *oidQ `graphql:"coderabbitYaml: object(expression: $coderabbitYaml)"`
		CodeRabbitYML  *oidQ `graphql:"coderabbitYml: object(expression: $coderabbitYml)"`
		GeminiDir      *oidQ `graphql:"geminiDir: object(expression: $geminiDir)"`
		// So does review-loop's own config file: a run without a checkout
		// reads it here rather than in a request of its own (C2).
		Config      *blobQ `graphql:"config: object(expression: $config)"`
		PullRequest *struct {
			ID                string
			Number            int
			URL               string `graphql:"url"`
			Title             string
			State             string
			IsDraft           bool
			Author            *actorQ
			HeadRefOid        string
			HeadRefName       string
			BaseRefName       string
			BaseRefOid        string
			IsCrossRepository bool
			HeadRepository    *struct {
				NameWithOwner string
			}
			Additions    int
			Deletions    int
			ChangedFiles int
			HeadCommit   struct {
				TotalCount int
				Nodes      []struct {
					Commit struct {
						Oid         string
						CheckSuites *struct {
							TotalCount int
							Nodes      []struct {
								App *struct {
									Slug string
								}
								// An Actions suite is one workflow run: its
								// file tells Copilot's dynamic workflow from
								// a repository's own job of the same name.
								WorkflowRun *struct {
									File *struct {
										Path string
									}
								}
								CheckRuns *struct {
									TotalCount int
									Nodes      []struct {
										ID          string
										DatabaseID  *int64 `graphql:"databaseId"`
										Name        string
										Status      string
										Conclusion  *string
										StartedAt   *githubv4.DateTime
										CompletedAt *githubv4.DateTime
										Title       *string
										Summary     *string
										Text        *string
									}
								} `graphql:"checkRuns(first: $checkRunsFirst)"`
							}
						} `graphql:"checkSuites(first: $checkSuitesFirst)"`
						// Commit statuses, the newest of each context:
						// CodeRabbit may report its review as one (S10).
						Status *struct {
							Contexts []struct {
								ID          string
								Context     string
								State       string
								Description *string
								CreatedAt   githubv4.DateTime
								Creator     *actorQ
							}
						}
					}
				}
			} `graphql:"headCommit: commits(last: 1)"`
			// Reviews and issue comments are read from the start (first/after),
			// see Observe.
			Reviews        reviewsQ       `graphql:"reviews(first: $reviewsFirst)"`
			ReviewThreads  threadsQ       `graphql:"reviewThreads(first: $threadsFirst)"`
			Comments       issueCommentsQ `graphql:"comments(first: $issueCommentsFirst)"`
			ReviewRequests struct {
				Nodes []struct {
					RequestedReviewer *struct {
						Typename string `graphql:"__typename"`
						User     struct {
							Login string
						} `graphql:"... on User"`
						Bot struct {
							Login string
						} `graphql:"... on Bot"`
						Team struct {
							Slug string
						} `graphql:"... on Team"`
					}
				}
			} `graphql:"reviewRequests(first: $reviewersFirst)"`
			// Labels carry the live-loop mark the sweep finds loops by.
			Labels *struct {
				Nodes []struct{ Name string }
			} `graphql:"labels(first: 50)"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

type threadsPageQ struct {
	Node *struct {
		PullRequest struct {
			ReviewThreads threadsQ `graphql:"reviewThreads(first: $threadsFirst, after: $cursor)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
}

type reviewsPageQ struct {
	Node *struct {
		PullRequest struct {
			Reviews reviewsQ `graphql:"reviews(first: $reviewsFirst, after: $cursor)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
}

type issueCommentsPageQ struct {
	Node *struct {
		PullRequest struct {
			Comments issueCommentsQ `graphql:"comments(first: $issueCommentsFirst, after: $cursor)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
}

var (
	prStates           = []string{"OPEN", "CLOSED", "MERGED"}
	reviewStates       = []string{"PENDING", "COMMENTED", "APPROVED", "CHANGES_REQUESTED", "DISMISSED"}
	statusStates       = []string{"ERROR", "EXPECTED", "FAILURE", "PENDING", "SUCCESS"}
	checkStatuses      = []string{"REQUESTED", "QUEUED", "IN_PROGRESS", "COMPLETED", "WAITING", "PENDING"}
	checkConclusions   = []string{"", "ACTION_REQUIRED", "TIMED_OUT", "CANCELLED", "FAILURE", "SUCCESS", "NEUTRAL", "SKIPPED", "STARTUP_FAILURE", "STALE"}
	authorAssociations = []string{"COLLABORATOR", "CONTRIBUTOR", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR", "MANNEQUIN", "MEMBER", "NONE", "OWNER"}
)

// fieldErr names the response field that could not be read.
type fieldErr struct{ errs []error }

func (f *fieldErr) enum(field, v string, known []string) string {
	if !slices.Contains(known, v) {
		f.errs = append(f.errs, fmt.Errorf("%s: unknown value %q", field, v))
	}
	return v
}

func (f *fieldErr) bigint(field, v string) int64 {
	if v == "" {
		f.errs = append(f.errs, fmt.Errorf("%s: missing", field))
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		f.errs = append(f.errs, fmt.Errorf("%s: not an integer: %q", field, v))
	}
	return n
}

func (f *fieldErr) required(field, v string) string {
	if v == "" {
		f.errs = append(f.errs, fmt.Errorf("%s: missing", field))
	}
	return v
}

func (f *fieldErr) err() error {
	if len(f.errs) == 0 {
		return nil
	}
	if len(f.errs) > 3 {
		return fmt.Errorf("%w (and %d more)", f.errs[0], len(f.errs)-1)
	}
	return f.errs[0]
}

func actor(a *actorQ) Actor {
	if a == nil {
		return Actor{Login: "ghost"}
	}
	out := Actor{Login: a.Login, IsBot: a.Typename == "Bot"}
	switch {
	case a.Typename == "Bot" && a.Bot.DatabaseID != nil:
		out.DatabaseID = *a.Bot.DatabaseID
	case a.Typename == "User" && a.User.DatabaseID != nil:
		out.DatabaseID = *a.User.DatabaseID
	}
	return out
}

func ptrInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func ptrStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func ptrTime(p *githubv4.DateTime) time.Time {
	if p == nil {
		return time.Time{}
	}
	return p.Time
}

func oid(p *oidQ) string {
	if p == nil {
		return ""
	}
	return p.Oid
}

// Observe reads everything one cycle needs about a pull request in one
// GraphQL query, plus one query per further page of review threads,
// reviews or issue comments; a PR with at most 100 of each costs one query.
// https://docs.github.com/en/graphql/reference/objects#pullrequest — ask for
// fullDatabaseId: databaseId (Int) cannot hold today's comment ids.
//
// Reviews and issue comments are paged from the start (first/after), not
// from the end: review-loop's status comment is written in a loop's first
// cycle, so it sits among the earliest comments, and a long loop (every
// trigger and every bot reply is a comment) only adds comments after it.
// `comments(last: 100)` lost it after 100 later comments and the next cycle
// started a fresh loop (SC3). Every page is read (engines need the latest
// comments too), up to Options.MaxPages; past that the earliest pages, where
// the state is, are the ones read and the observation says it is incomplete.
func (c *Client) Observe(ctx context.Context, owner, repo string, number int) (*Observation, error) {
	const op = "observe"
	var q observeQ
	vars := map[string]any{
		"owner":              githubv4.String(owner),
		"name":               githubv4.String(repo),
		"number":             githubv4.Int(number),
		"threadsFirst":       githubv4.Int(threadsPage),
		"commentsFirst":      githubv4.Int(threadCommentsMax),
		"reviewsFirst":       githubv4.Int(reviewsPage),
		"issueCommentsFirst": githubv4.Int(issueCommentsPage),
		"checkSuitesFirst":   githubv4.Int(checkSuitesFirst),
		"checkRunsFirst":     githubv4.Int(checkRunsFirst),
		"reviewersFirst":     githubv4.Int(reviewersFirst),
		"workflows":          githubv4.String("HEAD:.github/workflows"),
		"coderabbitYaml":     githubv4.String("HEAD:" + EngineConfigPaths[0]),
		"coderabbitYml":      githubv4.String("HEAD:" + EngineConfigPaths[1]),
		"geminiDir":          githubv4.String("HEAD:" + EngineConfigPaths[2]),
		"config":             githubv4.String("HEAD:" + c.configFile),
	}
	qctx, rec := gqlContext(ctx, "repository.pullRequest", true)
	if err := c.gql.Query(qctx, &q, vars); err != nil {
		return nil, fmt.Errorf("observing %s/%s#%d: %w", owner, repo, number, gqlErr(op, rec, err))
	}
	if q.Repository == nil {
		return nil, &APIError{Op: op, Status: 404, Message: fmt.Sprintf("repository %s/%s not found", owner, repo)}
	}
	c.recordGraphQLRateLimit(q.RateLimit)
	pr := q.Repository.PullRequest
	if pr == nil {
		return nil, &APIError{Op: op, Status: 404, Message: fmt.Sprintf("pull request %s/%s#%d not found", owner, repo, number)}
	}
	var fe fieldErr
	o := &Observation{
		Owner:       owner,
		Repo:        repo,
		Number:      number,
		NodeID:      fe.required("pullRequest.id", pr.ID),
		URL:         pr.URL,
		Title:       pr.Title,
		State:       fe.enum("pullRequest.state", pr.State, prStates),
		IsDraft:     pr.IsDraft,
		Author:      actor(pr.Author),
		HeadSHA:     fe.required("pullRequest.headRefOid", pr.HeadRefOid),
		HeadRef:     pr.HeadRefName,
		BaseRef:     pr.BaseRefName,
		BaseSHA:     pr.BaseRefOid,
		IsFork:      pr.IsCrossRepository,
		Commits:     pr.HeadCommit.TotalCount,
		Additions:   pr.Additions,
		Deletions:   pr.Deletions,
		ViewerLogin: q.Viewer.Login,
		Complete:    true,
	}
	o.ChangedFiles = pr.ChangedFiles
	if pr.HeadRepository != nil {
		o.HeadRepo = pr.HeadRepository.NameWithOwner
	}
	if q.Repository.DefaultBranchRef != nil {
		o.DefaultBranch = q.Repository.DefaultBranchRef.Name
	}
	o.WorkflowFiles = q.Repository.Workflows.files()
	for i, f := range []*oidQ{q.Repository.CodeRabbitYAML, q.Repository.CodeRabbitYML, q.Repository.GeminiDir} {
		if f != nil && f.Oid != "" {
			o.EngineConfigFiles = append(o.EngineConfigFiles, EngineConfigPaths[i])
		}
	}
	if t := q.Repository.Config.text(); t != nil {
		o.Config = &File{Path: c.configFile, Text: *t}
	}
	if pr.Labels != nil {
		for _, l := range pr.Labels.Nodes {
			o.Labels = append(o.Labels, l.Name)
		}
	}
	reviews, err := c.allReviews(ctx, pr.ID, pr.Reviews)
	if err != nil {
		return nil, fmt.Errorf("observing %s/%s#%d: %w", owner, repo, number, err)
	}
	o.ReviewsComplete = reviews.complete
	for i, r := range reviews.nodes {
		f := fmt.Sprintf("reviews[%d]", i)
		o.Reviews = append(o.Reviews, Review{
			NodeID:      r.ID,
			DatabaseID:  fe.bigint(f+".fullDatabaseId", r.FullDatabaseID),
			Author:      actor(r.Author),
			CommitSHA:   oid(r.Commit),
			State:       fe.enum(f+".state", r.State, reviewStates),
			Body:        r.Body,
			SubmittedAt: ptrTime(r.SubmittedAt),
			IsMinimized: r.IsMinimized,
		})
	}
	for _, n := range pr.HeadCommit.Nodes {
		if n.Commit.Oid == pr.HeadRefOid && n.Commit.Status != nil {
			for i, sc := range n.Commit.Status.Contexts {
				o.Statuses = append(o.Statuses, CommitStatus{
					NodeID:      sc.ID,
					Context:     sc.Context,
					State:       fe.enum(fmt.Sprintf("status.contexts[%d].state", i), sc.State, statusStates),
					Description: ptrStr(sc.Description),
					Creator:     actor(sc.Creator),
					CreatedAt:   sc.CreatedAt.Time,
				})
			}
		}
		if n.Commit.Oid != pr.HeadRefOid || n.Commit.CheckSuites == nil {
			continue
		}
		if n.Commit.CheckSuites.TotalCount > len(n.Commit.CheckSuites.Nodes) {
			o.Complete = false
		}
		for si, s := range n.Commit.CheckSuites.Nodes {
			if s.CheckRuns == nil {
				continue
			}
			if s.CheckRuns.TotalCount > len(s.CheckRuns.Nodes) {
				o.Complete = false
			}
			slug, workflow := "", ""
			if s.App != nil {
				slug = s.App.Slug
			}
			if s.WorkflowRun != nil && s.WorkflowRun.File != nil {
				workflow = s.WorkflowRun.File.Path
			}
			for ri, r := range s.CheckRuns.Nodes {
				f := fmt.Sprintf("checkSuites[%d].checkRuns[%d]", si, ri)
				cr := CheckRun{
					NodeID:       r.ID,
					Name:         r.Name,
					Status:       fe.enum(f+".status", r.Status, checkStatuses),
					Conclusion:   fe.enum(f+".conclusion", ptrStr(r.Conclusion), checkConclusions),
					AppSlug:      slug,
					WorkflowPath: workflow,
					StartedAt:    ptrTime(r.StartedAt),
					CompletedAt:  ptrTime(r.CompletedAt),
					Title:        ptrStr(r.Title),
					Summary:      ptrStr(r.Summary),
					Text:         ptrStr(r.Text),
				}
				if r.DatabaseID != nil {
					cr.DatabaseID = *r.DatabaseID
				}
				o.CheckRuns = append(o.CheckRuns, cr)
			}
		}
	}
	comments, err := c.allIssueComments(ctx, pr.ID, pr.Comments)
	if err != nil {
		return nil, fmt.Errorf("observing %s/%s#%d: %w", owner, repo, number, err)
	}
	o.IssueCommentsComplete = comments.complete
	for i, cm := range comments.nodes {
		f := fmt.Sprintf("comments[%d]", i)
		o.IssueComments = append(o.IssueComments, IssueComment{
			NodeID:            cm.ID,
			DatabaseID:        fe.bigint(f+".fullDatabaseId", cm.FullDatabaseID),
			Author:            actor(cm.Author),
			AuthorAssociation: fe.enum(f+".authorAssociation", cm.AuthorAssociation, authorAssociations),
			Body:              cm.Body,
			CreatedAt:         cm.CreatedAt.Time,
			UpdatedAt:         cm.UpdatedAt.Time,
		})
	}
	for _, rr := range pr.ReviewRequests.Nodes {
		if r := rr.RequestedReviewer; r != nil {
			switch r.Typename {
			case "User":
				o.RequestedReviewers = append(o.RequestedReviewers, r.User.Login)
			case "Bot":
				o.RequestedReviewers = append(o.RequestedReviewers, r.Bot.Login)
			case "Team":
				o.RequestedReviewers = append(o.RequestedReviewers, r.Team.Slug)
			}
		}
	}
	page := pr.ReviewThreads
	for {
		c.addThreads(o, page.Nodes, &fe)
		if !page.PageInfo.HasNextPage {
			break
		}
		if page.PageInfo.EndCursor == "" {
			o.Complete = false
			break
		}
		next, err := c.threadsPage(ctx, pr.ID, page.PageInfo.EndCursor)
		if err != nil {
			return nil, fmt.Errorf("observing %s/%s#%d: review threads after %d: %w", owner, repo, number, len(o.Threads), err)
		}
		page = next
	}
	if err := fe.err(); err != nil {
		return nil, fmt.Errorf("observing %s/%s#%d: %w", owner, repo, number, err)
	}
	o.Complete = o.Complete && o.ReviewsComplete && o.IssueCommentsComplete
	return o, nil
}

func (c *Client) addThreads(o *Observation, nodes []threadQ, fe *fieldErr) {
	for _, t := range nodes {
		i := len(o.Threads)
		f := fmt.Sprintf("reviewThreads[%d]", i)
		th := Thread{
			NodeID:       fe.required(f+".id", t.ID),
			IsResolved:   t.IsResolved,
			IsOutdated:   t.IsOutdated,
			Path:         t.Path,
			Line:         ptrInt(t.Line),
			StartLine:    ptrInt(t.StartLine),
			OriginalLine: ptrInt(t.OriginalLine),
		}
		if t.Comments.TotalCount > len(t.Comments.Nodes) {
			o.Complete = false
		}
		for j, cm := range t.Comments.Nodes {
			cf := fmt.Sprintf("%s.comments[%d]", f, j)
			rc := ReviewComment{
				NodeID:            cm.ID,
				DatabaseID:        fe.bigint(cf+".fullDatabaseId", cm.FullDatabaseID),
				Author:            actor(cm.Author),
				Body:              cm.Body,
				CreatedAt:         cm.CreatedAt.Time,
				CommitSHA:         oid(cm.Commit),
				OriginalCommitSHA: oid(cm.OriginalCommit),
			}
			if cm.PullRequestReview != nil && cm.PullRequestReview.FullDatabaseID != "" {
				rc.ReviewDatabaseID = fe.bigint(cf+".pullRequestReview.fullDatabaseId", cm.PullRequestReview.FullDatabaseID)
			}
			th.Comments = append(th.Comments, rc)
		}
		o.Threads = append(o.Threads, th)
	}
}

// threadsPage reads one further page of review threads, and nothing else.
// https://docs.github.com/en/graphql/reference/objects#pullrequestreviewthreadconnection
func (c *Client) threadsPage(ctx context.Context, prID, cursor string) (threadsQ, error) {
	var q threadsPageQ
	vars := map[string]any{
		"id":            githubv4.ID(prID),
		"cursor":        githubv4.String(cursor),
		"threadsFirst":  githubv4.Int(threadsPage),
		"commentsFirst": githubv4.Int(threadCommentsMax),
	}
	qctx, rec := gqlContext(ctx, "node.reviewThreads", true)
	if err := c.gql.Query(qctx, &q, vars); err != nil {
		return threadsQ{}, gqlErr("reviewThreads", rec, err)
	}
	if q.Node == nil {
		return threadsQ{}, &APIError{Op: "reviewThreads", Status: 404, Message: "pull request node not found"}
	}
	return q.Node.PullRequest.ReviewThreads, nil
}

// paged is every node of a connection that Observe read, and whether that
// is all of them.
type paged[N any] struct {
	nodes    []N
	complete bool
}

// pages follows a connection forward from its first page (read by the main
// query) until it has no next page or c.maxPages pages were read.
func pages[N any](c *Client, first []N, info pageInfoQ, total int, next func(cursor string) ([]N, pageInfoQ, error)) (paged[N], error) {
	out := paged[N]{nodes: first}
	for n := 1; info.HasNextPage; n++ {
		if info.EndCursor == "" || n >= c.maxPages {
			return out, nil
		}
		nodes, pi, err := next(info.EndCursor)
		if err != nil {
			return out, err
		}
		out.nodes, info = append(out.nodes, nodes...), pi
	}
	out.complete = len(out.nodes) >= total
	return out, nil
}

type reviewNode = struct {
	ID             string
	FullDatabaseID string `graphql:"fullDatabaseId"`
	Author         *actorQ
	Commit         *oidQ
	State          string
	Body           string
	SubmittedAt    *githubv4.DateTime
	IsMinimized    bool
}

type issueCommentNode = struct {
	ID                string
	FullDatabaseID    string `graphql:"fullDatabaseId"`
	Author            *actorQ
	AuthorAssociation string
	Body              string
	CreatedAt         githubv4.DateTime
	UpdatedAt         githubv4.DateTime
}

// allReviews reads the reviews after the first page, oldest first.
// https://docs.github.com/en/graphql/reference/objects#pullrequestreviewconnection
func (c *Client) allReviews(ctx context.Context, prID string, first reviewsQ) (paged[reviewNode], error) {
	return pages(c, first.Nodes, first.PageInfo, first.TotalCount, func(cursor string) ([]reviewNode, pageInfoQ, error) {
		var q reviewsPageQ
		vars := map[string]any{"id": githubv4.ID(prID), "cursor": githubv4.String(cursor), "reviewsFirst": githubv4.Int(reviewsPage)}
		qctx, rec := gqlContext(ctx, "node.reviews", true)
		if err := c.gql.Query(qctx, &q, vars); err != nil {
			return nil, pageInfoQ{}, fmt.Errorf("reviews after %s: %w", cursor, gqlErr("reviews", rec, err))
		}
		if q.Node == nil {
			return nil, pageInfoQ{}, &APIError{Op: "reviews", Status: 404, Message: "pull request node not found"}
		}
		r := q.Node.PullRequest.Reviews
		return r.Nodes, r.PageInfo, nil
	})
}

// allIssueComments reads the issue comments after the first page, oldest
// first.
// https://docs.github.com/en/graphql/reference/objects#issuecommentconnection
func (c *Client) allIssueComments(ctx context.Context, prID string, first issueCommentsQ) (paged[issueCommentNode], error) {
	return pages(c, first.Nodes, first.PageInfo, first.TotalCount, func(cursor string) ([]issueCommentNode, pageInfoQ, error) {
		var q issueCommentsPageQ
		vars := map[string]any{"id": githubv4.ID(prID), "cursor": githubv4.String(cursor), "issueCommentsFirst": githubv4.Int(issueCommentsPage)}
		qctx, rec := gqlContext(ctx, "node.comments", true)
		if err := c.gql.Query(qctx, &q, vars); err != nil {
			return nil, pageInfoQ{}, fmt.Errorf("issue comments after %s: %w", cursor, gqlErr("comments", rec, err))
		}
		if q.Node == nil {
			return nil, pageInfoQ{}, &APIError{Op: "comments", Status: 404, Message: "pull request node not found"}
		}
		cm := q.Node.PullRequest.Comments
		return cm.Nodes, cm.PageInfo, nil
	})
}
