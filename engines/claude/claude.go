// Package claude is the adapter for Claude reviews, in both installs: the
// anthropics/claude-code-action workflow (its job check run signals
// completion) and the managed Claude Code Review app (check run "Claude Code
// Review", always neutral). Claude's verdict is prose (the judge decides,
// J1) and several substantive verdicts per SHA are possible (ST2).
package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// Name is the engine name.
const Name = "claude"

// BotID is the account id of claude[bot].
const BotID = 209825114

// DefaultJobName is the job name of the generated claude-code-review workflow.
const DefaultJobName = "claude-review"

// ManagedCheckName is the check run of the managed Claude Code Review app.
const ManagedCheckName = "Claude Code Review"

// ActionRef is what a workflow must use to count as a Claude install.
const ActionRef = "anthropics/claude-code-action"

// TriggerBody is the comment that asks Claude for a review. "once" asks
// the managed Code Review app for one review without subscribing the PR to
// a review on every push (ENGINES.md, round 2), which would double the
// loop's own retrigger after each fix push (T7); the workflow install
// reads it as a plain mention.
const TriggerBody = "@claude review once"

// CommentEvent is the event of a workflow run started by a comment; such a
// run hangs off the default branch's head, not the PR head (GitHub docs,
// "Events that trigger workflows", issue_comment: GITHUB_SHA is the last
// commit on the default branch).
const CommentEvent = "issue_comment"

// ValidationSkipMarker is what the action reports when the PR edits its
// workflow file and it skips while the job stays green.
const ValidationSkipMarker = "skipped_due_to_workflow_validation_mismatch"

// NoTokenNote explains why Claude cannot be triggered without a user token.
const NoTokenNote = "a comment posted with GITHUB_TOKEN starts no workflow and no trigger token was given: relying on Claude's push-triggered run"

// Options configure the adapter for one repository.
type Options struct {
	// JobName is the workflow job whose check run signals completion;
	// DefaultJobName when empty. Any Actions check run whose name contains
	// "claude" also counts.
	JobName string
	// Logins are extra identities Claude posts as (the workflow may pass
	// its own github_token, so Claude posts as that identity).
	Logins []string
}

// Claude is the Claude adapter.
type Claude struct {
	jobName string
	author  engines.Author
}

var (
	_ engines.Engine     = (*Claude)(nil)
	_ engines.Installer  = (*Claude)(nil)
	_ engines.RunWatcher = (*Claude)(nil)
)

// New returns the Claude adapter.
func New(opts Options) *Claude {
	job := opts.JobName
	if job == "" {
		job = DefaultJobName
	}
	a := engines.Author{Logins: []string{"claude"}, ID: BotID}
	if len(opts.Logins) > 0 {
		// Another identity has its own id, unknown here: matched by login
		// (and bot type, IN7), never by Claude's id.
		a.Others = []engines.Author{{Logins: opts.Logins}}
	}
	return &Claude{jobName: job, author: a}
}

// Name implements engines.Engine.
func (*Claude) Name() string { return Name }

// EngineAuthor implements engines.Authored.
func (c *Claude) EngineAuthor() engines.Author { return c.author }

// TriggerBody implements engines.Engine.
func (*Claude) TriggerBody() string { return TriggerBody }

// Capabilities implements engines.Engine.
func (c *Claude) Capabilities() engines.Capabilities {
	return engines.Capabilities{
		Trigger:           engines.TriggerComment,
		AcceptsBotTrigger: false,
		Prose:             true,
		MultiVerdict:      true,
		Completion:        engines.CompletionWorkflowRun,
		CheckRunName:      c.jobName,
		CheckRunApp:       "github-actions",
	}
}

// Installed implements engines.Installer: Claude is not installed when the
// workflow files are known, none uses anthropics/claude-code-action, and no
// Claude check run is on the head.
func (c *Claude) Installed(obs *github.Observation, env engines.Env) (bool, string) {
	if env.WorkflowFiles == nil || len(claudeWorkflows(env.WorkflowFiles)) > 0 {
		return true, ""
	}
	if obs != nil && c.checkRun(obs) != nil {
		return true, ""
	}
	return false, "no workflow in .github/workflows uses " + ActionRef + " and no " + ManagedCheckName + " check run was seen"
}

