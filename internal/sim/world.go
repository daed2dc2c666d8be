package sim

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// Event is a webhook delivery the simulated GitHub would make: the event
// name (X-GitHub-Event) and a JSON payload shaped like GitHub's.
type Event struct {
	Name    string
	Payload []byte
}

// Tokens are the tokens the World registered on the fake; pass them to the
// action as GITHUB_TOKEN, trigger-token and push-token.
type Tokens struct {
	Action  string // GITHUB_TOKEN: github-actions[bot]
	Trigger string // a maintainer's PAT; "" when the scenario gives none
	Push    string // a maintainer's PAT for pushes; "" when none
}

// Identities behind the scenario tokens.
const (
	ActionToken  = "ghs_sim_action"
	TriggerToken = "ghp_sim_trigger"
	PushToken    = "ghp_sim_push"
	TriggerLogin = "loop-maintainer"
)

// World is a scenario set up on a fake GitHub: the repository, the PR, the
// engine bots and the queue of webhook events their actions raise. All
// methods are safe for concurrent use; nothing sleeps or reads the wall
// clock.
type World struct {
	Scenario Scenario
	Fake     *ghfake.Fake
	Owner    string
	Repo     string
	Number   int
	Tokens   Tokens
	// files caches fileAt's answers by "sha:path".
	filesMu sync.Mutex
	files   map[string]fileAnswer
	// Expect is the scenario's expected outcome.
	Expect Expect

	clock   *Clock
	ownFake bool
	heads   []headRecord // each new head of the PR, when it appeared, whether an outside push made it (HY1)

	mu        sync.Mutex
	queue     []Event
	inbox     []stimulus
	bots      []*bot
	head      string
	draft     bool
	botLogins map[string]bool
	triggers  map[string]map[string]int // engine → head SHA → triggers
	said      []said
	posted    map[string]postedRef // scripted finding id → newest thread root
	byComment map[int64]Finding    // every posted root comment → its finding
	// byBody holds findings posted only in a review body (CodeRabbit's
	// outside-diff, nitpick and duplicate sections), by path and title:
	// they have no comment id.
	byBody    map[string]Finding
	triggerAt map[string][]time.Time // engine → when each trigger was counted
	quotas    map[string][]quotaWindow
	applied   map[int]bool
	kill      bool
	outside   int // commits the scenario itself pushed (the PR's first included)
}

// quotaWindow is a quota notice an engine posted and the wait it stated.
type quotaWindow struct {
	at   time.Time
	wait time.Duration
}

type postedRef struct {
	engine    string
	commentID int64
}

type said struct {
	author, body, sha string
}

type stimulusKind int

const (
	stimComment stimulusKind = iota
	stimReviewRequest
	stimPush
	stimReady
	stimOpened
)

type stimulus struct {
	kind   stimulusKind
	login  string
	bot    bool
	body   string
	logins []string
	sha    string
	byUser bool // a push or ready_for_review made with a user identity
}

// NewWorld starts a fake GitHub on loopback whose clock is the scenario's
// virtual clock and sets the scenario up on it. Close stops the fake.
func NewWorld(sc Scenario) (*World, error) {
	clock := NewClock(sc.Start)
	fake := ghfake.New(ghfake.Options{Now: clock.Now, FirstID: sc.IDsFrom})
	w, err := sc.SetupWithClock(fake, clock)
	if err != nil {
		fake.Close()
		return nil, err
	}
	w.ownFake = true
	return w, nil
}

// Close stops the fake when the World started it.
func (w *World) Close() {
	if w.ownFake {
		w.Fake.Close()
	}
}

// Setup creates the repository, users, tokens, PR and bots on fake with a
// new clock at the scenario's start. The fake's own clock is not changed:
// prefer NewWorld or SetupWithClock with a fake built on the same clock.
func (sc Scenario) Setup(fake *ghfake.Fake) (*World, error) {
	return sc.SetupWithClock(fake, NewClock(sc.Start))
}

