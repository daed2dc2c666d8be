package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofri/go-github-ratelimit/v2/github_ratelimit/github_primary_ratelimit"
	gh "github.com/google/go-github/v62/github"
	"github.com/shurcooL/githubv4"
)

// File is one file read from the repository.
type File struct {
	Path string
	Text string
}

// PRRef names an open pull request.
type PRRef struct {
	Number  int
	HeadRef string
	HeadSHA string
	IsDraft bool
}

// restErr turns go-github's errors into *APIError named by op.
func restErr(op string, resp *gh.Response, err error) error {
	if err == nil {
		return nil
	}
	var er *gh.ErrorResponse
	var abuse *gh.AbuseRateLimitError
	var rl *gh.RateLimitError
	var prim *github_primary_ratelimit.RateLimitReachedError
	switch {
	case errors.As(err, &abuse):
		e := &APIError{Op: op, Status: abuse.Response.StatusCode, Message: abuse.Message}
		if abuse.RetryAfter != nil {
			e.RetryAfter = *abuse.RetryAfter
		}
		if e.RetryAfter <= 0 {
			e.RetryAfter = time.Minute
		}
		return e
	case errors.As(err, &rl):
		return &APIError{Op: op, Status: rl.Response.StatusCode, Message: rl.Message, RetryAfter: max(time.Until(rl.Rate.Reset.Time), time.Second)}
	case errors.As(err, &prim):
		e := &APIError{Op: op, Status: http.StatusForbidden, Message: "primary rate limit reached", RetryAfter: time.Minute}
		if prim.ResetTime != nil {
			e.RetryAfter = max(time.Until(*prim.ResetTime), time.Second)
		}
		return e
	case errors.As(err, &er):
		msg := er.Message
		for _, d := range er.Errors {
			if d.Message != "" {
				msg += "; " + d.Message
			} else if d.Code != "" {
				msg += fmt.Sprintf("; %s %s", d.Field, d.Code)
			}
		}
		return &APIError{Op: op, Status: er.Response.StatusCode, Message: msg}
	}
	if resp != nil && resp.StatusCode >= 300 {
		return &APIError{Op: op, Status: resp.StatusCode, Message: err.Error()}
	}
	return fmt.Errorf("%s: %w", op, err)
}

func issueComment(c *gh.IssueComment) IssueComment {
	out := IssueComment{
		NodeID:            c.GetNodeID(),
		DatabaseID:        c.GetID(),
		AuthorAssociation: c.GetAuthorAssociation(),
		Body:              c.GetBody(),
		CreatedAt:         c.GetCreatedAt().Time,
		UpdatedAt:         c.GetUpdatedAt().Time,
	}
	if u := c.GetUser(); u != nil {
		out.Author = Actor{Login: strings.TrimSuffix(u.GetLogin(), "[bot]"), DatabaseID: u.GetID(), IsBot: u.GetType() == "Bot"}
	}
	return out
}

// CreateIssueComment posts a PR conversation comment. Never retried: a
// POST that timed out may have been applied.
// https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
func (c *Client) CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (IssueComment, error) {
	cm, resp, err := c.rest.Issues.CreateComment(ctx, owner, repo, number, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return IssueComment{}, fmt.Errorf("commenting on %s/%s#%d: %w", owner, repo, number, restErr("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", resp, err))
	}
	return issueComment(cm), nil
}

// UpdateIssueComment replaces a comment's body (the state comment).
// https://docs.github.com/en/rest/issues/comments#update-an-issue-comment
func (c *Client) UpdateIssueComment(ctx context.Context, owner, repo string, id int64, body string) error {
	_, resp, err := c.rest.Issues.EditComment(ctx, owner, repo, id, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return fmt.Errorf("updating comment %d in %s/%s: %w", id, owner, repo, restErr("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", resp, err))
	}
	return nil
}