func claudeWorkflows(files []engines.WorkflowFile) []engines.WorkflowFile {
	var out []engines.WorkflowFile
	for _, f := range files {
		if strings.Contains(f.Content, ActionRef) {
			out = append(out, f)
		}
	}
	return out
}

// checkRun returns the Claude check run of the head: the workflow job (app
// github-actions, the configured job name or any name containing "claude")
// or the managed app's check, whichever started last.
func (c *Claude) checkRun(obs *github.Observation) *github.CheckRun {
	return engines.FindCheckRun(obs, func(cr github.CheckRun) bool {
		if strings.EqualFold(cr.AppSlug, "github-actions") {
			return strings.EqualFold(cr.Name, c.jobName) || strings.Contains(strings.ToLower(cr.Name), "claude")
		}
		return strings.EqualFold(cr.Name, ManagedCheckName)
	})
}

func isManaged(cr *github.CheckRun) bool {
	return cr != nil && !strings.EqualFold(cr.AppSlug, "github-actions")
}

// Observe implements engines.Engine.
func (c *Claude) Observe(obs *github.Observation, env engines.Env) loop.EngineView {
	v := loop.EngineView{
		Engine:                   Name,
		Installed:                true,
		TriggerAvailable:         env.HasTriggerToken,
		Prose:                    true,
		MultiVerdict:             true,
		WithholdUntilFirstReview: true,
		// The review workflow's run or the managed check (S10, S11).
		CompletionSignal: true,
		Material:         loop.MaterialPending,
	}
	if ok, why := c.Installed(obs, env); !ok {
		v.Installed, v.NotInstalled = false, why
	}
	if !env.HasTriggerToken {
		v.TriggerNote = NoTokenNote
	}
	cr := c.checkRun(obs)
	if run := c.commentRun(obs, env); run != nil {
		cr = run
	}
	v.Signal, v.SignalStartedAt, v.SignalID = engines.CheckSignal(cr)
	var start time.Time
	if cr != nil {
		start = cr.StartedAt
	}
	since := func(t time.Time) bool { return cr != nil && !t.Before(start) }

	reviews := engines.ReviewsBy(obs, c.author)
	v.Reviews = engines.Refs(reviews, func(r github.Review) bool { return ParseComment(r.Body).Substantive })
	if n := len(reviews); n > 0 {
		v.LatestReviewID, v.LatestSHA = reviews[n-1].DatabaseID, reviews[n-1].CommitSHA
	}
	v.Findings = engines.ThreadFindings(obs, Name, c.author, ParseFinding)

	var before, now int // Claude's posts before this run, and since it started
	errored := ""
	for _, r := range reviews {
		if strings.TrimSpace(r.Body) != "" {
			v.Verdicts = append(v.Verdicts, loop.Verdict{ReviewID: r.DatabaseID, SHA: r.CommitSHA, Body: r.Body, Substantive: ParseComment(r.Body).Substantive, At: r.SubmittedAt})
		}
		if since(r.SubmittedAt) && r.CommitSHA == obs.HeadSHA {
			now++
		} else if cr == nil || r.SubmittedAt.Before(start) {
			before++
		}
	}
	for _, ic := range engines.IssueCommentsBy(obs, c.author) {
		pc := ParseComment(ic.Body)
		fresh := since(ic.CreatedAt) || since(ic.UpdatedAt)
		sha := ""
		if fresh {
			sha = obs.HeadSHA
			now++
			if pc.State == StateErrored {
				errored = "Claude reported an error in comment " + strconv.FormatInt(ic.DatabaseID, 10)
			}
		} else {
			before++
		}
		v.Verdicts = append(v.Verdicts, loop.Verdict{ReviewID: ic.DatabaseID, SHA: sha, Body: ic.Body, Substantive: pc.Substantive, At: ic.UpdatedAt})
	}
	for _, t := range obs.Threads {
		for _, cm := range t.Comments {
			if !c.author.Match(cm.Author) {
				continue
			}
			if since(cm.CreatedAt) {
				now++
			} else {
				before++
			}
		}
	}

	managedMismatch := false
	if isManaged(cr) {
		text := strings.TrimSpace(strings.Join([]string{cr.Title, cr.Summary, cr.Text}, "\n"))
		if text != "" {
			v.Verdicts = append(v.Verdicts, loop.Verdict{ReviewID: cr.SignalID(), SHA: obs.HeadSHA, Body: text, Substantive: v.Signal == loop.SignalDone, At: cr.CompletedAt})
		}
		if sev, ok := ParseSeverityLine(cr.Text); ok && sev.Total() > 0 && countInline(obs, c.author, since) == 0 {
			managedMismatch = true
		}
	}

	switch {
	case obs.IsDraft:
		v.Material, v.MaterialNote = loop.MaterialDraft, "the PR is a draft and Claude's review skips drafts: mark it ready for review (IN3)"
	case v.Signal != loop.SignalDone:
	case engines.CheckErrored(cr) || strings.EqualFold(cr.Conclusion, "FAILURE"):
		v.Material, v.MaterialNote = loop.MaterialErrored, fmt.Sprintf("check run %q concluded %s", cr.Name, strings.ToLower(cr.Conclusion))
	case errored != "":
		v.Material, v.MaterialNote = loop.MaterialErrored, errored
	case strings.Contains(cr.Title+cr.Summary+cr.Text, ValidationSkipMarker):
		v.Material, v.MaterialNote = loop.MaterialNoop, "the action skipped ("+ValidationSkipMarker+"): the PR edits the Claude workflow, so the job is green without a review"
	case !isManaged(cr) && editsClaudeWorkflow(env):
		v.Material, v.MaterialNote = loop.MaterialNoop, "the PR edits the Claude workflow file, so the action skips validation and reviews nothing while the job stays green"
	case isManaged(cr):
		v.Material = loop.MaterialOK
		if managedMismatch {
			v.MaterialNote = "the check run's severity line counts findings but no inline comment was read"
		}
	case now == 0 && before > 0:
		v.Material, v.MaterialNote = loop.MaterialNoop, "completed without posting: Claude had already commented on this PR before this run, and the code-review plugin stops then"
	case now == 0:
		v.Material, v.MaterialNote = loop.MaterialSilent, "completed without posting anything"
		if wf := missingComment(env.WorkflowFiles); wf != "" {
			v.MaterialNote += ": the review prompt in " + wf + " lacks --comment, so the plugin only prints to the job log"
		}
	default:
		v.Material = loop.MaterialOK
	}
	v.VerdictSetProven = v.Signal == loop.SignalDone && v.Material == loop.MaterialOK && obs.Complete && !managedMismatch
	if v.Material == loop.MaterialOK {
		c.prove(&v, obs, cr, since)
		if !loop.Proven(v, obs.HeadSHA) && c.finishedRun(&v, obs, cr, env) {
			v.Unproven = ""
		}
	}
	return v
}