// SetupWithClock is Setup with the clock the fake was built with.
func (sc Scenario) SetupWithClock(fake *ghfake.Fake, clock *Clock) (*World, error) {
	r := sc.Repository
	w := &World{Scenario: sc, Fake: fake, Owner: r.Owner, Repo: r.Name, Expect: sc.Expect, clock: clock,
		botLogins: map[string]bool{ActionsLogin: true}, triggers: map[string]map[string]int{},
		posted: map[string]postedRef{}, byComment: map[int64]Finding{}, applied: map[int]bool{},
		byBody: map[string]Finding{}, triggerAt: map[string][]time.Time{}, quotas: map[string][]quotaWindow{}}
	if err := fake.AddRepo(r.Owner, r.Name, r.DefaultBranch); err != nil {
		return nil, err
	}
	fake.AddToken(ActionToken, ghfake.Identity{Login: ActionsLogin, ID: ActionsID, Bot: true, Association: "NONE"})
	w.Tokens.Action = ActionToken
	if sc.Tokens.Trigger {
		fake.AddToken(TriggerToken, ghfake.Identity{Login: TriggerLogin, Association: "MEMBER"})
		w.Tokens.Trigger = TriggerToken
	}
	if sc.Tokens.Push {
		fake.AddToken(PushToken, ghfake.Identity{Login: TriggerLogin, Association: "MEMBER"})
		w.Tokens.Push = PushToken
	}
	for _, login := range sortedKeys(r.Collaborators) {
		fake.AddUser(login, 0, false)
		role := "read"
		switch r.Collaborators[login] {
		case "OWNER":
			role = "admin"
		case "MEMBER", "COLLABORATOR":
			role = "write"
		}
		if p, ok := r.Permissions[login]; ok {
			role = p
		}
		if err := fake.SetPermission(r.Owner, r.Name, login, role); err != nil {
			return nil, err
		}
	}
	for _, login := range sortedKeys(r.Permissions) {
		if _, ok := r.Collaborators[login]; !ok {
			fake.AddUser(login, 0, false)
			if err := fake.SetPermission(r.Owner, r.Name, login, r.Permissions[login]); err != nil {
				return nil, err
			}
		}
	}
	fake.AddUser(BugbotLogin, BugbotID, true)
	fake.AddUser(CopilotReviewerLogin, CopilotID, true)
	fake.AddUser(CopilotCommentLogin, CopilotID, true)
	fake.AddUser(ClaudeLogin, ClaudeID, true)
	fake.AddUser(GeminiLogin, GeminiID, true)
	fake.AddUser(CodeRabbitLogin, CodeRabbitID, true)
	for _, l := range []string{BugbotLogin, CopilotReviewerLogin, CopilotCommentLogin, ClaudeLogin, GeminiLogin, CodeRabbitLogin} {
		w.botLogins[strings.ToLower(l)] = true
	}

	base := map[string]string{}
	for p, s := range r.Files {
		base[p] = s
	}
	if e, ok := sc.Engines[Claude]; ok && *e.Installed {
		wf := e.Workflow
		if wf == "" {
			wf = ClaudeWorkflow
		}
		base[ClaudeWorkflowPath] = wf
	}
	if len(base) > 0 {
		if err := fake.SetProtected(r.Owner, r.Name, r.DefaultBranch, false); err != nil {
			return nil, err
		}
		if _, err := fake.PushCommit(r.Owner, r.Name, r.DefaultBranch, base, "Add the calculator module"); err != nil {
			return nil, fmt.Errorf("committing the base files: %w", err)
		}
		if err := fake.SetProtected(r.Owner, r.Name, r.DefaultBranch, true); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= sc.OpenPRs; i++ {
		if _, err := fake.CreatePR(r.Owner, r.Name, ghfake.PROptions{Title: fmt.Sprintf("Other change %d", i), Author: sc.PR.Author,
			Head: fmt.Sprintf("other/change-%d", i), Base: r.DefaultBranch, Files: map[string]string{fmt.Sprintf("other/%d.txt", i): "x\n"}}); err != nil {
			return nil, fmt.Errorf("opening other PR %d: %w", i, err)
		}
	}
	files := sc.PR.Files
	if len(files) == 0 {
		files = map[string]string{".keep": ""}
	}
	n, err := fake.CreatePR(r.Owner, r.Name, ghfake.PROptions{Title: sc.PR.Title, Body: sc.PR.Body, Author: sc.PR.Author,
		Head: sc.PR.Branch, Base: r.DefaultBranch, Draft: sc.PR.Draft, Fork: sc.PR.Fork, Files: files, Additions: sc.PR.Additions})
	if err != nil {
		return nil, err
	}
	w.Number = n
	w.outside = 1
	if sc.PR.Protected {
		if err := fake.SetProtected(r.Owner, r.Name, sc.PR.Branch, true); err != nil {
			return nil, err
		}
	}
	snap := fake.PR(r.Owner, r.Name, n)
	w.head, w.draft = snap.HeadSHA, snap.Draft
	if err := addHistory(fake, r, sc); err != nil {
		return nil, err
	}

	for _, name := range sortedKeys(sc.Engines) {
		w.bots = append(w.bots, newBot(w, name, sc.Engines[name]))
	}
	if sc.RateRemaining > 0 {
		fake.SetRateRemaining(ActionsLogin, ghfake.ResourceCore, sc.RateRemaining)
	}
	fake.OnIssueComment(w.onIssueComment)
	fake.OnReviewRequested(w.onReviewRequested)
	fake.OnPush(w.onPush)

	w.mu.Lock()
	w.inbox = append(w.inbox, stimulus{kind: stimOpened, sha: w.head})
	w.mu.Unlock()
	w.ReactToRequests()
	return w, nil
}

// Clock is the World's virtual clock.
func (w *World) Clock() *Clock { return w.clock }

// Now is the current virtual time.
func (w *World) Now() time.Time { return w.clock.Now() }

// Pending returns the queued webhook events without removing them.
func (w *World) Pending() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.queue)
}

