// Package ghfake is a stateful in-memory GitHub served over real HTTP: REST
// and GraphQL for what review-loop calls, a real bare git repository per
// repository, scripted faults and a request log. Tests, the demo and the
// engine-bot simulator run against it.
package ghfake

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configure a Fake.
type Options struct {
	// SchemaPath is GitHub's public GraphQL schema (schema.docs.graphql).
	// When empty or absent the embedded subset schema is used.
	SchemaPath string
	// Now is the clock for timestamps; default time.Now.
	Now func() time.Time
	// Dir holds the bare repositories; default a new temporary directory
	// removed by Close.
	Dir string
	// FirstID is where the fake's object ids start (reviews, comments,
	// check runs...); default 2233029557, like GitHub's today: above 2^31,
	// so every check run answers GraphQL databaseId null.
	FirstID int64
	// RESTLimit and GraphQLLimit are each identity's hourly budgets;
	// default DefaultRESTLimit and DefaultGraphQLLimit (ratelimit.go).
	RESTLimit    int
	GraphQLLimit int
}

// Identity is who a token authenticates as.
type Identity struct {
	Login       string
	ID          int64
	Bot         bool   // a GitHub App installation (REST login gets "[bot]")
	Association string // author association on the fake's repositories; default OWNER
	// ReadOnly is a token with read permissions only (a GITHUB_TOKEN under
	// `permissions: contents: read, pull-requests: read`): GitHub answers
	// every write — a REST request other than GET or HEAD, a GraphQL
	// mutation — with 403 "Resource not accessible by integration"
	// (docs.github.com, "Automatic token authentication": the token has
	// only the permissions the workflow grants).
	ReadOnly bool
}

// Fake is the fake GitHub. All methods are safe for concurrent use.
type Fake struct {
	mu     sync.Mutex
	opts   Options
	schema *schemaHolder
	srv    *httptest.Server
	dir    string
	ownDir bool
	nextID int64
	users  map[string]*user
	tokens map[string]Identity
	viewer Identity // identity for requests without a known token when no tokens are set
	repos  map[string]*repo
	nodes  map[string]any
	faults []*Fault
	// log is the request log, under logMu (not mu: a handler that holds
	// mu is logged as its answer starts).
	logMu    sync.Mutex
	log      []Request
	gitLog   []GitRequest
	dispatch []Dispatch
	reacts   []Reaction
	denyRes  map[string]bool
	rates    map[string]*rateWindow

	onIssueComment    []func(IssueCommentEvent)
	onReviewRequested []func(ReviewRequestEvent)
	onPush            []func(PushEvent)
}

type user struct {
	Login  string
	ID     int64
	Bot    bool
	NodeID string
}

type repo struct {
	owner, name   string
	id            int64
	nodeID        string
	defaultBranch string
	bare          string
	protected     map[string]bool
	prs           map[int]*pr
	issues        map[int]*Issue
	nextNumber    int
	checkRuns     map[string][]*CheckRun     // by head SHA
	statuses      map[string][]*CommitStatus // by commit SHA, oldest first
	roles         map[string]string          // login → repository role (SetPermission)
	secrets       map[string]bool            // Actions secret names (SetSecret)
	workflowRuns  []*WorkflowRun             // oldest first (actions.go)
	rulesets      []*Ruleset                 // AddRuleset (rulesets.go)
	memo          objectMemo                 // answers about objects named by SHA (git.go)
}

type pr struct {
	repo      *repo
	Number    int
	NodeID    string
	Title     string
	Body      string
	Author    string
	State     string
	Draft     bool
	HeadRef   string
	BaseRef   string
	Fork      bool
	HeadRepo  string
	headSHA   string
	commits   []string
	Reviews   []*Review
	Threads   []*Thread
	Comments  []*IssueComment
	Requested []string
	Labels    []string
	CreatedAt time.Time
	Additions int
	Deletions int
}

// updatedAt is when the pull request last changed as GitHub's updatedAt
// counts it: its creation, its comments and its reviews.
func (p *pr) updatedAt() time.Time {
	t := p.CreatedAt
	for _, c := range p.Comments {
		t = maxTime(t, c.CreatedAt, c.UpdatedAt)
	}
	for _, rv := range p.Reviews {
		t = maxTime(t, rv.SubmittedAt)
	}
	return t
}

func maxTime(t time.Time, ts ...time.Time) time.Time {
	for _, x := range ts {
		if x.After(t) {
			t = x
		}
	}
	return t
}

// Review is a pull request review as the fake stores it.
type Review struct {
	ID          int64
	NodeID      string
	Author      string
	CommitSHA   string
	State       string // COMMENTED, APPROVED, CHANGES_REQUESTED, DISMISSED, PENDING
	Body        string
	SubmittedAt time.Time
	// MinimizedReason is set once the review is hidden (minimized), as
	// GitHub's minimizeComment does; "" while it is shown.
	MinimizedReason string
}