// finishedRun is S10 for Claude: its run (the workflow job's check run on
// the head, the comment-started run found through the workflow's runs
// created after the trigger, or the managed check) concluded
// successfully at or after the loop's trigger of the head, and Claude
// posted during that run — a review of the head, a conversation comment
// or an inline comment, in whatever words its prompt asks for
// (claude-code-action in automation mode posts no tracking comment).
// The managed check's own output, filed on the head, is bound to the
// head too. A post during the run that is still a working or error note
// is an exception and wins. The judge still reads what it says (J1).
func (c *Claude) finishedRun(v *loop.EngineView, obs *github.Observation, cr *github.CheckRun, env engines.Env) bool {
	if cr == nil {
		return false
	}
	managed := isManaged(cr)
	run := engines.CheckCompletion(cr, obs.HeadSHA, func(conclusion string) bool {
		// The managed check always concludes neutral (ENGINES.md).
		return conclusion == "SUCCESS" || managed && conclusion == "NEUTRAL"
	})
	run.Source = "workflow-run"
	if managed {
		run.Source = "check"
	}
	var out []engines.Bound
	post := func(id int64, body string, at ...time.Time) bool {
		for _, t := range at {
			if engines.During(run, t) {
				if st := ParseComment(body).State; st == StateWorking || st == StateErrored {
					return false
				}
				out = append(out, engines.Bound{Kind: engines.BoundPost, SHA: obs.HeadSHA, ID: id})
				return true
			}
		}
		return true
	}
	for _, r := range engines.ReviewsBy(obs, c.author) {
		if r.CommitSHA == obs.HeadSHA && strings.TrimSpace(r.Body) != "" && !post(r.DatabaseID, r.Body, r.SubmittedAt) {
			return false
		}
	}
	for _, ic := range engines.IssueCommentsBy(obs, c.author) {
		if !post(ic.DatabaseID, ic.Body, ic.CreatedAt, ic.UpdatedAt) {
			return false
		}
	}
	for _, t := range obs.Threads {
		for _, cm := range t.Comments {
			if c.author.Match(cm.Author) && !post(cm.DatabaseID, cm.Body, cm.CreatedAt) {
				return false
			}
		}
	}
	if managed && strings.TrimSpace(cr.Title+cr.Summary+cr.Text) != "" {
		out = append(out, engines.Bound{Kind: engines.BoundSummary, SHA: obs.HeadSHA, ID: cr.SignalID()})
	}
	return engines.ProveByRun(v, run, obs.HeadSHA, env.TriggeredAt(Name, obs.HeadSHA), out)
}