// Drain returns and removes the queued webhook events, oldest first.
func (w *World) Drain() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	q := w.queue
	w.queue = nil
	return q
}

// Events is Drain.
func (w *World) Events() []Event { return w.Drain() }

func (w *World) emit(name string, payload []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue = append(w.queue, Event{Name: name, Payload: payload})
}

// Advance moves the virtual clock by d and lets the bots act: queued
// reviews start, started ones complete when their latency has passed, and
// the events they raise are queued.
func (w *World) Advance(d time.Duration) {
	w.clock.Advance(d)
	w.ReactToRequests()
	now := w.clock.Now()
	for _, b := range w.bots {
		b.tick(now)
	}
}

// ReactToRequests lets the bots see what happened on the fake since the
// last call (comments, review requests, pushes, un-drafting): each starts
// the review its trigger asks for, as a queued check run where the real
// engine has one. Nothing completes before Advance.
func (w *World) ReactToRequests() {
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	w.mu.Lock()
	if snap.HeadSHA != "" && snap.HeadSHA != w.head {
		w.head = snap.HeadSHA
		w.heads = append(w.heads, headRecord{sha: snap.HeadSHA, at: w.clock.Now(), outside: false})
		w.inbox = append(w.inbox, stimulus{kind: stimPush, sha: snap.HeadSHA, byUser: w.Tokens.Push != ""})
	}
	if w.draft && !snap.Draft {
		w.inbox = append(w.inbox, stimulus{kind: stimReady, sha: snap.HeadSHA, byUser: w.readyByUser()})
	}
	w.draft = snap.Draft
	in := w.inbox
	w.inbox = nil
	w.mu.Unlock()
	for _, s := range in {
		for _, b := range w.bots {
			b.react(s)
		}
	}
}