// Thread is a review thread as the fake stores it.
type Thread struct {
	NodeID       string
	Path         string
	Line         int // 0 once outdated
	StartLine    int
	OriginalLine int
	Resolved     bool
	Outdated     bool
	Comments     []*ReviewComment
}

// ReviewComment is one comment of a thread.
type ReviewComment struct {
	ID                int64
	NodeID            string
	Author            string
	Body              string
	CreatedAt         time.Time
	ReviewID          int64
	CommitSHA         string
	OriginalCommitSHA string
	InReplyTo         int64
}

// IssueComment is a PR conversation comment.
type IssueComment struct {
	ID          int64
	NodeID      string
	Author      string
	Association string
	Body        string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// CommitStatus is one commit status (REST "statuses", GraphQL
// StatusContext): CodeRabbit may report its review as a commit status
// named "CodeRabbit" rather than a check run (../shared/ENGINES.md).
type CommitStatus struct {
	ID          int64
	NodeID      string
	SHA         string
	Context     string
	State       string // ERROR, EXPECTED, FAILURE, PENDING, SUCCESS
	Description string
	Creator     string // login
	CreatedAt   time.Time
}

// CheckRun is a check run on a commit.
type CheckRun struct {
	ID          int64
	NodeID      string
	HeadSHA     string
	Name        string
	AppSlug     string
	Status      string // QUEUED, IN_PROGRESS, COMPLETED
	Conclusion  string // SUCCESS, NEUTRAL, FAILURE, ... or ""
	StartedAt   time.Time
	CompletedAt time.Time
	Title       string
	Summary     string
	Text        string
	// WorkflowPath is the workflow file of the Actions run whose job this
	// check run is (app github-actions; "" for other apps). On GitHub
	// each workflow run has a check suite of its own, whose workflowRun
	// names the file: Copilot's dynamic workflow is
	// dynamic/copilot-pull-request-reviewer/... (../shared/ENGINES.md).
	WorkflowPath string
}

// Issue is an issue created through the API.
type Issue struct {
	Number int
	Title  string
	Body   string
	Labels []string
	Author string
	URL    string
}

// Dispatch is one recorded workflow_dispatch.
type Dispatch struct {
	Owner, Repo, Workflow, Ref string
	Inputs                     map[string]any
	By                         string
}

// Reaction is one recorded reaction on an issue comment.
type Reaction struct {
	Owner, Repo string
	CommentID   int64
	Content     string
	By          string
}

// Request is one entry of the request log.
type Request struct {
	Method string
	Path   string
	Query  string
	// GraphQL is the root field(s) of a GraphQL document, comma-separated,
	// and Operation is "query" or "mutation"; both empty for REST.
	GraphQL   string
	Operation string
	Status    int
	Login     string
	// ReadOnly marks a request made with a read-only token.
	ReadOnly bool
	// Body is the request's body as it arrived.
	Body []byte

	// NotModified marks a conditional GET answered 304, which GitHub
	// does not count against the rate limit (conditional.go).
	NotModified bool
}

// IssueCommentEvent is passed to OnIssueComment hooks after a comment is
// created through the API.
type IssueCommentEvent struct {
	Owner, Repo string
	Number      int
	Comment     IssueComment
}

// ReviewRequestEvent is passed to OnReviewRequested hooks; Logins are as
// requested (a Copilot review request carries "copilot-pull-request-reviewer").
type ReviewRequestEvent struct {
	Owner, Repo string
	Number      int
	Logins      []string
}

// PushEvent is passed to OnPush hooks when a PR's head moves.
type PushEvent struct {
	Owner, Repo string
	Number      int
	Branch      string
	Before      string
	After       string
}

// New starts a fake on a loopback httptest server; Close stops it.
func New(opts Options) *Fake {
	f := newFake(opts)
	f.srv = httptest.NewServer(f)
	return f
}

// Start starts a fake listening on addr (e.g. "127.0.0.1:8123") for the
// demo and for tools that need a fixed port.
func Start(addr string, opts Options) (*Fake, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	f := newFake(opts)
	f.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}}
	f.srv.Start()
	return f, nil
}

