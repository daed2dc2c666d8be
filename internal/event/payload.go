package event

import "encoding/json"

// The webhook payload shapes read by Parse: only the fields used, named
// after go-github v62's event types (github.CheckRunEvent, …) so the two
// read alike. Getters are nil-safe like go-github's, so a payload missing an
// object yields empty values instead of a panic.

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type repository struct {
	Name  string `json:"name"`
	Owner *user  `json:"owner"`
}

type app struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

type branch struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

type pullRequest struct {
	Number int     `json:"number"`
	Merged bool    `json:"merged"`
	Head   *branch `json:"head"`
}

type checkRun struct {
	Name         string         `json:"name"`
	HeadSHA      string         `json:"head_sha"`
	Conclusion   string         `json:"conclusion"`
	App          *app           `json:"app"`
	PullRequests []*pullRequest `json:"pull_requests"`
}

type checkSuite struct {
	HeadSHA      string         `json:"head_sha"`
	HeadBranch   string         `json:"head_branch"`
	Conclusion   string         `json:"conclusion"`
	App          *app           `json:"app"`
	PullRequests []*pullRequest `json:"pull_requests"`
}

type workflow struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

type workflowRun struct {
	Name         string         `json:"name"`
	HeadSHA      string         `json:"head_sha"`
	HeadBranch   string         `json:"head_branch"`
	Conclusion   string         `json:"conclusion"`
	PullRequests []*pullRequest `json:"pull_requests"`
	// Read for Wake.WorkflowRun (workflowrun.go); times stay strings so
	// an odd timestamp never fails the whole payload.
	ID           int64  `json:"id"`
	Path         string `json:"path"`
	Event        string `json:"event"`
	Status       string `json:"status"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
	RunStartedAt string `json:"run_started_at"`
	Actor        *user  `json:"actor"`
}

type review struct {
	ID                int64  `json:"id"`
	User              *user  `json:"user"`
	AuthorAssociation string `json:"author_association"`
}

type comment struct {
	ID                int64  `json:"id"`
	Body              string `json:"body"`
	User              *user  `json:"user"`
	AuthorAssociation string `json:"author_association"`
}

type issue struct {
	Number int `json:"number"`
	// PullRequestLinks is present (and not null) only on a pull request.
	PullRequestLinks json.RawMessage `json:"pull_request"`
}

// envelope holds the fields every event shares.
type envelope struct {
	Action string      `json:"action"`
	Repo   *repository `json:"repository"`
	Sender *user       `json:"sender"`
}

type checkRunEvent struct {
	envelope
	CheckRun *checkRun `json:"check_run"`
}

type checkSuiteEvent struct {
	envelope
	CheckSuite *checkSuite `json:"check_suite"`
}

type workflowRunEvent struct {
	envelope
	Workflow    *workflow    `json:"workflow"`
	WorkflowRun *workflowRun `json:"workflow_run"`
}

type pullRequestReviewEvent struct {
	envelope
	Review      *review      `json:"review"`
	PullRequest *pullRequest `json:"pull_request"`
}

type pullRequestReviewCommentEvent struct {
	envelope
	Comment     *comment     `json:"comment"`
	PullRequest *pullRequest `json:"pull_request"`
}

type pullRequestEvent struct {
	envelope
	PullRequest *pullRequest `json:"pull_request"`
	Label       *label       `json:"label"`
}

// label is the label a pull_request labeled event added.
type label struct {
	Name string `json:"name"`
}

func (l *label) GetName() string {
	if l == nil {
		return ""
	}
	return l.Name
}

type issueCommentEvent struct {
	envelope
	Issue   *issue   `json:"issue"`
	Comment *comment `json:"comment"`
}

type workflowDispatchEvent struct {
	envelope
	Inputs json.RawMessage `json:"inputs"`
}

func (e *envelope) GetAction() string    { return e.Action }
func (e *envelope) GetRepo() *repository { return e.Repo }
func (e *envelope) GetSender() *user     { return e.Sender }
func (u *user) GetLogin() string         { return get(u, func(u *user) string { return u.Login }) }
func (u *user) GetType() string          { return get(u, func(u *user) string { return u.Type }) }
func (r *repository) GetName() string    { return get(r, func(r *repository) string { return r.Name }) }
func (r *repository) GetOwner() *user    { return get(r, func(r *repository) *user { return r.Owner }) }
func (a *app) GetSlug() string           { return get(a, func(a *app) string { return a.Slug }) }
func (a *app) GetName() string           { return get(a, func(a *app) string { return a.Name }) }
func (b *branch) GetRef() string         { return get(b, func(b *branch) string { return b.Ref }) }
func (b *branch) GetSHA() string         { return get(b, func(b *branch) string { return b.SHA }) }
func (p *pullRequest) GetNumber() int    { return get(p, func(p *pullRequest) int { return p.Number }) }
func (p *pullRequest) GetMerged() bool   { return get(p, func(p *pullRequest) bool { return p.Merged }) }
func (p *pullRequest) GetHead() *branch {
	return get(p, func(p *pullRequest) *branch { return p.Head })
}
func (c *checkRun) GetName() string    { return get(c, func(c *checkRun) string { return c.Name }) }
func (c *checkRun) GetHeadSHA() string { return get(c, func(c *checkRun) string { return c.HeadSHA }) }
func (c *checkRun) GetConclusion() string {
	return get(c, func(c *checkRun) string { return c.Conclusion })
}
func (c *checkRun) GetApp() *app { return get(c, func(c *checkRun) *app { return c.App }) }
func (c *checkSuite) GetHeadSHA() string {
	return get(c, func(c *checkSuite) string { return c.HeadSHA })
}
func (c *checkSuite) GetHeadBranch() string {
	return get(c, func(c *checkSuite) string { return c.HeadBranch })
}
func (c *checkSuite) GetConclusion() string {
	return get(c, func(c *checkSuite) string { return c.Conclusion })
}
func (c *checkSuite) GetApp() *app     { return get(c, func(c *checkSuite) *app { return c.App }) }
func (w *workflow) GetName() string    { return get(w, func(w *workflow) string { return w.Name }) }
func (w *workflow) GetPath() string    { return get(w, func(w *workflow) string { return w.Path }) }
func (w *workflowRun) GetName() string { return get(w, func(w *workflowRun) string { return w.Name }) }
func (w *workflowRun) GetHeadSHA() string {
	return get(w, func(w *workflowRun) string { return w.HeadSHA })
}
func (w *workflowRun) GetHeadBranch() string {
	return get(w, func(w *workflowRun) string { return w.HeadBranch })
}
func (w *workflowRun) GetConclusion() string {
	return get(w, func(w *workflowRun) string { return w.Conclusion })
}
func (r *review) GetID() int64   { return get(r, func(r *review) int64 { return r.ID }) }
func (r *review) GetUser() *user { return get(r, func(r *review) *user { return r.User }) }
func (r *review) GetAuthorAssociation() string {
	return get(r, func(r *review) string { return r.AuthorAssociation })
}
func (c *comment) GetID() int64    { return get(c, func(c *comment) int64 { return c.ID }) }
func (c *comment) GetBody() string { return get(c, func(c *comment) string { return c.Body }) }
func (c *comment) GetUser() *user  { return get(c, func(c *comment) *user { return c.User }) }
func (c *comment) GetAuthorAssociation() string {
	return get(c, func(c *comment) string { return c.AuthorAssociation })
}
func (i *issue) GetNumber() int { return get(i, func(i *issue) int { return i.Number }) }

// IsPullRequest reports whether the issue is a pull request, which GitHub
// marks by a non-null issue.pull_request object.
func (i *issue) IsPullRequest() bool {
	return i != nil && len(i.PullRequestLinks) > 0 && string(i.PullRequestLinks) != "null"
}

func (e *checkRunEvent) GetCheckRun() *checkRun          { return e.CheckRun }
func (e *checkSuiteEvent) GetCheckSuite() *checkSuite    { return e.CheckSuite }
func (e *workflowRunEvent) GetWorkflow() *workflow       { return e.Workflow }
func (e *workflowRunEvent) GetWorkflowRun() *workflowRun { return e.WorkflowRun }
func (e *pullRequestReviewEvent) GetReview() *review     { return e.Review }
func (e *pullRequestReviewEvent) GetPullRequest() *pullRequest {
	return e.PullRequest
}
func (e *pullRequestReviewCommentEvent) GetComment() *comment { return e.Comment }
func (e *pullRequestReviewCommentEvent) GetPullRequest() *pullRequest {
	return e.PullRequest
}
func (e *pullRequestEvent) GetPullRequest() *pullRequest { return e.PullRequest }
func (e *issueCommentEvent) GetIssue() *issue            { return e.Issue }
func (e *issueCommentEvent) GetComment() *comment        { return e.Comment }

// get reads a field through a possibly nil pointer.
func get[T any, V any](p *T, f func(*T) V) V {
	if p == nil {
		var zero V
		return zero
	}
	return f(p)
}