// readyByUser reports whether the last markPullRequestReadyForReview was
// made with a user identity (a GITHUB_TOKEN one starts no workflow).
func (w *World) readyByUser() bool {
	reqs := w.Fake.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if strings.Contains(reqs[i].GraphQL, "markPullRequestReadyForReview") {
			return !w.botLogins[strings.ToLower(reqs[i].Login)]
		}
	}
	return true
}

func (w *World) headSHA() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.head
}

func (w *World) isBot(login string, flagged bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return flagged || w.botLogins[strings.ToLower(strings.TrimSuffix(login, "[bot]"))]
}

func (w *World) onIssueComment(ev ghfake.IssueCommentEvent) {
	if ev.Number != w.Number || !strings.EqualFold(ev.Owner, w.Owner) {
		return
	}
	bot := w.isBot(ev.Comment.Author, false)
	w.refreshHead()
	w.mu.Lock()
	w.said = append(w.said, said{author: ev.Comment.Author, body: ev.Comment.Body, sha: w.head})
	for _, b := range w.bots {
		if b.isTrigger(ev.Comment.Body) {
			w.countTrigger(b.name)
		}
	}
	w.inbox = append(w.inbox, stimulus{kind: stimComment, login: ev.Comment.Author, bot: bot, body: ev.Comment.Body})
	w.mu.Unlock()
	// A comment made with GITHUB_TOKEN starts no workflow; anyone else's does.
	if !strings.EqualFold(ev.Comment.Author, ActionsLogin) {
		w.emit("issue_comment", w.issueCommentPayload(ev.Comment, bot))
	}
}

func (w *World) onReviewRequested(ev ghfake.ReviewRequestEvent) {
	if ev.Number != w.Number || !strings.EqualFold(ev.Owner, w.Owner) {
		return
	}
	w.refreshHead()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range ev.Logins {
		if strings.EqualFold(strings.TrimSuffix(l, "[bot]"), CopilotReviewerLogin) {
			w.countTrigger(Copilot)
		}
	}
	w.inbox = append(w.inbox, stimulus{kind: stimReviewRequest, logins: ev.Logins})
}

func (w *World) onPush(ev ghfake.PushEvent) {
	if ev.Number != w.Number || !strings.EqualFold(ev.Owner, w.Owner) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ev.After != w.head {
		w.head = ev.After
		w.heads = append(w.heads, headRecord{sha: ev.After, at: w.clock.Now(), outside: false})
		w.inbox = append(w.inbox, stimulus{kind: stimPush, sha: ev.After, byUser: w.Tokens.Push != ""})
	}
}

// refreshHead notices a head the loop pushed since the last look, so a
// trigger is counted against the SHA it targets.
func (w *World) refreshHead() {
	sha := w.Fake.HeadSHA(w.Owner, w.Repo, w.Number)
	w.mu.Lock()
	defer w.mu.Unlock()
	if sha != "" && sha != w.head {
		w.head = sha
		w.heads = append(w.heads, headRecord{sha: sha, at: w.clock.Now(), outside: false})
		w.inbox = append(w.inbox, stimulus{kind: stimPush, sha: sha, byUser: w.Tokens.Push != ""})
	}
}

// defaultBranch is the repository's default branch.
func (w *World) defaultBranch() string {
	if b := w.Scenario.Repository.DefaultBranch; b != "" {
		return b
	}
	return "main"
}

// lastTriggerAuthor is the author of the newest comment that is engine's
// trigger: the actor of the workflow run it starts.
func (w *World) lastTriggerAuthor(engine string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.said) - 1; i >= 0; i-- {
		for _, b := range w.bots {
			if b.name == engine && b.isTrigger(w.said[i].body) {
				return w.said[i].author
			}
		}
	}
	return ""
}

// countTrigger needs w.mu held.
func (w *World) countTrigger(engine string) {
	m := w.triggers[engine]
	if m == nil {
		m = map[string]int{}
		w.triggers[engine] = m
	}
	m[w.head]++
	w.triggerAt[engine] = append(w.triggerAt[engine], w.clock.Now())
}