// GetIssueComment reads one comment, for the optimistic-write check
// (compare updated_at or body with what the cycle observed).
// https://docs.github.com/en/rest/issues/comments#get-an-issue-comment
func (c *Client) GetIssueComment(ctx context.Context, owner, repo string, id int64) (IssueComment, error) {
	cm, resp, err := c.rest.Issues.GetComment(ctx, owner, repo, id)
	if err != nil {
		return IssueComment{}, fmt.Errorf("reading comment %d in %s/%s: %w", id, owner, repo, restErr("GET /repos/{owner}/{repo}/issues/comments/{comment_id}", resp, err))
	}
	return issueComment(cm), nil
}

// ReplyToReviewComment replies in the thread of a review comment and
// returns the reply's id.
// https://docs.github.com/en/rest/pulls/comments#create-a-reply-for-a-review-comment
func (c *Client) ReplyToReviewComment(ctx context.Context, owner, repo string, number int, commentID int64, body string) (int64, error) {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", owner, repo, number, commentID)
	req, err := c.rest.NewRequest(http.MethodPost, u, map[string]string{"body": body})
	if err != nil {
		return 0, fmt.Errorf("replying to review comment %d: %w", commentID, err)
	}
	cm := new(gh.PullRequestComment)
	resp, err := c.rest.Do(ctx, req, cm)
	if err != nil {
		return 0, fmt.Errorf("replying to review comment %d on %s/%s#%d: %w", commentID, owner, repo, number, restErr("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", resp, err))
	}
	return cm.GetID(), nil
}

// AddIssueCommentReaction reacts to a comment (e.g. "eyes" to acknowledge a
// command); an existing identical reaction is not an error.
// https://docs.github.com/en/rest/reactions/reactions#create-reaction-for-an-issue-comment
func (c *Client) AddIssueCommentReaction(ctx context.Context, owner, repo string, commentID int64, content string) error {
	_, resp, err := c.rest.Reactions.CreateIssueCommentReaction(ctx, owner, repo, commentID, content)
	if err != nil {
		return fmt.Errorf("reacting to comment %d in %s/%s: %w", commentID, owner, repo, restErr("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", resp, err))
	}
	return nil
}

// RequestReviewers requests reviews from users or bots. REST wants bot
// logins with the "[bot]" suffix (copilot-pull-request-reviewer[bot]).
// https://docs.github.com/en/rest/pulls/review-requests#request-reviewers-for-a-pull-request
func (c *Client) RequestReviewers(ctx context.Context, owner, repo string, number int, logins []string) error {
	_, resp, err := c.rest.PullRequests.RequestReviewers(ctx, owner, repo, number, gh.ReviewersRequest{Reviewers: logins})
	if err != nil {
		return fmt.Errorf("requesting reviewers on %s/%s#%d: %w", owner, repo, number, restErr("POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", resp, err))
	}
	return nil
}

// RequestCopilotReview asks Copilot for a code review; 409 (one already
// pending) is success.
// https://docs.github.com/en/rest/pulls/pulls — POST .../pulls/{pull_number}/copilot-code-review (API 2026-03-10)
func (c *Client) RequestCopilotReview(ctx context.Context, owner, repo string, number int) error {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/copilot-code-review", owner, repo, number)
	req, err := c.rest.NewRequest(http.MethodPost, u, nil)
	if err != nil {
		return fmt.Errorf("requesting copilot review: %w", err)
	}
	resp, err := c.rest.Do(ctx, req, nil)
	var accepted *gh.AcceptedError
	if resp != nil && resp.StatusCode == http.StatusConflict || errors.As(err, &accepted) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("requesting copilot review on %s/%s#%d: %w", owner, repo, number, restErr("POST /repos/{owner}/{repo}/pulls/{pull_number}/copilot-code-review", resp, err))
	}
	return nil
}

