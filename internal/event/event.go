// Package event turns the Actions event that started a workflow run (its
// name and payload) into a Wake: what woke review-loop, for which pull
// requests, and on whose behalf.
//
// Parse is pure: the caller reads GITHUB_EVENT_NAME and the file at
// GITHUB_EVENT_PATH and passes their contents in. A Wake of kind KindIgnore
// means the caller logs the reason and exits successfully without making a
// single API request.
//
// Payloads are decoded into lean structs (payload.go) holding only the
// fields read here, named as in go-github's event types. Decoding whole
// go-github events would fail on fields review-loop never reads: GitHub's
// own check_run rerequested example carries a timestamp in a format
// github.Timestamp rejects.
package event

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind says what sort of wake-up a workflow run is.
type Kind string

// The kinds of wake-up.
const (
	// KindEngineSignal: a review engine (or CI) finished something that may
	// change the loop's next step: a check run or suite completed, a watched
	// workflow completed, a review or review comment arrived, or the PR was
	// marked ready for review.
	KindEngineSignal Kind = "engine-signal"
	// KindCommand: an allowed maintainer wrote a trigger-phrase command.
	KindCommand Kind = "command"
	// KindDispatch: workflow_dispatch with a PR number (a re-dispatch by the
	// loop itself, rule W5, or a manual run).
	KindDispatch Kind = "dispatch"
	// KindSweep: the scheduled backstop that advances loops nothing woke.
	KindSweep Kind = "sweep"
	// KindOutsidePush: commits were pushed to the PR branch (rule W3 decides
	// whether the push was ours or someone else's).
	KindOutsidePush Kind = "outside-push"
	// KindPRClosed: the PR was closed or merged; the loop ends.
	KindPRClosed Kind = "pr-closed"
	// KindStartLabel: someone added the StartLabel label to the PR, which
	// asks for a loop (the `start-on: command` policy).
	KindStartLabel Kind = "start-label"
	// KindIgnore: nothing for review-loop to do; Reason says why.
	KindIgnore Kind = "ignore"
)

// StartLabel is the label that asks for a loop on a PR.
const StartLabel = "review-loop"

// DefaultTriggerPhrase is the phrase that starts a command line when
// Config.TriggerPhrase is empty.
const DefaultTriggerPhrase = "@review-loop"

// DefaultAllowedAssociations returns the author associations allowed to
// command review-loop when Config.AllowedAssociations is empty.
func DefaultAllowedAssociations() []string {
	return []string{"OWNER", "MEMBER", "COLLABORATOR"}
}

// actionsAppSlug is the app that owns check runs created by GitHub Actions
// jobs. Such check runs never start a check_run workflow, and the ones that
// reach us anyway (our own job, CI, Copilot's or Claude's workflow) are
// watched through workflow_run and pull_request_review instead.
const actionsAppSlug = "github-actions"

// Config is what Parse needs to know beyond the payload. The engine
// registry fills the watched lists; the action's inputs fill the rest.
type Config struct {
	// TriggerPhrase starts a command line; default DefaultTriggerPhrase.
	TriggerPhrase string
	// AllowedAssociations lists the author associations (OWNER, MEMBER,
	// COLLABORATOR, CONTRIBUTOR, …) whose comments are commands, compared
	// case-insensitively; default DefaultAllowedAssociations.
	AllowedAssociations []string
	// WatchedCheckRuns names the check runs whose completion is an engine
	// signal (e.g. "Cursor Bugbot"), compared case-insensitively.
	WatchedCheckRuns []string
	// WatchedApps lists the app slugs whose check runs and check suites are
	// engine signals (e.g. "cursor"), compared case-insensitively with the
	// payload's app slug, or its app name when it has no slug. With both
	// watched lists empty no check run or suite wakes the loop.
	WatchedApps []string
	// WatchedWorkflows names the workflows whose completed runs are engine
	// signals (e.g. "Claude Code Review", "CI"); a name or a workflow file
	// path such as ".github/workflows/ci.yml".
	WatchedWorkflows []string
	// SelfWorkflow is the name of the workflow review-loop runs in
	// (GITHUB_WORKFLOW); its own runs never wake it.
	SelfWorkflow string
	// SelfLogins are the logins review-loop posts as when that is a user
	// token rather than a bot; their comments are never commands.
	SelfLogins []string
	// PR is the action's `pr` input, used for workflow_dispatch when the
	// payload's inputs carry no `pr`.
	PR string
	// WatchAll watches every check run and check suite (not GitHub
	// Actions'): the widest reading of an event, for judging before the
	// watched lists are known that it concerns review-loop in no case.
	WatchAll bool
}