// Triggers returns, per engine, how many times it was asked to review each
// head SHA (trigger comments by anyone, review requests).
func (w *World) Triggers() map[string]map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]map[string]int{}
	for e, m := range w.triggers {
		out[e] = map[string]int{}
		for s, n := range m {
			out[e][s] = n
		}
	}
	return out
}

// ApplyEvents performs the scripted events due after cycle (comments,
// outside pushes, faults, kills), once each, and queues the webhook events
// they raise.
func (w *World) ApplyEvents(cycle int) error {
	w.mu.Lock()
	if w.applied[cycle] {
		w.mu.Unlock()
		return nil
	}
	w.applied[cycle] = true
	w.mu.Unlock()
	for _, ev := range w.Scenario.Events {
		if ev.AfterCycle != cycle {
			continue
		}
		var err error
		switch {
		case ev.Comment != nil && ev.Comment.Count > 1:
			err = w.comments(*ev.Comment)
		case ev.Comment != nil:
			err = w.comment(*ev.Comment)
		case ev.Review != nil:
			err = w.userReview(*ev.Review)
		case ev.Reply != nil:
			err = w.userReply(*ev.Reply)
		case ev.Push != nil:
			err = w.outsidePush(*ev.Push)
		case ev.Fault != nil:
			w.Fake.Inject(w.fault(*ev.Fault))
		case ev.Check != nil:
			_, err = w.Fake.SetCheckRun(w.Owner, w.Repo, w.Number, ghfake.CheckRunOptions{Name: ev.Check.Name, AppSlug: ev.Check.App,
				WorkflowPath: ev.Check.WorkflowPath, Status: "COMPLETED", Conclusion: strings.ToUpper(ev.Check.Conclusion), Rerun: true})
		case ev.Kill != "":
			w.mu.Lock()
			w.kill = true
			w.mu.Unlock()
		case ev.Revert != nil:
			err = w.revertLastFix(*ev.Revert)
		case ev.Autofix != nil:
			err = w.autofix(*ev.Autofix)
		}
		if err != nil {
			return fmt.Errorf("event after cycle %d: %w", cycle, err)
		}
	}
	w.ReactToRequests()
	return nil
}

// TakeKill reports whether a scripted kill is armed and disarms it: the
// runner then ends its next cycle right after the push, before the state
// is saved (E5).
func (w *World) TakeKill() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.kill
	w.kill = false
	return k
}

// KillArmed reports whether a scripted kill waits for the next push.
func (w *World) KillArmed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kill
}

// FindingID is the id the loop gives the newest thread posted for a
// scripted finding ("bugbot-2233029601"), or "" before it was posted.
func (w *World) FindingID(scripted string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.posted[scripted]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s-%d", p.engine, p.commentID)
}

func (w *World) comment(c CommentEvent) error {
	body := findingRefRE.ReplaceAllStringFunc(c.Body, func(m string) string {
		id := findingRefRE.FindStringSubmatch(m)[1]
		if f := w.FindingID(id); f != "" {
			return f
		}
		return m
	})
	body = commentRefRE.ReplaceAllStringFunc(body, func(m string) string {
		id := commentRefRE.FindStringSubmatch(m)[1]
		w.mu.Lock()
		defer w.mu.Unlock()
		if p, ok := w.posted[id]; ok {
			return strconv.FormatInt(p.commentID, 10)
		}
		return m
	})
	assoc := c.Association
	if assoc == "" {
		assoc = w.Scenario.Repository.Collaborators[c.Author]
	}
	if c.Bot {
		w.mu.Lock()
		w.botLogins[strings.ToLower(c.Author)] = true
		w.mu.Unlock()
	}
	cm, err := w.Fake.AddIssueComment(w.Owner, w.Repo, w.Number, c.Author, assoc, body)
	if err != nil {
		return err
	}
	// AddIssueComment fires no hook: deliver what GitHub would.
	w.onIssueComment(ghfake.IssueCommentEvent{Owner: w.Owner, Repo: w.Repo, Number: w.Number, Comment: w.issueComment(cm)})
	return nil
}