// MarkReadyForReview turns a draft PR into a ready one.
// https://docs.github.com/en/graphql/reference/mutations#markpullrequestreadyforreview
func (c *Client) MarkReadyForReview(ctx context.Context, prNodeID string) error {
	var m struct {
		MarkPullRequestReadyForReview struct {
			PullRequest struct {
				IsDraft bool
			}
		} `graphql:"markPullRequestReadyForReview(input: $input)"`
	}
	const op = "markPullRequestReadyForReview"
	qctx, rec := gqlContext(ctx, op, false)
	in := githubv4.MarkPullRequestReadyForReviewInput{PullRequestID: githubv4.ID(prNodeID)}
	if err := c.gql.Mutate(qctx, &m, in, nil); err != nil {
		return fmt.Errorf("marking %s ready for review: %w", prNodeID, gqlErr(op, rec, err))
	}
	return nil
}

// ErrResolveDenied is the per-thread error when GitHub refuses to resolve
// a thread with this token; it is also an *APIError for which
// IsPermission is true.
var ErrResolveDenied = errors.New("resolving review threads is not allowed for this token")

// ResolveThreads resolves several review threads in one GraphQL request
// (one aliased resolveReviewThread per thread). The map holds the error of
// each thread that failed; the error is for the request as a whole.
// https://docs.github.com/en/graphql/reference/mutations#resolvereviewthread —
// GITHUB_TOKEN sometimes gets "Resource not accessible by integration".
func (c *Client) ResolveThreads(ctx context.Context, threadIDs []string) (map[string]error, error) {
	failed := map[string]error{}
	if len(threadIDs) == 0 {
		return failed, nil
	}
	var doc strings.Builder
	doc.WriteString("mutation ResolveThreads(")
	vars := map[string]any{}
	for i, id := range threadIDs {
		if i > 0 {
			doc.WriteString(", ")
		}
		fmt.Fprintf(&doc, "$t%d: ID!", i)
		vars[fmt.Sprintf("t%d", i)] = id
	}
	doc.WriteString(") {")
	for i := range threadIDs {
		fmt.Fprintf(&doc, " t%d: resolveReviewThread(input: {threadId: $t%d}) { thread { id isResolved } }", i, i)
	}
	doc.WriteString(" }")
	const op = "resolveReviewThread"
	data, errs, err := c.rawGraphQL(ctx, op, false, doc.String(), vars)
	if err != nil {
		return nil, fmt.Errorf("resolving %d review threads: %w", len(threadIDs), err)
	}
	var out map[string]*struct {
		Thread struct {
			ID         string `json:"id"`
			IsResolved bool   `json:"isResolved"`
		} `json:"thread"`
	}
	if len(data) > 0 && string(data) != "null" {
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, fmt.Errorf("resolving review threads: decoding response: %w", err)
		}
	}
	byAlias := map[string][]gqlError{}
	var general []gqlError
	for _, e := range errs {
		if len(e.Path) > 0 {
			if a, ok := e.Path[0].(string); ok {
				byAlias[a] = append(byAlias[a], e)
				continue
			}
		}
		general = append(general, e)
	}
	for i, id := range threadIDs {
		alias := "t" + strconv.Itoa(i)
		switch {
		case len(byAlias[alias]) > 0:
			failed[id] = resolveErr(op, byAlias[alias])
		case out[alias] == nil || !out[alias].Thread.IsResolved:
			if len(general) > 0 {
				failed[id] = resolveErr(op, general)
			} else {
				failed[id] = &APIError{Op: op, Message: "thread " + id + " was not resolved"}
			}
		}
	}
	if len(general) > 0 && len(failed) == len(threadIDs) {
		return failed, fmt.Errorf("resolving review threads: %w", resolveErr(op, general))
	}
	return failed, nil
}

func resolveErr(op string, errs []gqlError) error {
	e := gqlErrors(op, errs)
	if IsPermission(e) {
		return fmt.Errorf("%w: %w", ErrResolveDenied, e)
	}
	return e
}