func newFake(opts Options) *Fake {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	f := &Fake{
		opts:    opts,
		schema:  &schemaHolder{path: opts.SchemaPath},
		nextID:  cmp.Or(opts.FirstID, 2233029557),
		users:   map[string]*user{},
		tokens:  map[string]Identity{},
		repos:   map[string]*repo{},
		nodes:   map[string]any{},
		denyRes: map[string]bool{},
		dir:     opts.Dir,
		viewer:  Identity{Login: "github-actions", ID: 41898282, Bot: true, Association: "NONE"},
	}
	if f.dir == "" {
		d, err := os.MkdirTemp("", "ghfake-")
		if err != nil {
			panic(fmt.Sprintf("ghfake: temp dir: %v", err))
		}
		f.dir, f.ownDir = d, true
	}
	f.addUserLocked(f.viewer.Login, f.viewer.ID, true)
	// GitHub's review-engine bots exist on every repository: an author
	// "Copilot" or "cursor" is the bot, as on GitHub, and a user account
	// with such a login is spelled UserPrefix+login. Logins and ids from
	// ../shared/ENGINES.md (Copilot's reviews and inline comments are one
	// bot, id 175728472, under two logins).
	for _, b := range []struct {
		login string
		id    int64
	}{{"cursor", 206951365}, {"copilot-pull-request-reviewer", 175728472}, {"Copilot", 175728472},
		{"claude", 209825114}, {"gemini-code-assist", 176961590}, {"coderabbitai", 136622811}} {
		f.addUserLocked(b.login, b.id, true)
	}
	return f
}

// Close stops the server and removes the repositories it created.
func (f *Fake) Close() {
	f.srv.Close()
	if f.ownDir {
		os.RemoveAll(f.dir)
	}
}

// URL is the REST base URL (GITHUB_API_URL).
func (f *Fake) URL() string { return f.srv.URL }

// GraphQLURL is the GraphQL endpoint (GITHUB_GRAPHQL_URL).
func (f *Fake) GraphQLURL() string { return f.srv.URL + "/graphql" }

func (f *Fake) id() int64 {
	f.nextID++
	return f.nextID
}

func key(owner, name string) string { return strings.ToLower(owner + "/" + name) }

// UserPrefix spells a user account whose login equals a bot's: an author
// "user:Copilot" is the user account Copilot (__typename User, REST type
// User), distinct from the Copilot bot. GraphQL gives bot logins without
// "[bot]", so on GitHub both answer login "Copilot" (../shared/ENGINES.md,
// round 2, "Identity"); the fake keeps them apart by this spelling only.
const UserPrefix = "user:"

// AddUser registers a user or bot. Logins are as GraphQL spells them (no
// "[bot]" suffix); REST answers add the suffix for bots. A login spelled
// UserPrefix+login is a user account even when a bot has that login.
func (f *Fake) AddUser(login string, id int64, bot bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addUserLocked(login, id, bot)
}

func (f *Fake) addUserLocked(login string, id int64, bot bool) *user {
	login = strings.TrimSuffix(login, "[bot]")
	k := strings.ToLower(login)
	if l, ok := strings.CutPrefix(login, UserPrefix); ok {
		login, bot = l, false
	}
	if u, ok := f.users[k]; ok {
		return u
	}
	if id == 0 {
		id = f.id()
	}
	prefix := "U_"
	if bot {
		prefix = "BOT_"
	}
	u := &user{Login: login, ID: id, Bot: bot, NodeID: fmt.Sprintf("%s%d", prefix, id)}
	f.users[k] = u
	f.nodes[u.NodeID] = u
	return u
}

func (f *Fake) userLocked(login string) *user {
	return f.addUserLocked(login, 0, strings.HasSuffix(login, "[bot]"))
}

// AddToken maps a token to an identity. Once any token is added, requests
// with an unknown token get 401. The first token added becomes the default
// viewer.
func (f *Fake) AddToken(token string, id Identity) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id.Login = strings.TrimSuffix(id.Login, "[bot]")
	if id.Association == "" {
		id.Association = "OWNER"
	}
	u := f.addUserLocked(id.Login, id.ID, id.Bot)
	id.ID = u.ID
	f.tokens[token] = id
}

// DenyResolve makes resolveReviewThread by login fail with "Resource not
// accessible by integration", as GitHub does for some GITHUB_TOKEN setups.
func (f *Fake) DenyResolve(login string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.denyRes[strings.ToLower(login)] = true
}