// prove is S8 for Claude: a post of one of its finished-review kinds made
// by this run (since its check run started) proves the review of the head.
// The managed check's stated count is S6's.
func (c *Claude) prove(v *loop.EngineView, obs *github.Observation, cr *github.CheckRun, since func(time.Time) bool) {
	if isManaged(cr) {
		text := strings.Join([]string{cr.Title, cr.Summary, cr.Text}, "\n")
		rd := c.Classify(engines.SurfaceCheck, text)
		engines.ProveBy(v, rd, obs.HeadSHA, cr.SignalID(), text)
		if rd.Stated > 0 {
			v.Stated = &loop.StatedCount{N: rd.Stated, Source: fmt.Sprintf("check run %q: %s", cr.Name, engines.FirstLine(cr.Summary))}
		}
		return
	}
	latest := ""
	for _, ic := range engines.IssueCommentsBy(obs, c.author) {
		if !since(ic.CreatedAt) && !since(ic.UpdatedAt) {
			continue
		}
		if engines.ProveBy(v, c.Classify(engines.SurfaceComment, ic.Body), obs.HeadSHA, ic.DatabaseID, ic.Body) {
			return
		}
		latest = ic.Body
	}
	for _, r := range engines.ReviewsBy(obs, c.author) {
		if r.CommitSHA != obs.HeadSHA || !since(r.SubmittedAt) {
			continue
		}
		if engines.ProveBy(v, c.Classify(engines.SurfaceReview, r.Body), obs.HeadSHA, r.DatabaseID, r.Body) {
			return
		}
		if strings.TrimSpace(r.Body) != "" {
			latest = r.Body
		}
	}
	for _, t := range obs.Threads {
		for _, cm := range t.Comments {
			if c.author.Match(cm.Author) && since(cm.CreatedAt) &&
				engines.ProveBy(v, c.Classify(engines.SurfaceInline, cm.Body), obs.HeadSHA, cm.DatabaseID, cm.Body) {
				return
			}
		}
	}
	v.Unproven = latest
}

// commentTrigger is the loop's trigger of Claude for the head when it was
// a comment, with the time from which its run can exist: the comment's own
// creation time as GitHub stamped it when the comment is in the
// observation, else the recorded trigger time less a minute (the loop
// records it after posting, on its own clock).
func commentTrigger(obs *github.Observation, env engines.Env) (since time.Time, author string, ok bool) {
	t, ok := env.Triggers[Name]
	if !ok || t.CommentID == 0 || t.SHA == "" || t.SHA != obs.HeadSHA {
		return time.Time{}, "", false
	}
	for _, ic := range obs.IssueComments {
		if ic.DatabaseID == t.CommentID {
			return ic.CreatedAt, ic.Author.Login, true
		}
	}
	return t.At.Add(-time.Minute), "", true
}