// DispatchWorkflow starts a workflow_dispatch run (how the loop wakes
// itself: pushes and comments made with GITHUB_TOKEN start no workflow).
// https://docs.github.com/en/rest/actions/workflows#create-a-workflow-dispatch-event
func (c *Client) DispatchWorkflow(ctx context.Context, owner, repo, workflowFile, ref string, inputs map[string]any) error {
	resp, err := c.rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, repo, workflowFile, gh.CreateWorkflowDispatchEventRequest{Ref: ref, Inputs: inputs})
	if err != nil {
		return fmt.Errorf("dispatching %s on %s in %s/%s: %w", workflowFile, ref, owner, repo, restErr("POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", resp, err))
	}
	return nil
}

// CreateIssue opens an issue and returns its number and URL.
// https://docs.github.com/en/rest/issues/issues#create-an-issue
func (c *Client) CreateIssue(ctx context.Context, owner, repo, title, body string, labels []string) (int, string, error) {
	req := &gh.IssueRequest{Title: gh.String(title), Body: gh.String(body)}
	if len(labels) > 0 {
		req.Labels = &labels
	}
	is, resp, err := c.rest.Issues.Create(ctx, owner, repo, req)
	if err != nil {
		return 0, "", fmt.Errorf("creating issue in %s/%s: %w", owner, repo, restErr("POST /repos/{owner}/{repo}/issues", resp, err))
	}
	return is.GetNumber(), is.GetHTMLURL(), nil
}

// BranchProtected reports whether a branch is protected (the loop never
// pushes to one).
// https://docs.github.com/en/rest/branches/branches#get-a-branch
func (c *Client) BranchProtected(ctx context.Context, owner, repo, branch string) (bool, error) {
	b, resp, err := c.rest.Repositories.GetBranch(ctx, owner, repo, branch, 0)
	if err != nil {
		return false, fmt.Errorf("reading branch %s of %s/%s: %w", branch, owner, repo, restErr("GET /repos/{owner}/{repo}/branches/{branch}", resp, err))
	}
	if b.Protected == nil {
		return false, fmt.Errorf("reading branch %s of %s/%s: response field protected: missing", branch, owner, repo)
	}
	return b.GetProtected(), nil
}