// Wake is what woke review-loop.
type Wake struct {
	// Kind is the sort of wake-up.
	Kind Kind
	// Event and Action are the event name and its payload's action
	// ("check_run", "completed").
	Event, Action string
	// PRs are the pull requests concerned. A head SHA may belong to several.
	// Empty with HeadSHA set means the caller must look the PRs up by SHA
	// (see NeedsLookup); empty for a sweep, which visits every open loop.
	PRs []int
	// HeadSHA is the commit the event is about, when the payload names one.
	HeadSHA string
	// HeadRef is the PR's head branch, when the payload names one.
	HeadRef string
	// Owner and Repo name the repository.
	Owner, Repo string
	// Actor is the login of the user or bot that caused the event.
	Actor string
	// Association is the author association of the comment or review
	// author, upper case; empty when the event has none.
	Association string
	// Source names what signalled: the check run or workflow name, the app
	// slug, or the reviewer's login.
	Source string
	// Command is the command of a KindCommand wake; nil otherwise.
	Command *Command
	// CommentID is the id of the comment that carried a command, so the
	// caller can acknowledge it with a reaction; 0 otherwise.
	CommentID int64
	// Engines are the engines a workflow_dispatch asked for (input
	// `engines`, space- or comma-separated); empty means the configured set.
	Engines []string
	// Reason says in one line why the wake is ignored, or what woke us.
	Reason string
	// WorkflowRun is the run a workflow_run wake reports; nil otherwise.
	WorkflowRun *WorkflowRun
}

// NeedsLookup reports whether the caller must find the PRs of HeadSHA
// itself because the payload listed none (check runs on forks, or a
// workflow_run whose pull_requests list is empty).
func (w Wake) NeedsLookup() bool {
	return w.Kind != KindIgnore && len(w.PRs) == 0 && w.HeadSHA != ""
}

// Parse decides what the event named name with the given payload means for
// review-loop. It makes no requests and reads no environment. An event it
// does not handle is a KindIgnore wake, not an error; a payload that is not
// JSON, or a workflow_dispatch without a valid PR number, is an error.
func Parse(name string, payload []byte, cfg Config) (Wake, error) {
	if !json.Valid(payload) {
		return Wake{}, fmt.Errorf("%s event payload is not JSON", name)
	}
	cfg = cfg.withDefaults()
	switch name {
	case "check_run":
		return parseCheckRun(payload, cfg)
	case "check_suite":
		return parseCheckSuite(payload, cfg)
	case "workflow_run":
		return parseWorkflowRun(payload, cfg)
	case "pull_request_review":
		return parsePullRequestReview(payload)
	case "pull_request_review_comment":
		return parsePullRequestReviewComment(payload)
	case "pull_request", "pull_request_target":
		return parsePullRequest(name, payload)
	case "issue_comment":
		return parseIssueComment(payload, cfg)
	case "workflow_dispatch":
		return parseDispatch(payload, cfg)
	case "schedule":
		return parseSchedule(payload)
	}
	w := Wake{Kind: KindIgnore, Event: name}
	var common struct {
		Action string      `json:"action"`
		Repo   *repository `json:"repository"`
		Sender *user       `json:"sender"`
	}
	// The payload is valid JSON; an unexpected shape only loses the details.
	_ = json.Unmarshal(payload, &common)
	w.Action = common.Action
	w.setRepo(common.Repo)
	w.Actor = common.Sender.GetLogin()
	w.Reason = fmt.Sprintf("event %s does not wake review-loop", name)
	return w, nil
}

func (c Config) withDefaults() Config {
	if strings.TrimSpace(c.TriggerPhrase) == "" {
		c.TriggerPhrase = DefaultTriggerPhrase
	}
	c.TriggerPhrase = strings.TrimSpace(c.TriggerPhrase)
	if len(c.AllowedAssociations) == 0 {
		c.AllowedAssociations = DefaultAllowedAssociations()
	}
	return c
}

func decode(name string, payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("decoding %s event payload: %w", name, err)
	}
	return nil
}

func (w *Wake) setRepo(r *repository) {
	w.Owner = r.GetOwner().GetLogin()
	w.Repo = r.GetName()
}

func (w *Wake) ignore(format string, args ...any) {
	w.Kind = KindIgnore
	w.Reason = fmt.Sprintf(format, args...)
}

func containsFold(list []string, s string) bool {
	return s != "" && slices.ContainsFunc(list, func(x string) bool {
		return strings.EqualFold(strings.TrimSpace(x), s)
	})
}