// comments posts c.Count numbered copies of c, raising no events (see
// CommentEvent.Count).
func (w *World) comments(c CommentEvent) error {
	assoc := c.Association
	if assoc == "" {
		assoc = w.Scenario.Repository.Collaborators[c.Author]
	}
	for i := 1; i <= c.Count; i++ {
		body := fmt.Sprintf("%s (%d/%d)", c.Body, i, c.Count)
		if _, err := w.Fake.AddIssueComment(w.Owner, w.Repo, w.Number, c.Author, assoc, body); err != nil {
			return err
		}
	}
	return nil
}

// userReview posts a review with one inline comment on the head, by an
// account that is not a simulated engine, and delivers the review event.
func (w *World) userReview(r ReviewEvent) error {
	sha := w.Fake.HeadSHA(w.Owner, w.Repo, w.Number)
	rid, err := w.Fake.AddReview(w.Owner, w.Repo, w.Number, ghfake.ReviewOptions{Author: r.Author, Body: r.Body, CommitSHA: sha})
	if err != nil {
		return err
	}
	if _, _, err := w.Fake.AddReviewComment(w.Owner, w.Repo, w.Number, ghfake.CommentOptions{Author: r.Author, Body: r.Comment,
		Path: r.Path, Line: r.Line, ReviewID: rid, CommitSHA: sha}); err != nil {
		return err
	}
	bot := w.isBot(r.Author, false)
	w.emit("pull_request_review", mustJSON(map[string]any{
		"action":       "submitted",
		"review":       map[string]any{"id": rid, "user": w.user(r.Author, bot), "commit_id": sha, "state": "commented", "author_association": "NONE"},
		"pull_request": w.prRef(sha),
		"repository":   w.repository(),
		"sender":       w.user(r.Author, bot),
	}))
	return nil
}

// userReply posts a person's reply in a finding's thread. No event is
// emitted for it: the next cycle, whatever wakes it, sees the reply.
func (w *World) userReply(r ReplyEvent) error {
	w.mu.Lock()
	p, ok := w.posted[r.Finding]
	w.mu.Unlock()
	if !ok {
		return fmt.Errorf("reply: finding %q has no thread yet", r.Finding)
	}
	_, _, err := w.Fake.AddReviewComment(w.Owner, w.Repo, w.Number, ghfake.CommentOptions{Author: r.Author, Body: r.Body, InReplyTo: p.commentID})
	return err
}

func (w *World) issueComment(id int64) ghfake.IssueComment {
	for _, c := range w.Fake.PR(w.Owner, w.Repo, w.Number).Comments {
		if c.ID == id {
			return c
		}
	}
	return ghfake.IssueComment{ID: id}
}

func (w *World) outsidePush(p PushEvent) error {
	msg := p.Message
	if msg == "" {
		msg = "Outside change"
	}
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	var sha string
	var err error
	if p.Force {
		sha, err = w.Fake.ForcePushAs(w.Owner, w.Repo, snap.HeadRef, snap.HeadSHA+"^", p.Files, msg, "")
	} else {
		sha, err = w.Fake.PushCommit(w.Owner, w.Repo, snap.HeadRef, p.Files, msg)
	}
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.outside++
	// The fake's push hook may have seen the new head already (onPush).
	if i := slices.IndexFunc(w.heads, func(h headRecord) bool { return h.sha == sha }); i >= 0 {
		w.heads[i].outside = true
	} else {
		w.heads = append(w.heads, headRecord{sha: sha, at: w.clock.Now(), outside: true})
	}
	before := w.head
	if w.head != sha {
		w.head = sha
		w.inbox = append(w.inbox, stimulus{kind: stimPush, sha: sha, byUser: true})
	}
	w.mu.Unlock()
	author := p.Author
	if author == "" {
		author = w.Owner
	}
	w.emit("pull_request", w.pullRequestPayload("synchronize", before, sha, author))
	return nil
}