// AddRepo creates a repository with a bare git repository whose default
// branch holds one commit.
func (f *Fake) AddRepo(owner, name, defaultBranch string) error {
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	bare := filepath.Join(f.dir, owner, name+".git")
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		return err
	}
	if err := initBare(context.Background(), bare, defaultBranch); err != nil {
		return fmt.Errorf("creating %s/%s: %w", owner, name, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addUserLocked(owner, 0, false)
	r := &repo{owner: owner, name: name, id: f.id(), defaultBranch: defaultBranch, bare: bare,
		protected: map[string]bool{}, prs: map[int]*pr{}, issues: map[int]*Issue{}, nextNumber: 1,
		checkRuns: map[string][]*CheckRun{}, statuses: map[string][]*CommitStatus{}}
	r.nodeID = fmt.Sprintf("R_%d", r.id)
	f.nodes[r.nodeID] = r
	f.repos[key(owner, name)] = r
	return f.protectLocked(r, defaultBranch, true)
}

// CloneURL is a file:// URL of the repository's bare git repository
// (HTTPCloneURL serves the same repository over HTTP, as GitHub does).
func (f *Fake) CloneURL(owner, repo string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.repos[key(owner, repo)]; r != nil {
		return "file://" + r.bare
	}
	return ""
}

// SetProtected marks a branch protected (pushes refused, GET branch says
// protected) or not. The default branch starts protected.
func (f *Fake) SetProtected(owner, repo, branch string, protected bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repo)]
	if r == nil {
		return fmt.Errorf("no repository %s/%s", owner, repo)
	}
	return f.protectLocked(r, branch, protected)
}

func (f *Fake) protectLocked(r *repo, branch string, protected bool) error {
	if protected {
		r.protected[branch] = true
	} else {
		delete(r.protected, branch)
	}
	var lines []string
	for b := range r.protected {
		lines = append(lines, "refs/heads/"+b)
	}
	slices.Sort(lines)
	return os.WriteFile(filepath.Join(r.bare, "protected-refs"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// RejectPushes makes every push to the repository fail (or stop failing).
func (f *Fake) RejectPushes(owner, repo string, reject bool) error {
	f.mu.Lock()
	r := f.repos[key(owner, repo)]
	f.mu.Unlock()
	if r == nil {
		return fmt.Errorf("no repository %s/%s", owner, repo)
	}
	p := filepath.Join(r.bare, "reject-pushes")
	if reject {
		return os.WriteFile(p, nil, 0o644)
	}
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// PROptions describe a pull request to create.
type PROptions struct {
	Title  string
	Body   string
	Author string // default the repository owner
	Head   string // head branch, created from Base with Files committed
	Base   string // default the default branch
	Draft  bool
	Fork   bool              // the head repository is a fork
	Files  map[string]string // committed on the head branch; default one file
	// Additions is the PR's size in added lines as GitHub reports it;
	// default 3. A large value stands for a PR too big to commit here.
	Additions int
}

// CreatePR creates the head branch in the bare repository and opens a pull
// request from it. It returns the PR number.
func (f *Fake) CreatePR(owner, repoName string, o PROptions) (int, error) {
	f.mu.Lock()
	r := f.repos[key(owner, repoName)]
	f.mu.Unlock()
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, repoName)
	}
	if o.Base == "" {
		o.Base = r.defaultBranch
	}
	if o.Head == "" {
		o.Head = "feature"
	}
	if o.Author == "" {
		o.Author = owner
	}
	if o.Title == "" {
		o.Title = "Change " + o.Head
	}
	if o.Files == nil {
		o.Files = map[string]string{"main.go": "package main\n\nfunc main() {}\n"}
	}
	sha, err := commitFiles(context.Background(), r.bare, o.Head, o.Base, o.Files, o.Title)
	if err != nil {
		return 0, fmt.Errorf("creating head branch %s: %w", o.Head, err)
	}
	r.memo.knowCommit(sha)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := r.setPullRef(r.nextNumber, sha); err != nil {
		return 0, err
	}
	f.userLocked(o.Author)
	p := &pr{repo: r, Number: r.nextNumber, Title: o.Title, Body: o.Body, Author: o.Author, State: "OPEN",
		Draft: o.Draft, HeadRef: o.Head, BaseRef: o.Base, Fork: o.Fork, headSHA: sha, commits: []string{sha},
		CreatedAt: f.opts.Now().UTC(), Additions: max(o.Additions, 3), Deletions: 0}
	p.HeadRepo = owner + "/" + repoName
	if o.Fork {
		p.HeadRepo = o.Author + "/" + repoName
	}
	r.nextNumber++
	p.NodeID = fmt.Sprintf("PR_%d", f.id())
	f.nodes[p.NodeID] = p
	r.prs[p.Number] = p
	return p.Number, nil
}

// PushCommit commits files on branch and pushes through the repository's
// hooks (so protection and push faults apply), as an outside push would.
func (f *Fake) PushCommit(owner, repoName, branch string, files map[string]string, message string) (string, error) {
	return f.outsidePush(owner, repoName, func(ctx context.Context, r *repo) (string, error) {
		return commitFiles(ctx, r.bare, branch, branch, files, message)
	})
}

// syncRepoLocked re-reads every open PR's head from the bare repository;
// a moved head records the commit and marks threads on changed files
// outdated.
func (f *Fake) syncRepoLocked(r *repo) []PushEvent {
	var events []PushEvent
	for _, p := range r.prs {
		if ev, ok := f.syncPRLocked(p); ok {
			events = append(events, ev)
		}
	}
	return events
}

func (f *Fake) syncPRLocked(p *pr) (PushEvent, bool) {
	sha := p.repo.branchSHA(p.HeadRef)
	if sha == "" || sha == p.headSHA {
		return PushEvent{}, false
	}
	before := p.headSHA
	ctx := context.Background()
	// The files the push changed matter only to threads not yet
	// outdated: with none, git is not asked.
	var files []string
	if slices.ContainsFunc(p.Threads, func(t *Thread) bool { return !t.Outdated }) {
		changed, _ := gitObjectCached(ctx, p.repo, "diff", "--name-only", before, sha)
		files = strings.Split(changed, "\n")
	}
	// The base branch read from its ref file, so the count is asked
	// about two SHAs (and kept) rather than a name that moves.
	base := p.BaseRef
	if s := p.repo.branchSHA(p.BaseRef); s != "" {
		base = s
	}
	count, err := gitObjectCached(ctx, p.repo, "rev-list", "--count", base+".."+sha)
	p.commits = append(p.commits, sha)
	if n := atoi(count); err == nil && n > 0 {
		for len(p.commits) < n {
			p.commits = append(p.commits, sha)
		}
	}
	p.headSHA = sha
	// GitHub moves refs/pull/<N>/head with the branch; a failed write
	// leaves the old head advertised, as a lagging GitHub would.
	_ = p.repo.setPullRef(p.Number, sha)
	for _, t := range p.Threads {
		if slices.Contains(files, t.Path) && !t.Outdated {
			t.Outdated = true
			t.Line = 0
			t.StartLine = 0
		}
	}
	return PushEvent{Owner: p.repo.owner, Repo: p.repo.name, Number: p.Number, Branch: p.HeadRef, Before: before, After: sha}, true
}

func (f *Fake) firePush(events []PushEvent) {
	f.mu.Lock()
	hooks := slices.Clone(f.onPush)
	f.mu.Unlock()
	for _, ev := range events {
		for _, h := range hooks {
			h(ev)
		}
	}
}

func (f *Fake) prLocked(owner, repoName string, number int) (*pr, error) {
	r := f.repos[key(owner, repoName)]
	if r == nil {
		return nil, fmt.Errorf("no repository %s/%s", owner, repoName)
	}
	p := r.prs[number]
	if p == nil {
		return nil, fmt.Errorf("no pull request %s/%s#%d", owner, repoName, number)
	}
	return p, nil
}

// HeadSHA is the PR's head commit, read from the bare repository.
func (f *Fake) HeadSHA(owner, repo string, number int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return ""
	}
	f.syncPRLocked(p)
	return p.headSHA
}

// SetPRState sets OPEN, CLOSED or MERGED and the draft flag.
func (f *Fake) SetPRState(owner, repo string, number int, state string, draft bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return err
	}
	p.State, p.Draft = state, draft
	return nil
}