// WorkflowFiles returns path and text of every file in .github/workflows
// at ref, in one GraphQL request.
// https://docs.github.com/en/graphql/reference/objects#repository — object(expression:) Tree entries with Blob text.
func (c *Client) WorkflowFiles(ctx context.Context, owner, repo, ref string) ([]File, error) {
	var q struct {
		Repository *struct {
			Object *treeQ `graphql:"object(expression: $expr)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	const op = "repository.object"
	qctx, rec := gqlContext(ctx, op, true)
	vars := map[string]any{"owner": githubv4.String(owner), "name": githubv4.String(repo), "expr": githubv4.String(ref + ":.github/workflows")}
	if err := c.gql.Query(qctx, &q, vars); err != nil {
		return nil, fmt.Errorf("reading workflow files of %s/%s at %s: %w", owner, repo, ref, gqlErr(op, rec, err))
	}
	if q.Repository == nil {
		return nil, &APIError{Op: op, Status: http.StatusNotFound, Message: "repository " + owner + "/" + repo + " not found"}
	}
	return q.Repository.Object.files(), nil
}

// blobQ is a file read through GraphQL.
type blobQ struct {
	Blob struct {
		Text     *string
		IsBinary *bool
	} `graphql:"... on Blob"`
}

// text is the file's text; nil when there is no such file (or it is a
// directory, or binary).
func (b *blobQ) text() *string {
	if b == nil || b.Blob.Text == nil || (b.Blob.IsBinary != nil && *b.Blob.IsBinary) {
		return nil
	}
	return b.Blob.Text
}

// treeQ is a directory read through GraphQL: each entry with its text.
type treeQ struct {
	Tree struct {
		Entries []struct {
			Path   string
			Type   string
			Object *struct {
				Blob struct {
					Text     *string
					IsBinary *bool
				} `graphql:"... on Blob"`
			}
		}
	} `graphql:"... on Tree"`
}

// files returns the tree's text files, sorted by path; a missing tree
// (no such directory) has none.
func (t *treeQ) files() []File {
	files := []File{}
	if t == nil {
		return files
	}
	for _, e := range t.Tree.Entries {
		if e.Type != "blob" || e.Object == nil || e.Object.Blob.Text == nil {
			continue
		}
		files = append(files, File{Path: e.Path, Text: *e.Object.Blob.Text})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files
}

// PullRequestsForCommit returns the numbers of the PRs that contain a
// commit (to find the PR of a check_run or workflow_run event).
// https://docs.github.com/en/graphql/reference/objects#commit — associatedPullRequests
func (c *Client) PullRequestsForCommit(ctx context.Context, owner, repo, sha string) ([]int, error) {
	var q struct {
		Repository *struct {
			Object *struct {
				Commit struct {
					AssociatedPullRequests struct {
						Nodes []struct {
							Number int
						}
					} `graphql:"associatedPullRequests(first: 20)"`
				} `graphql:"... on Commit"`
			} `graphql:"object(oid: $oid)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	const op = "repository.object"
	qctx, rec := gqlContext(ctx, op, true)
	vars := map[string]any{"owner": githubv4.String(owner), "name": githubv4.String(repo), "oid": githubv4.GitObjectID(sha)}
	if err := c.gql.Query(qctx, &q, vars); err != nil {
		return nil, fmt.Errorf("finding pull requests for %s in %s/%s: %w", sha, owner, repo, gqlErr(op, rec, err))
	}
	if q.Repository == nil || q.Repository.Object == nil {
		return nil, nil
	}
	var nums []int
	for _, n := range q.Repository.Object.Commit.AssociatedPullRequests.Nodes {
		nums = append(nums, n.Number)
	}
	return nums, nil
}

// Permission is a user's permission on a repository.
type Permission struct {
	// Permission is the legacy base role: admin, write, read or none
	// (maintain reads as write, triage as read).
	Permission string
	// RoleName is the assigned role (admin, maintain, write, triage, read
	// or a custom role); empty when the response has none.
	RoleName string
}

// CollaboratorPermission reads a user's permission on the repository.
// https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user
// — `permission` maps maintain to write and triage to read; `role_name` has the real role.
func (c *Client) CollaboratorPermission(ctx context.Context, owner, repo, user string) (Permission, error) {
	p, resp, err := c.rest.Repositories.GetPermissionLevel(ctx, owner, repo, user)
	if err != nil {
		return Permission{}, fmt.Errorf("reading the permission of @%s on %s/%s: %w", user, owner, repo, restErr("GET /repos/{owner}/{repo}/collaborators/{username}/permission", resp, err))
	}
	if p.Permission == nil {
		return Permission{}, fmt.Errorf("reading the permission of @%s on %s/%s: response field permission: missing", user, owner, repo)
	}
	// go-github v62 has no top-level role_name; the user object carries
	// the same role_name (nullable-collaborator requires it).
	return Permission{Permission: p.GetPermission(), RoleName: p.GetUser().GetRoleName()}, nil
}

// FileContent returns the content of the file at path on ref (empty: the
// default branch), and found false when there is no such file.
// https://docs.github.com/en/rest/repos/contents#get-repository-content
func (c *Client) FileContent(ctx context.Context, owner, repo, path, ref string) ([]byte, bool, error) {
	f, dir, resp, err := c.rest.Repositories.GetContents(ctx, owner, repo, path, &gh.RepositoryContentGetOptions{Ref: ref})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s of %s/%s: %w", path, owner, repo, restErr("GET /repos/{owner}/{repo}/contents/{path}", resp, err))
	}
	if f == nil || dir != nil {
		return nil, false, fmt.Errorf("reading %s of %s/%s: it is a directory, not a file", path, owner, repo)
	}
	s, err := f.GetContent()
	if err != nil {
		return nil, false, fmt.Errorf("reading %s of %s/%s: %w", path, owner, repo, err)
	}
	return []byte(s), true, nil
}