func (w *World) fault(f FaultEvent) ghfake.Fault {
	r := strings.NewReplacer("{owner}", w.Owner, "{repo}", w.Repo, "{number}", fmt.Sprint(w.Number))
	return ghfake.Fault{Match: r.Replace(f.Match), Status: f.Status, Times: f.Times, RetryAfter: f.RetryAfter,
		Message: f.Message, GraphQLErrors: f.GraphQLErrors, GraphQLErrorType: f.ErrorType}
}

// fileAt reads path at commit sha from the fake's bare repository; ok is
// false when the file does not exist there.
// A commit's files never change, so each answer is kept: the engines read
// the same files of the same head on every tick.
func (w *World) fileAt(sha, path string) (string, bool) {
	key := sha + ":" + path
	w.filesMu.Lock()
	f, seen := w.files[key]
	w.filesMu.Unlock()
	if seen {
		return f.text, f.ok
	}
	dir := strings.TrimPrefix(w.Fake.CloneURL(w.Owner, w.Repo), "file://")
	cmd := exec.CommandContext(context.Background(), "git", "--git-dir", dir, "show", key)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return "", false // git could not run: ask again next time
	}
	f = fileAnswer{text: string(out), ok: err == nil}
	if !f.ok {
		f.text = ""
	}
	w.filesMu.Lock()
	if w.files == nil {
		w.files = map[string]fileAnswer{}
	}
	w.files[key] = f
	w.filesMu.Unlock()
	return f.text, f.ok
}

// fileAnswer is what fileAt found for one commit and path.
type fileAnswer struct {
	text string
	ok   bool
}

// commitsSince counts the commits on the PR head that the scenario did not
// push itself: the loop's commits.
func (w *World) loopCommits() int {
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	dir := strings.TrimPrefix(w.Fake.CloneURL(w.Owner, w.Repo), "file://")
	out, err := exec.CommandContext(context.Background(), "git", "--git-dir", dir, "rev-list", "--count", snap.BaseRef+".."+snap.HeadSHA).Output()
	if err != nil {
		return -1
	}
	n := 0
	fmt.Sscan(strings.TrimSpace(string(out)), &n)
	w.mu.Lock()
	defer w.mu.Unlock()
	return n - w.outside
}

// headRecord is one head of the PR as the world saw it appear.
type headRecord struct {
	sha     string
	at      time.Time
	outside bool
}

// historyLogins are the logins each engine reviews under.
var historyLogins = map[string]string{Bugbot: BugbotLogin, Copilot: CopilotReviewerLogin, Claude: ClaudeLogin, Gemini: GeminiLogin, CodeRabbit: CodeRabbitLogin}

// addHistory opens and merges an earlier change reviewed by each engine
// of sc.History, as an installed engine leaves on a real repository.
func addHistory(fake *ghfake.Fake, r Repository, sc Scenario) error {
	if len(sc.History) == 0 {
		return nil
	}
	n, err := fake.CreatePR(r.Owner, r.Name, ghfake.PROptions{Title: "An earlier change", Author: sc.PR.Author,
		Head: "earlier/change", Base: r.DefaultBranch, Files: map[string]string{"EARLIER.md": "earlier\n"}})
	if err != nil {
		return fmt.Errorf("opening the earlier PR: %w", err)
	}
	for _, e := range sc.History {
		login, ok := historyLogins[e]
		if !ok {
			return fmt.Errorf("history: unknown engine %q", e)
		}
		if _, err := fake.AddReview(r.Owner, r.Name, n, ghfake.ReviewOptions{Author: login, Body: "Reviewed the earlier change."}); err != nil {
			return err
		}
	}
	return fake.SetPRState(r.Owner, r.Name, n, "MERGED", false)
}