// ReviewOptions describe a review to add.
type ReviewOptions struct {
	Author    string
	State     string // default COMMENTED
	Body      string
	CommitSHA string // default the current head
}

// AddReview adds a submitted review and returns its id.
func (f *Fake) AddReview(owner, repo string, number int, o ReviewOptions) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return 0, err
	}
	f.syncPRLocked(p)
	if o.State == "" {
		o.State = "COMMENTED"
	}
	if o.CommitSHA == "" {
		o.CommitSHA = p.headSHA
	}
	f.userLocked(o.Author)
	rv := &Review{ID: f.id(), Author: strings.TrimSuffix(o.Author, "[bot]"), CommitSHA: o.CommitSHA, State: o.State, Body: o.Body, SubmittedAt: f.opts.Now().UTC()}
	rv.NodeID = fmt.Sprintf("PRR_%d", rv.ID)
	f.nodes[rv.NodeID] = rv
	p.Reviews = append(p.Reviews, rv)
	// Submitting a review fulfils the author's review request, as on GitHub.
	p.Requested = slices.DeleteFunc(p.Requested, func(l string) bool {
		return strings.EqualFold(strings.TrimSuffix(l, "[bot]"), rv.Author)
	})
	return rv.ID, nil
}

// MinimizeReview hides a review, as GitHub's minimizeComment mutation
// does (Bugbot hides its own earlier reviews on rerun). classifier is one
// of GitHub's ReportedContentClassifiers (OUTDATED, RESOLVED, DUPLICATE,