// commentWorkflows are the Claude workflows a comment can start: those
// that listen to issue_comment, or every Claude workflow when none says so
// in a form we recognise.
func commentWorkflows(files []engines.WorkflowFile) []engines.WorkflowFile {
	all := claudeWorkflows(files)
	var out []engines.WorkflowFile
	for _, f := range all {
		if strings.Contains(f.Content, CommentEvent) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// WorkflowRunQueries implements engines.RunWatcher. When the loop's
// trigger for the head was a comment and no Claude check run on the head
// started since, Claude's run is a workflow run on the default branch's head, which
// the observation cannot show: the cycle reads the runs of the Claude
// workflows started by issue_comment since the trigger. That is one REST
// request per such workflow and only while Claude's comment-triggered
// review is awaited; reading the default branch's check runs instead
// would need the same request and could not tell which comment a run
// answers, and the workflow_run event reaches us without the PR (its
// pull_requests list is empty), so it cannot stand in for the read on
// the PR's own wake-ups.
func (c *Claude) WorkflowRunQueries(obs *github.Observation, env engines.Env) []engines.RunQuery {
	if obs == nil {
		return nil
	}
	since, _, ok := commentTrigger(obs, env)
	if !ok {
		return nil
	}
	if cr := c.checkRun(obs); cr != nil && !cr.StartedAt.Before(since) {
		return nil
	}
	var out []engines.RunQuery
	for _, f := range commentWorkflows(env.WorkflowFiles) {
		out = append(out, engines.RunQuery{File: f.Path, Event: CommentEvent, Since: since})
	}
	return out
}

// commentRun is Claude's run for a comment trigger of the head, read from
// Observation.WorkflowRuns and shown as the check run of its job (nil
// when WorkflowRunQueries asks for none: the head's own check run is
// Claude's run then): the newest run of a Claude workflow started by issue_comment at or after the
// trigger. Skipped runs are other comments' runs (the job's `if` did not
// match); when the run's actor is known it must be the trigger's author.
func (c *Claude) commentRun(obs *github.Observation, env engines.Env) *github.CheckRun {
	since, author, ok := commentTrigger(obs, env)
	if !ok {
		return nil
	}
	var best *github.WorkflowRun
	for _, q := range c.WorkflowRunQueries(obs, env) {
		for i := range obs.WorkflowRuns {
			r := &obs.WorkflowRuns[i]
			switch {
			case !q.Matches(*r), r.CreatedAt.Before(since), strings.EqualFold(r.Conclusion, "skipped"):
				continue
			case author != "" && r.Actor != "" && engines.NormLogin(r.Actor) != engines.NormLogin(author):
				continue
			}
			if best == nil || r.CreatedAt.After(best.CreatedAt) || (r.CreatedAt.Equal(best.CreatedAt) && r.ID > best.ID) {
				best = r
			}
		}
	}
	if best == nil {
		return nil
	}
	start := best.RunStartedAt
	if start.IsZero() {
		start = best.CreatedAt
	}
	cr := &github.CheckRun{DatabaseID: best.ID, Name: best.Name, AppSlug: "github-actions",
		Status: strings.ToUpper(best.Status), Conclusion: strings.ToUpper(best.Conclusion), StartedAt: start}
	if cr.Name == "" {
		cr.Name = path.Base(best.Path)
	}
	if cr.Status == "COMPLETED" {
		cr.CompletedAt = best.UpdatedAt
	}
	return cr
}

func countInline(obs *github.Observation, a engines.Author, since func(time.Time) bool) int {
	n := 0
	for _, t := range obs.Threads {
		for _, cm := range t.Comments {
			if a.Match(cm.Author) && since(cm.CreatedAt) {
				n++
			}
		}
	}
	return n
}

func editsClaudeWorkflow(env engines.Env) bool {
	wfs := claudeWorkflows(env.WorkflowFiles)
	for _, f := range env.ChangedFiles {
		for _, w := range wfs {
			if path.Clean(f) == path.Clean(w.Path) {
				return true
			}
		}
		if env.WorkflowFiles == nil && strings.HasPrefix(f, ".github/workflows/") && strings.Contains(strings.ToLower(f), "claude") {
			return true
		}
	}
	return false
}

// missingComment names a Claude workflow that runs the code-review plugin
// without --comment, or "".
func missingComment(files []engines.WorkflowFile) string {
	for _, w := range claudeWorkflows(files) {
		if strings.Contains(w.Content, "code-review") && !strings.Contains(w.Content, "--comment") {
			return w.Path
		}
	}
	return ""
}

// Trigger implements engines.Engine: it posts TriggerBody with the
// user token; with only GITHUB_TOKEN the comment would start no workflow,
// so it returns engines.ErrTriggerUnavailable.
//
// API: POST /repos/{owner}/{repo}/issues/{issue_number}/comments.
func (*Claude) Trigger(ctx context.Context, gh engines.GitHub, pr engines.PRRef) (int64, error) {
	if !pr.UserToken {
		return 0, &engines.EngineError{Engine: Name, Op: "trigger", Err: fmt.Errorf("%w: %s", engines.ErrTriggerUnavailable, NoTokenNote)}
	}
	c, err := gh.CreateIssueComment(ctx, pr.Owner, pr.Repo, pr.Number, TriggerBody)
	if err != nil {
		return 0, &engines.EngineError{Engine: Name, Op: "trigger", Err: err}
	}
	return c.DatabaseID, nil
}

// State is the state a Claude comment shows.
type State string

// Comment states.
const (
	StateWorking  State = "working"  // the action's tracking comment before it finishes
	StateFinished State = "finished" // "**Claude finished …**" header
	StateErrored  State = "errored"  // "**Claude encountered an error …**"
	StateOther    State = "other"    // any other body (plugin summary, free prose)
)

// Comment is what a Claude comment body shows.
type Comment struct {
	State State
	// Substantive is true when the body carries review prose, as opposed
	// to a progress note.
	Substantive bool
	// CleanPhrase is true when the plugin's "No issues found" wording is
	// present. It is reported only; the judge decides (S3, J1).
	CleanPhrase bool
}

var (
	// Claude's words live in its definition, engines/defs/claude.yaml (S12).
	workingRE  = engines.BuiltinText(Name, KindActionWorking)
	finishedRE = engines.BuiltinText(Name, KindActionFinished)
	erroredRE  = engines.BuiltinText(Name, KindActionError)
	cleanRE    = regexp.MustCompile(`(?i)No issues found\.`)
)

// ParseComment reads a Claude comment body by its markers.
func ParseComment(body string) Comment {
	c := Comment{State: StateOther, Substantive: strings.TrimSpace(body) != "", CleanPhrase: cleanRE.MatchString(body)}
	switch {
	case erroredRE.MatchString(body):
		c.State, c.Substantive = StateErrored, false
	case finishedRE.MatchString(body):
		c.State = StateFinished
	case workingRE.MatchString(body):
		c.State, c.Substantive = StateWorking, false
	}
	return c
}

// severityMarkers are the managed Code Review's severity markers and
// where each lands on the one scale (EQ3's clean-at floor, the triage
// patterns), with the marker's word as the category: data, in
// engines/defs/claude.yaml. A comment of claude-code-action carries
// none: unknown, which counts as medium.
var severityMarkers = engines.BuiltinSeverity(Name)

// ParseFinding reads a Claude inline comment: a brief description with an
// optional suggestion block (kept in the body). The managed service's
// documented markers set a severity and a category (severityMarkers);
// anything else is unknown.
func ParseFinding(body string) engines.Parsed {
	p := engines.Parsed{Title: engines.Title(body), Body: body}
	p.Severity, p.Category = severityMarkers.Read(body)
	return p
}

// Severity is the managed check run's machine-readable severity line.
type Severity struct {
	Normal      int `json:"normal"`
	Nit         int `json:"nit"`
	PreExisting int `json:"pre_existing"`
}

// Total is the number of findings the line counts.
func (s Severity) Total() int { return s.Normal + s.Nit + s.PreExisting }

var severityLineRE = regexp.MustCompile(`<!--\s*bughunter-severity:\s*(\{.*?\})\s*-->`)

// ParseSeverityLine reads `<!-- bughunter-severity: {...} -->` from a check
// run's output text; ok is false when absent or malformed.
func ParseSeverityLine(text string) (Severity, bool) {
	ms := severityLineRE.FindAllStringSubmatch(text, -1)
	if ms == nil {
		return Severity{}, false
	}
	var s Severity
	if err := json.Unmarshal([]byte(ms[len(ms)-1][1]), &s); err != nil || s.Normal < 0 || s.Nit < 0 || s.PreExisting < 0 || s.Total() > 1<<20 || s.Normal > 1<<20 || s.Nit > 1<<20 || s.PreExisting > 1<<20 {
		return Severity{}, false
	}
	return s, true
}

var managedCountRE = regexp.MustCompile(`(?i)found\s+(\d+)\s+potential\s+issues?`)

// ParseManagedSummary reads the count from the managed check's summary
// ("Code review found 4 potential issues"); ok is false when absent.
func ParseManagedSummary(summary string) (int, bool) {
	m := managedCountRE.FindStringSubmatch(summary)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