// appSlug names an app by its slug, or by its name when an older payload
// carries no slug.
func appSlug(app *app) string {
	if s := app.GetSlug(); s != "" {
		return s
	}
	return app.GetName()
}

func prNumbers(prs []*pullRequest) []int {
	var out []int
	for _, pr := range prs {
		if n := pr.GetNumber(); n > 0 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func parseCheckRun(payload []byte, cfg Config) (Wake, error) {
	var ev checkRunEvent
	if err := decode("check_run", payload, &ev); err != nil {
		return Wake{}, err
	}
	cr := ev.GetCheckRun()
	w := Wake{
		Kind:    KindEngineSignal,
		Event:   "check_run",
		Action:  ev.GetAction(),
		HeadSHA: cr.GetHeadSHA(),
		Actor:   ev.GetSender().GetLogin(),
		Source:  cr.GetName(),
	}
	w.setRepo(ev.GetRepo())
	slug := appSlug(cr.GetApp())
	switch {
	case cr == nil:
		w.ignore("check_run payload has no check_run")
	case w.Action != "completed":
		w.ignore("check run %q was %s, not completed", cr.GetName(), w.Action)
	case slug == actionsAppSlug:
		w.ignore("check run %q was created by GitHub Actions; review-loop hears of workflows through workflow_run and reviews, never through their check runs", cr.GetName())
	case !cfg.WatchAll && !containsFold(cfg.WatchedCheckRuns, cr.GetName()) && !containsFold(cfg.WatchedApps, slug):
		w.ignore("check run %q (app %s) belongs to no watched engine", cr.GetName(), orUnknown(slug))
	default:
		w.PRs = prNumbers(cr.PullRequests)
		if len(w.PRs) == 1 {
			w.HeadRef = cr.PullRequests[0].GetHead().GetRef()
		}
		w.Reason = fmt.Sprintf("check run %q completed (%s) on %s", cr.GetName(), orUnknown(cr.GetConclusion()), short(w.HeadSHA))
	}
	return w, nil
}

func parseCheckSuite(payload []byte, cfg Config) (Wake, error) {
	var ev checkSuiteEvent
	if err := decode("check_suite", payload, &ev); err != nil {
		return Wake{}, err
	}
	cs := ev.GetCheckSuite()
	slug := appSlug(cs.GetApp())
	w := Wake{
		Kind:    KindEngineSignal,
		Event:   "check_suite",
		Action:  ev.GetAction(),
		HeadSHA: cs.GetHeadSHA(),
		HeadRef: cs.GetHeadBranch(),
		Actor:   ev.GetSender().GetLogin(),
		Source:  slug,
	}
	w.setRepo(ev.GetRepo())
	switch {
	case cs == nil:
		w.ignore("check_suite payload has no check_suite")
	case w.Action != "completed":
		w.ignore("check suite of app %s was %s, not completed", orUnknown(slug), w.Action)
	case slug == actionsAppSlug:
		w.ignore("check suite was created by GitHub Actions; review-loop hears of workflows through workflow_run and reviews, never through their check suites")
	case !cfg.WatchAll && !containsFold(cfg.WatchedApps, slug):
		w.ignore("check suite of app %s belongs to no watched engine", orUnknown(slug))
	default:
		w.PRs = prNumbers(cs.PullRequests)
		w.Reason = fmt.Sprintf("check suite of app %s completed (%s) on %s", slug, orUnknown(cs.GetConclusion()), short(w.HeadSHA))
	}
	return w, nil
}

func parseWorkflowRun(payload []byte, cfg Config) (Wake, error) {
	var ev workflowRunEvent
	if err := decode("workflow_run", payload, &ev); err != nil {
		return Wake{}, err
	}
	run := ev.GetWorkflowRun()
	name := run.GetName()
	if name == "" {
		name = ev.GetWorkflow().GetName()
	}
	path := ev.GetWorkflow().GetPath()
	w := Wake{
		Kind:    KindEngineSignal,
		Event:   "workflow_run",
		Action:  ev.GetAction(),
		HeadSHA: run.GetHeadSHA(),
		HeadRef: run.GetHeadBranch(),
		Actor:   ev.GetSender().GetLogin(),
		Source:  name,
	}
	w.setRepo(ev.GetRepo())
	switch {
	case run == nil:
		w.ignore("workflow_run payload has no workflow_run")
	case w.Action != "completed":
		w.ignore("workflow %q was %s, not completed", name, w.Action)
	case cfg.SelfWorkflow != "" && strings.EqualFold(name, cfg.SelfWorkflow):
		w.ignore("workflow %q is review-loop's own; its runs never wake it", name)
	case !containsFold(cfg.WatchedWorkflows, name) && !containsFold(cfg.WatchedWorkflows, path):
		w.ignore("workflow %q is not watched", name)
	default:
		w.PRs = prNumbers(run.PullRequests)
		w.Reason = fmt.Sprintf("workflow %q completed (%s) on %s", name, orUnknown(run.GetConclusion()), short(w.HeadSHA))
		w.WorkflowRun = workflowRunOf(ev.GetWorkflow(), run)
	}
	return w, nil
}

func fromPR(w *Wake, pr *pullRequest) {
	if n := pr.GetNumber(); n > 0 {
		w.PRs = []int{n}
	}
	w.HeadSHA = pr.GetHead().GetSHA()
	w.HeadRef = pr.GetHead().GetRef()
}

func parsePullRequestReview(payload []byte) (Wake, error) {
	var ev pullRequestReviewEvent
	if err := decode("pull_request_review", payload, &ev); err != nil {
		return Wake{}, err
	}
	r := ev.GetReview()
	w := Wake{
		Kind:        KindEngineSignal,
		Event:       "pull_request_review",
		Action:      ev.GetAction(),
		Actor:       ev.GetSender().GetLogin(),
		Association: strings.ToUpper(r.GetAuthorAssociation()),
		Source:      r.GetUser().GetLogin(),
	}
	w.setRepo(ev.GetRepo())
	fromPR(&w, ev.GetPullRequest())
	switch w.Action {
	case "submitted", "dismissed":
		w.Reason = fmt.Sprintf("review %d by @%s %s on PR #%d", r.GetID(), w.Source, w.Action, ev.GetPullRequest().GetNumber())
	default:
		w.ignore("review by @%s was %s; only submitted and dismissed reviews wake review-loop", w.Source, w.Action)
	}
	return w, nil
}

func parsePullRequestReviewComment(payload []byte) (Wake, error) {
	var ev pullRequestReviewCommentEvent
	if err := decode("pull_request_review_comment", payload, &ev); err != nil {
		return Wake{}, err
	}
	c := ev.GetComment()
	w := Wake{
		Kind:        KindEngineSignal,
		Event:       "pull_request_review_comment",
		Action:      ev.GetAction(),
		Actor:       ev.GetSender().GetLogin(),
		Association: strings.ToUpper(c.GetAuthorAssociation()),
		Source:      c.GetUser().GetLogin(),
	}
	w.setRepo(ev.GetRepo())
	fromPR(&w, ev.GetPullRequest())
	if w.Action != "created" {
		w.ignore("review comment by @%s was %s; only new review comments wake review-loop", w.Source, w.Action)
		return w, nil
	}
	w.Reason = fmt.Sprintf("review comment %d by @%s on PR #%d", c.GetID(), w.Source, ev.GetPullRequest().GetNumber())
	return w, nil
}

func parsePullRequest(name string, payload []byte) (Wake, error) {
	var ev pullRequestEvent
	if err := decode(name, payload, &ev); err != nil {
		return Wake{}, err
	}
	pr := ev.GetPullRequest()
	w := Wake{Event: name, Action: ev.GetAction(), Actor: ev.GetSender().GetLogin()}
	w.setRepo(ev.GetRepo())
	fromPR(&w, pr)
	switch w.Action {
	case "synchronize":
		w.Kind = KindOutsidePush
		w.Reason = fmt.Sprintf("PR #%d head moved to %s", pr.GetNumber(), short(w.HeadSHA))
	case "ready_for_review":
		w.Kind = KindEngineSignal
		w.Reason = fmt.Sprintf("PR #%d was marked ready for review", pr.GetNumber())
	case "labeled":
		if !strings.EqualFold(ev.Label.GetName(), StartLabel) {
			w.ignore("%s labeled %q does not wake review-loop; the %q label starts a loop", name, ev.Label.GetName(), StartLabel)
			break
		}
		w.Kind = KindStartLabel
		w.Reason = fmt.Sprintf("PR #%d was labeled %s", pr.GetNumber(), StartLabel)
	case "closed":
		w.Kind = KindPRClosed
		state := "closed"
		if pr.GetMerged() {
			state = "merged"
		}
		w.Reason = fmt.Sprintf("PR #%d was %s; the loop ends", pr.GetNumber(), state)
	default:
		w.ignore("%s %s does not wake review-loop; start a loop with a command or workflow_dispatch", name, w.Action)
	}
	return w, nil
}

func isBot(u *user) bool {
	return strings.EqualFold(u.GetType(), "Bot") || strings.HasSuffix(strings.ToLower(u.GetLogin()), "[bot]")
}

func parseIssueComment(payload []byte, cfg Config) (Wake, error) {
	var ev issueCommentEvent
	if err := decode("issue_comment", payload, &ev); err != nil {
		return Wake{}, err
	}
	issue, c := ev.GetIssue(), ev.GetComment()
	author := c.GetUser()
	w := Wake{
		Event:       "issue_comment",
		Action:      ev.GetAction(),
		Actor:       ev.GetSender().GetLogin(),
		Association: strings.ToUpper(c.GetAuthorAssociation()),
		Source:      author.GetLogin(),
	}
	w.setRepo(ev.GetRepo())
	if !issue.IsPullRequest() {
		w.ignore("comment %d is on issue #%d, not on a pull request", c.GetID(), issue.GetNumber())
		return w, nil
	}
	w.PRs = []int{issue.GetNumber()}
	if w.Action != "created" {
		w.ignore("comment %d was %s; only new comments are commands", c.GetID(), w.Action)
		return w, nil
	}
	if isBot(author) || containsFold(cfg.SelfLogins, author.GetLogin()) {
		w.ignore("comment %d by @%s is from a bot or from review-loop itself; it is never a command", c.GetID(), author.GetLogin())
		return w, nil
	}
	cmd, ok := ParseCommand(c.GetBody(), cfg.TriggerPhrase)
	if !ok {
		w.ignore("comment %d on PR #%d has no %s command", c.GetID(), issue.GetNumber(), cfg.TriggerPhrase)
		return w, nil
	}
	if !containsFold(cfg.AllowedAssociations, w.Association) {
		w.ignore("comment by @%s (association %s) is not allowed to command review-loop", author.GetLogin(), orUnknown(w.Association))
		return w, nil
	}
	w.Kind = KindCommand
	w.Command = &cmd
	w.CommentID = c.GetID()
	w.Reason = fmt.Sprintf("@%s commanded %q on PR #%d", author.GetLogin(), string(cmd.Kind), issue.GetNumber())
	return w, nil
}

func parseDispatch(payload []byte, cfg Config) (Wake, error) {
	var ev workflowDispatchEvent
	if err := decode("workflow_dispatch", payload, &ev); err != nil {
		return Wake{}, err
	}
	w := Wake{Kind: KindDispatch, Event: "workflow_dispatch", Actor: ev.GetSender().GetLogin()}
	w.setRepo(ev.GetRepo())
	inputs := map[string]any{}
	if len(ev.Inputs) > 0 && string(ev.Inputs) != "null" {
		if err := json.Unmarshal(ev.Inputs, &inputs); err != nil {
			return Wake{}, fmt.Errorf("decoding workflow_dispatch inputs: %w", err)
		}
	}
	raw := inputString(inputs["pr"])
	if strings.TrimSpace(raw) == "" {
		raw = cfg.PR
	}
	if strings.TrimSpace(raw) == "" {
		return Wake{}, fmt.Errorf("workflow_dispatch needs input pr: the number of the pull request to run the loop on")
	}
	n, err := ParsePRNumber(raw)
	if err != nil {
		return Wake{}, fmt.Errorf("input pr: %w", err)
	}
	w.PRs = []int{n}
	w.Engines = splitList(inputString(inputs["engines"]))
	w.Reason = fmt.Sprintf("workflow_dispatch by @%s for PR #%d", orUnknown(w.Actor), n)
	return w, nil
}

// inputString renders a dispatch input, which GitHub sends as a string but
// a hand-made payload may send as a number or boolean.
func inputString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// ParsePRNumber reads a pull request number as a user may write it: "42",
// " 42 " or "#42". Anything else is an error quoting the value.
func ParsePRNumber(s string) (int, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "#")
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || strings.HasPrefix(t, "+") {
		return 0, fmt.Errorf("%q is not a pull request number", s)
	}
	return n, nil
}

func parseSchedule(payload []byte) (Wake, error) {
	var ev struct {
		Schedule string      `json:"schedule"`
		Repo     *repository `json:"repository"`
		Sender   *user       `json:"sender"`
	}
	if err := decode("schedule", payload, &ev); err != nil {
		return Wake{}, err
	}
	w := Wake{Kind: KindSweep, Event: "schedule", Actor: ev.Sender.GetLogin()}
	w.setRepo(ev.Repo)
	w.Reason = "scheduled sweep"
	if ev.Schedule != "" {
		w.Reason += " (" + ev.Schedule + ")"
	}
	return w, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return orUnknown(sha)
}