// EditReviewBody replaces a review's body as its author would (Bugbot
// rewrites the reviews of an earlier run to "Stale Bugbot comment from a
// previous run.", ENGINES.md round 4).
func (f *Fake) EditReviewBody(owner, repo string, number int, id int64, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return err
	}
	for _, rv := range p.Reviews {
		if rv.ID == id {
			rv.Body = body
			return nil
		}
	}
	return fmt.Errorf("no review %d on #%d", id, number)
}

// OFF_TOPIC, SPAM, ABUSE); the review reads isMinimized true after.
func (f *Fake) MinimizeReview(owner, repo string, number int, id int64, classifier string) error {
	if !slices.Contains(minimizeClassifiers, classifier) {
		return fmt.Errorf("minimize review %d: unknown classifier %q", id, classifier)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return err
	}
	for _, rv := range p.Reviews {
		if rv.ID == id {
			rv.MinimizedReason = strings.ToLower(classifier)
			return nil
		}
	}
	return fmt.Errorf("minimize review %d: no such review on %s/%s#%d", id, owner, repo, number)
}

// CommentOptions describe a review comment to add.
type CommentOptions struct {
	Author    string
	Body      string
	Path      string
	Line      int
	StartLine int
	ReviewID  int64 // default a new COMMENTED review of its own
	InReplyTo int64 // a reply joins the thread of that comment
	CommitSHA string
}

// AddReviewComment adds an inline comment (a new thread, or a reply) and
// returns the comment id and the thread's node id.
func (f *Fake) AddReviewComment(owner, repo string, number int, o CommentOptions) (int64, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return 0, "", err
	}
	return f.addReviewCommentLocked(p, o)
}

func (f *Fake) addReviewCommentLocked(p *pr, o CommentOptions) (int64, string, error) {
	f.syncPRLocked(p)
	if o.CommitSHA == "" {
		o.CommitSHA = p.headSHA
	}
	author := strings.TrimSuffix(o.Author, "[bot]")
	f.userLocked(o.Author)
	if o.ReviewID == 0 {
		rv := &Review{ID: f.id(), Author: author, CommitSHA: o.CommitSHA, State: "COMMENTED", SubmittedAt: f.opts.Now().UTC()}
		rv.NodeID = fmt.Sprintf("PRR_%d", rv.ID)
		f.nodes[rv.NodeID] = rv
		p.Reviews = append(p.Reviews, rv)
		o.ReviewID = rv.ID
	}
	c := &ReviewComment{ID: f.id(), Author: author, Body: o.Body, CreatedAt: f.opts.Now().UTC(), ReviewID: o.ReviewID,
		CommitSHA: o.CommitSHA, OriginalCommitSHA: o.CommitSHA, InReplyTo: o.InReplyTo}
	c.NodeID = fmt.Sprintf("PRRC_%d", c.ID)
	f.nodes[c.NodeID] = c
	if o.InReplyTo != 0 {
		for _, t := range p.Threads {
			if slices.ContainsFunc(t.Comments, func(x *ReviewComment) bool { return x.ID == o.InReplyTo }) {
				t.Comments = append(t.Comments, c)
				return c.ID, t.NodeID, nil
			}
		}
		return 0, "", fmt.Errorf("no review comment %d", o.InReplyTo)
	}
	t := &Thread{NodeID: fmt.Sprintf("PRRT_%d", f.id()), Path: o.Path, Line: o.Line, StartLine: o.StartLine, OriginalLine: o.Line, Comments: []*ReviewComment{c}}
	f.nodes[t.NodeID] = t
	p.Threads = append(p.Threads, t)
	return c.ID, t.NodeID, nil
}

// SetThreadResolved resolves or unresolves a thread by node id.
func (f *Fake) SetThreadResolved(threadID string, resolved bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.nodes[threadID].(*Thread)
	if !ok {
		return fmt.Errorf("no thread %s", threadID)
	}
	t.Resolved = resolved
	return nil
}

// CheckRunOptions describe a check run to create or update (by SHA + name).
type CheckRunOptions struct {
	HeadSHA    string // default the PR head
	Name       string
	AppSlug    string
	Status     string // QUEUED, IN_PROGRESS, COMPLETED
	Conclusion string
	Title      string
	Summary    string
	Text       string
	// ID updates that check run (one this method returned). Zero updates
	// the latest check run named Name on the commit, or creates one.
	ID int64
	// Rerun creates a new check run even when one of that name is on the
	// commit, as a re-run or a new workflow run does on GitHub.
	Rerun bool
	// WorkflowPath is the workflow file of an Actions check run's run.
	WorkflowPath string
}

// EndReviewRequest drops login from the PR's requested reviewers, as when
// the requested bot's run ended without a review.
func (f *Fake) EndReviewRequest(owner, repoName string, number int, login string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repoName, number)
	if err != nil {
		return
	}
	p.Requested = slices.DeleteFunc(p.Requested, func(l string) bool {
		return strings.EqualFold(strings.TrimSuffix(l, "[bot]"), strings.TrimSuffix(login, "[bot]"))
	})
}

// CheckRunsNamed returns copies of the repository's check runs of that
// name on every commit, oldest first.
func (f *Fake) CheckRunsNamed(owner, repoName, name string) []CheckRun {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repoName)]
	if r == nil {
		return nil
	}
	var out []CheckRun
	for _, crs := range r.checkRuns {
		for _, c := range crs {
			if c.Name == name {
				out = append(out, *c)
			}
		}
	}
	slices.SortFunc(out, func(a, b CheckRun) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// SetCheckRun creates or updates the check run named o.Name on the commit,
// moving it through status transitions; it returns the check run id.
func (f *Fake) SetCheckRun(owner, repoName string, number int, o CheckRunOptions) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repoName)]
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, repoName)
	}
	if o.HeadSHA == "" {
		p, err := f.prLocked(owner, repoName, number)
		if err != nil {
			return 0, err
		}
		f.syncPRLocked(p)
		o.HeadSHA = p.headSHA
	}
	if o.Status == "" {
		o.Status = "COMPLETED"
	}
	now := f.opts.Now().UTC()
	var cr *CheckRun
	for _, c := range r.checkRuns[o.HeadSHA] {
		switch {
		case o.ID != 0:
			if c.ID == o.ID {
				cr = c
			}
		case !o.Rerun && c.Name == o.Name && c.AppSlug == o.AppSlug && c.WorkflowPath == o.WorkflowPath:
			cr = c
		}
	}
	if cr == nil && o.ID != 0 {
		return 0, fmt.Errorf("no check run %d on %s", o.ID, o.HeadSHA)
	}
	if cr == nil {
		cr = &CheckRun{ID: f.id(), HeadSHA: o.HeadSHA, Name: o.Name, AppSlug: o.AppSlug, StartedAt: now, WorkflowPath: o.WorkflowPath}
		cr.NodeID = fmt.Sprintf("CR_%d", cr.ID)
		f.nodes[cr.NodeID] = cr
		r.checkRuns[o.HeadSHA] = append(r.checkRuns[o.HeadSHA], cr)
	}
	cr.Status, cr.Conclusion = o.Status, o.Conclusion
	cr.Title, cr.Summary, cr.Text = o.Title, o.Summary, o.Text
	if o.Status == "COMPLETED" {
		cr.CompletedAt = now
	} else {
		cr.CompletedAt = time.Time{}
	}
	return cr.ID, nil
}

// SetCommitStatus creates a commit status on sha (the PR head when sha is
// empty) as creator. As on GitHub, each call adds a status; the newest of
// a context is the one in force, and GraphQL's Status.contexts lists the
// newest per context.
func (f *Fake) SetCommitStatus(owner, repoName string, number int, sha, context, state, description, creator string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.repos[key(owner, repoName)]
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, repoName)
	}
	if sha == "" {
		p, err := f.prLocked(owner, repoName, number)
		if err != nil {
			return 0, err
		}
		f.syncPRLocked(p)
		sha = p.headSHA
	}
	switch state {
	case "ERROR", "EXPECTED", "FAILURE", "PENDING", "SUCCESS":
	default:
		return 0, fmt.Errorf("commit status state %q is not one of ERROR, EXPECTED, FAILURE, PENDING, SUCCESS", state)
	}
	f.userLocked(creator)
	st := &CommitStatus{ID: f.id(), SHA: sha, Context: context, State: state, Description: description,
		Creator: strings.TrimSuffix(creator, "[bot]"), CreatedAt: f.opts.Now().UTC()}
	st.NodeID = fmt.Sprintf("SC_%d", st.ID)
	f.nodes[st.NodeID] = st
	r.statuses[sha] = append(r.statuses[sha], st)
	return st.ID, nil
}

// AddIssueComment adds a PR conversation comment as login with the given
// author association (default OWNER for the owner, else CONTRIBUTOR).
func (f *Fake) AddIssueComment(owner, repo string, number int, login, association, body string) (int64, error) {
	f.mu.Lock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		f.mu.Unlock()
		return 0, err
	}
	if association == "" {
		association = "CONTRIBUTOR"
		if strings.EqualFold(login, owner) {
			association = "OWNER"
		}
	}
	c := f.addIssueCommentLocked(p, login, association, body)
	f.mu.Unlock()
	return c.ID, nil
}

func (f *Fake) addIssueCommentLocked(p *pr, login, association, body string) *IssueComment {
	f.userLocked(login)
	now := f.opts.Now().UTC()
	c := &IssueComment{ID: f.id(), Author: strings.TrimSuffix(login, "[bot]"), Association: association, Body: body, CreatedAt: now, UpdatedAt: now}
	c.NodeID = fmt.Sprintf("IC_%d", c.ID)
	f.nodes[c.NodeID] = c
	p.Comments = append(p.Comments, c)
	return c
}

// EditIssueComment changes a comment's body as someone else would.
func (f *Fake) EditIssueComment(id int64, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.issueCommentLocked(id)
	if c == nil {
		return fmt.Errorf("no issue comment %d", id)
	}
	c.Body = body
	c.UpdatedAt = f.opts.Now().UTC().Add(time.Second)
	return nil
}

func (f *Fake) issueCommentLocked(id int64) *IssueComment {
	c, _ := f.nodes[fmt.Sprintf("IC_%d", id)].(*IssueComment)
	return c
}

// PRSnapshot is a copy of a pull request's state.
type PRSnapshot struct {
	Number             int
	NodeID             string
	Title              string
	State              string
	Draft              bool
	HeadRef, BaseRef   string
	HeadSHA            string
	Fork               bool
	Reviews            []Review
	Threads            []Thread
	Comments           []IssueComment
	RequestedReviewers []string
	CheckRuns          []CheckRun // on the head commit
	Labels             []string
}

// PR returns a snapshot of a pull request (zero value when absent).
func (f *Fake) PR(owner, repo string, number int) PRSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return PRSnapshot{}
	}
	f.syncPRLocked(p)
	s := PRSnapshot{Number: p.Number, NodeID: p.NodeID, Title: p.Title, State: p.State, Draft: p.Draft,
		HeadRef: p.HeadRef, BaseRef: p.BaseRef, HeadSHA: p.headSHA, Fork: p.Fork,
		RequestedReviewers: slices.Clone(p.Requested), Labels: slices.Clone(p.Labels)}
	for _, r := range p.Reviews {
		s.Reviews = append(s.Reviews, *r)
	}
	for _, t := range p.Threads {
		c := *t
		c.Comments = nil
		for _, x := range t.Comments {
			cc := *x
			c.Comments = append(c.Comments, &cc)
		}
		s.Threads = append(s.Threads, c)
	}
	for _, c := range p.Comments {
		s.Comments = append(s.Comments, *c)
	}
	for _, c := range p.repo.checkRuns[p.headSHA] {
		s.CheckRuns = append(s.CheckRuns, *c)
	}
	return s
}

// Issues returns the issues created in a repository.
func (f *Fake) Issues(owner, repo string) []Issue {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Issue
	if r := f.repos[key(owner, repo)]; r != nil {
		for _, i := range r.issues {
			out = append(out, *i)
		}
	}
	slices.SortFunc(out, func(a, b Issue) int { return a.Number - b.Number })
	return out
}

// Requests returns the request log so far.
func (f *Fake) Requests() []Request {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	return slices.Clone(f.log)
}

// WorkflowRunListReads counts the requests recorded so far that list a
// workflow's runs (GET .../actions/workflows/{id}/runs).
func (f *Fake) WorkflowRunListReads() int {
	n := 0
	for _, r := range f.Requests() {
		if strings.Contains(r.Path, "/actions/workflows/") && strings.HasSuffix(r.Path, "/runs") {
			n++
		}
	}
	return n
}

// WorkflowRunListReadsOf counts the reads of one workflow file's runs
// ("claude.yml"): the Claude workflow's, apart from the loop's own
// workflow's that the cost ledger reads (C5).
func (f *Fake) WorkflowRunListReadsOf(file string) int {
	n := 0
	for _, r := range f.Requests() {
		if strings.HasSuffix(r.Path, "/actions/workflows/"+file+"/runs") {
			n++
		}
	}
	return n
}

// ResetRequests clears the request log. The git traffic log is separate
// and kept: ResetGitRequests clears it.
func (f *Fake) ResetRequests() {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	f.log = nil
}

// Dispatches returns the recorded workflow dispatches.
func (f *Fake) Dispatches() []Dispatch {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.dispatch)
}

// Reactions returns the recorded reactions.
func (f *Fake) Reactions() []Reaction {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reacts)
}

// OnIssueComment registers a hook called (outside the fake's lock) after
// an issue comment is created through the API.
func (f *Fake) OnIssueComment(h func(IssueCommentEvent)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onIssueComment = append(f.onIssueComment, h)
}

// OnReviewRequested registers a hook called after reviewers are requested
// (requested_reviewers or the Copilot review endpoint).
func (f *Fake) OnReviewRequested(h func(ReviewRequestEvent)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onReviewRequested = append(f.onReviewRequested, h)
}

// OnPush registers a hook called when a PR's head moves.
func (f *Fake) OnPush(h func(PushEvent)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onPush = append(f.onPush, h)
}

func atoi(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
