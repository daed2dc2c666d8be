package declarative

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// Engine is an adapter built from a Definition: a structured,
// single-verdict engine read by its markers.
type Engine struct {
	def        Definition
	author     engines.Author
	severities []severityRE
	id         *regexp.Regexp
	title      *regexp.Regexp
	category   *regexp.Regexp
	count      *regexp.Regexp
	waits      []*regexp.Regexp
	kinds      []kindMatcher
	reviewed   *regexp.Regexp
	summaries  []*regexp.Regexp
	running    []*regexp.Regexp
}

var zeroTime time.Time

type severityRE struct {
	re  *regexp.Regexp
	sev loop.Severity
}

var (
	_ engines.Engine    = (*Engine)(nil)
	_ engines.Installer = (*Engine)(nil)
)

// New builds an engine from a definition, validating it first.
func New(d Definition) (*Engine, error) {
	if errs := d.validate(); len(errs) > 0 {
		return nil, fmt.Errorf("engine %q: %w", d.Name, errs[0])
	}
	e := &Engine{def: d, author: engines.Author{Logins: d.Author.Logins, ID: d.Author.ID, AllowUsers: d.AllowUserAuthor}}
	for _, m := range d.SeverityMarkers {
		e.severities = append(e.severities, severityRE{mustCompile(m.Pattern), loop.Severity(m.Severity)})
	}
	opt := func(s string) *regexp.Regexp {
		if s == "" {
			return nil
		}
		return mustCompile(s)
	}
	e.id, e.title, e.category, e.count = opt(d.IDMarker), opt(d.TitleMarker), opt(d.CategoryMarker), opt(d.SummaryCount)
	for _, w := range d.QuotaWaits {
		e.waits = append(e.waits, mustCompile(w))
	}
	for _, k := range d.Kinds {
		e.kinds = append(e.kinds, kindMatcher{def: k, re: mustCompile(k.Pattern)})
	}
	e.reviewed = opt(d.ReviewedCommit)
	for _, re := range d.SummaryCommits {
		e.summaries = append(e.summaries, mustCompile(re))
	}
	for _, re := range d.RunningMarkers {
		e.running = append(e.running, mustCompile(re))
	}
	return e, nil
}

// Engines builds engines from definitions.
func Engines(defs []Definition) ([]engines.Engine, error) {
	out := make([]engines.Engine, 0, len(defs))
	for _, d := range defs {
		e, err := New(d)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Definition returns the engine's definition.
func (e *Engine) Definition() Definition { return e.def }

// Name implements engines.Engine.
func (e *Engine) Name() string { return e.def.Name }

// EngineAuthor implements engines.Authored.
func (e *Engine) EngineAuthor() engines.Author { return e.author }

// TriggerBody implements engines.Engine.
func (e *Engine) TriggerBody() string { return e.def.Trigger }

// Capabilities implements engines.Engine.
func (e *Engine) Capabilities() engines.Capabilities {
	c := engines.Capabilities{Trigger: engines.TriggerComment, AcceptsBotTrigger: e.def.AcceptsBotTrigger, Completion: engines.CompletionReviewOnHead, Incremental: e.def.Incremental}
	if e.def.Trigger == "" {
		c.Trigger = engines.TriggerPushOnly
	}
	if e.def.CheckRun != "" {
		c.Completion, c.CheckRunName, c.CheckRunApp = engines.CompletionCheckRun, e.def.CheckRun, e.def.CheckRunApp
	}
	return c
}

// Installed implements engines.Installer: an engine that has left no
// review, comment or check run on the PR is not in the default set.
func (e *Engine) Installed(obs *github.Observation, _ engines.Env) (bool, string) {
	if obs == nil || e.seen(obs) {
		return true, ""
	}
	return false, fmt.Sprintf("no review, comment or check run from %s on this PR", e.def.Name)
}

func (e *Engine) seen(obs *github.Observation) bool {
	if e.checkRun(obs) != nil || len(engines.ReviewsBy(obs, e.author)) > 0 || len(engines.IssueCommentsBy(obs, e.author)) > 0 {
		return true
	}
	for _, t := range obs.Threads {
		for _, c := range t.Comments {
			if e.author.Match(c.Author) {
				return true
			}
		}
	}
	return false
}

// checkRun is the engine's completion signal on the head: its check run,
// or else its commit status (status_context) read as one.
func (e *Engine) checkRun(obs *github.Observation) *github.CheckRun {
	if e.def.CheckRun != "" {
		if cr := engines.FindCheckRun(obs, engines.NamedCheck(e.def.CheckRun, e.def.CheckRunApp)); cr != nil {
			return cr
		}
	}
	if e.def.StatusContext == "" {
		return nil
	}
	return engines.StatusCheck(obs, e.def.StatusContext, e.author)
}

// Observe implements engines.Engine.
func (e *Engine) Observe(obs *github.Observation, env engines.Env) loop.EngineView {
	v := loop.EngineView{
		Engine:           e.def.Name,
		Installed:        true,
		TriggerAvailable: e.def.Trigger != "" && (e.def.AcceptsBotTrigger || env.HasTriggerToken),
		Incremental:      e.def.Incremental,
		// Only a check run is a completion signal of its own (S11).
		CompletionSignal: e.def.CheckRun != "",
		Signal:           loop.SignalNone,
		Material:         loop.MaterialPending,
	}
	// Installed's "not seen on this PR" only keeps the engine out of the
	// default set: it is no proof the engine is missing (one that reviews
	// at PR open has not posted yet when the loop starts). Named
	// explicitly, the engine is attempted and a miss degrades loudly, as
	// HUNG (IN2, T4).
	if !v.TriggerAvailable {
		switch {
		case e.def.Trigger == "":
			v.TriggerNote = e.def.Name + " has no trigger comment: relying on its automatic review of pushes"
		case !e.def.ReviewsPushes:
			v.TriggerNote = fmt.Sprintf("%s cannot be triggered: it ignores %q from bots and no trigger token was given, and it does not review pushes by itself", e.def.Name, e.def.Trigger)
		default:
			v.TriggerNote = fmt.Sprintf("%s ignores %q from bots and no trigger token was given: relying on its automatic review of pushes", e.def.Name, e.def.Trigger)
		}
	}
	reviews := engines.ReviewsBy(obs, e.author)
	v.Reviews = engines.Refs(reviews, func(github.Review) bool { return true })
	var head *github.Review
	var lastReview time.Time
	for i := range reviews {
		r := &reviews[i]
		v.Verdicts = append(v.Verdicts, loop.Verdict{ReviewID: r.DatabaseID, SHA: r.CommitSHA, Body: r.Body, Substantive: true, At: r.SubmittedAt})
		if r.CommitSHA == obs.HeadSHA {
			head = r
		}
		lastReview = r.SubmittedAt
	}
	if n := len(reviews); n > 0 {
		v.LatestReviewID, v.LatestSHA = reviews[n-1].DatabaseID, reviews[n-1].CommitSHA
	}
	v.Findings = engines.ThreadFindings(obs, e.def.Name, e.author, e.ParseFinding)
	var headBody bodyRead
	for i := range reviews {
		b := e.bodyFindings(obs, &reviews[i])
		v.Findings = append(v.Findings, b.findings...)
		if head != nil && reviews[i].DatabaseID == head.DatabaseID {
			headBody = b
		}
	}

	// The newest status notice from the engine (quota, skip, error), if
	// newer than its last review: only that counts (T8, S7). A summary
	// naming the head (S10) is the engine's word on the head too: a
	// notice older than it is over; one not older still wins.
	bound, finishedAt := e.headBound(obs, head)
	var note notice
	for _, c := range engines.IssueCommentsBy(obs, e.author) {
		if n := e.classify(c.Body, c.UpdatedAt); n.kind != noticeNone && c.UpdatedAt.After(lastReview) && !c.UpdatedAt.Before(note.at) &&
			(finishedAt.IsZero() || !loop.AtSecond(c.UpdatedAt).Before(loop.AtSecond(finishedAt))) {
			note = n
		}
	}
	cr := e.checkRun(obs)
	if cr != nil {
		v.Signal, v.SignalStartedAt, v.SignalID = engines.CheckSignal(cr)
		if v.Signal == loop.SignalDone && note.kind == noticeNone {
			note = e.classify(cr.Title+"\n"+cr.Summary, cmp.Or(cr.CompletedAt, cr.StartedAt))
		}
	} else if head != nil {
		v.Signal, v.SignalID = loop.SignalDone, head.DatabaseID
	} else if note.kind != noticeNone {
		// No check run and no review: the notice is the engine's answer.
		v.Signal = loop.SignalDone
	}
	if running := e.runningNote(obs, finishedAt); running != "" {
		// S10: a review of the head still running is an exception that
		// wins over a green check: the engine is RUNNING.
		v.Signal, v.MaterialNote, v.Unproven = loop.SignalRunning, running, running
		return v
	}
	if v.Signal == loop.SignalNone {
		v.Paused = e.paused(obs)
	}
	if v.Signal != loop.SignalDone {
		return v
	}
	switch {
	case note.kind == noticeQuota:
		v.Material, v.MaterialNote = loop.MaterialQuota, fmt.Sprintf("%s: %s", e.def.Name, note.text)
		v.Quota = &loop.QuotaNotice{At: note.at, Wait: note.wait, Text: note.text}
	case note.kind == noticeUnproven:
		v.Material, v.MaterialNote = loop.MaterialUnproven, fmt.Sprintf("%s did not review: %s", e.def.Name, note.text)
	case note.kind == noticeError:
		// The engine's own words first (09-…: "Review failed: Failed to
		// post review comments"), over the check run's conclusion.
		v.Material, v.MaterialNote = loop.MaterialErrored, fmt.Sprintf("%s reported %q", e.def.Name, note.text)
	case engines.CheckErrored(cr):
		v.Material, v.MaterialNote = loop.MaterialErrored, fmt.Sprintf("check run %q concluded %s", cr.Name, strings.ToLower(cr.Conclusion))
	case head != nil && e.errorPhrase(head.Body) != "":
		v.Material, v.MaterialNote = loop.MaterialErrored, fmt.Sprintf("%s reported %q", e.def.Name, e.errorPhrase(head.Body))
	case head != nil && e.Classify(engines.SurfaceReview, head.Body).Quota:
		// T8: a quota notice in the review body itself.
		text := noticeText(head.Body, 0)
		if n := e.classify(head.Body, head.SubmittedAt); n.kind == noticeQuota {
			text = n.text
			v.Quota = &loop.QuotaNotice{At: head.SubmittedAt, Wait: n.wait, Text: text}
		}
		v.Material, v.MaterialNote = loop.MaterialQuota, fmt.Sprintf("%s: %s", e.def.Name, text)
	default:
		v.Material = loop.MaterialOK
		v.VerdictSetProven = obs.Complete
		e.prove(&v, obs, head, lastReview)
		if !loop.Proven(v, obs.HeadSHA) && !e.refusedSince(obs, finishedAt) {
			// S10: the engine's check concluded success on the head after
			// the trigger, and it left output bound to the head (a review
			// of the head, a summary naming the head's full SHA).
			if engines.ProveByRun(&v, engines.CheckCompletion(cr, obs.HeadSHA, engines.Success), obs.HeadSHA, env.TriggeredAt(e.def.Name, obs.HeadSHA), bound) {
				v.Unproven = ""
			}
		}
		if head != nil {
			v.Stated = e.stated(obs, head, headBody)
			if n, ok := e.SummaryCount(head.Body); ok {
				read := 0
				for _, f := range v.Findings {
					if f.ReviewID == head.DatabaseID && f.ThreadID != "" {
						read++
					}
				}
				if read < n {
					v.MaterialNote = fmt.Sprintf("review %d announces %d actionable comment(s), %d open thread(s) read", head.DatabaseID, n, read)
				}
			}
		}
	}
	return v
}

// prove is S8: only a review of the head whose body is one of the
// definition's finished-review kinds, and that names no other commit as
// the one it reviewed, proves the engine's review of the head. Otherwise
// the engine's latest word (the head review, or a newer comment: an ack,
// a refusal) is quoted.
func (e *Engine) prove(v *loop.EngineView, obs *github.Observation, head *github.Review, lastReview time.Time) {
	latest := ""
	if head != nil {
		rd := e.Classify(engines.SurfaceReview, head.Body)
		sha := head.CommitSHA
		if c := e.ReviewedCommit(head.Body); c != "" && !sameCommit(sha, c) {
			// The body says it reviewed another commit (ENGINES.md round 3).
			sha = c
		}
		if engines.ProveBy(v, rd, sha, head.DatabaseID, head.Body) && sha == head.CommitSHA {
			return
		}
		latest = head.Body
	}
	for _, c := range engines.IssueCommentsBy(obs, e.author) {
		if c.UpdatedAt.After(lastReview) && strings.TrimSpace(c.Body) != "" {
			latest = c.Body
		}
	}
	v.Unproven = latest
}

// headBound is the engine's output bound to the head (S10): a review
// whose commit is the head and that names no other commit as the one it
// reviewed, and every comment of the engine whose summary names the
// head's full SHA (summary_commits). finishedAt is the newest of them.
func (e *Engine) headBound(obs *github.Observation, head *github.Review) ([]engines.Bound, time.Time) {
	var out []engines.Bound
	var at time.Time
	if head != nil {
		if c := e.ReviewedCommit(head.Body); c == "" || sameCommit(head.CommitSHA, c) {
			out = append(out, engines.Bound{Kind: engines.BoundReview, SHA: head.CommitSHA, ID: head.DatabaseID})
			at = head.SubmittedAt
		}
	}
	for _, c := range engines.IssueCommentsBy(obs, e.author) {
		if e.namesCommit(c.Body, obs.HeadSHA) {
			out = append(out, engines.Bound{Kind: engines.BoundSummary, SHA: obs.HeadSHA, ID: c.DatabaseID})
			if c.UpdatedAt.After(at) {
				at = c.UpdatedAt
			}
		}
	}
	return out, at
}

// namesCommit reports whether one of the summary_commits expressions
// names sha (full SHA, case-insensitive) in body.
func (e *Engine) namesCommit(body, sha string) bool {
	if sha == "" {
		return false
	}
	for _, re := range e.summaries {
		for _, m := range re.FindAllStringSubmatch(body, -1) {
			if len(m) > 1 && strings.EqualFold(strings.TrimSpace(m[1]), sha) {
				return true
			}
		}
	}
	return false
}

// runningNote is the engine's word that a review of the head is still
// running (running_markers), "" when there is none: a comment that
// carries a marker (naming the head when the marker names a commit) and
// is not older than the engine's newest head-bound output, at GitHub's
// whole-second resolution — an in-progress walkthrough is the same
// comment as the summary it later becomes, so it wins while it says so.
func (e *Engine) runningNote(obs *github.Observation, finishedAt time.Time) string {
	for _, c := range engines.IssueCommentsBy(obs, e.author) {
		for _, re := range e.running {
			m := re.FindStringSubmatchIndex(c.Body)
			if m == nil {
				continue
			}
			if len(m) > 3 && m[2] >= 0 && !strings.EqualFold(c.Body[m[2]:m[3]], obs.HeadSHA) {
				continue
			}
			if !finishedAt.IsZero() && loop.AtSecond(c.UpdatedAt).Before(loop.AtSecond(finishedAt)) {
				continue
			}
			word := ""
			for _, l := range strings.Split(engines.StripHTMLComments(c.Body[m[0]:]), "\n") {
				if word = clean(l); word != "" {
					break
				}
			}
			return fmt.Sprintf("%s is still reviewing the head (comment %d): %s", e.def.Name, c.DatabaseID, word)
		}
	}
	return ""
}

// refusedSince reports whether a comment of an exception kind (a
// refusal) is not older than the engine's newest head-bound output: its
// word then wins over the proof by structure (S10).
func (e *Engine) refusedSince(obs *github.Observation, finishedAt time.Time) bool {
	for _, c := range engines.IssueCommentsBy(obs, e.author) {
		if !loop.AtSecond(c.UpdatedAt).Before(loop.AtSecond(finishedAt)) && e.isException(c.Body) {
			return true
		}
	}
	return false
}

func (e *Engine) isException(body string) bool {
	for _, k := range e.kinds {
		if k.def.Exception && k.def.Surface == string(engines.SurfaceComment) && k.re.MatchString(body) {
			return true
		}
	}
	return false
}

// paused is ST6: the engine's comment (CodeRabbit's walkthrough, edited
// in place) that says its reviews are paused, as the status comment
// words it with the one-review command the loop asks with; "" when none
// does. Only an engine with nothing on the head is read as paused.
func (e *Engine) paused(obs *github.Observation) string {
	var text string
	var at time.Time
	for _, c := range engines.IssueCommentsBy(obs, e.author) {
		for _, p := range e.def.PausePhrases {
			if i := strings.Index(c.Body, p); i >= 0 && !c.UpdatedAt.Before(at) {
				start := strings.LastIndex(c.Body[:i], "\n") + 1
				line, _, _ := strings.Cut(c.Body[start:], "\n")
				text, at = cmp.Or(clean(line), p), c.UpdatedAt
				break
			}
		}
	}
	if text == "" {
		return ""
	}
	return fmt.Sprintf("%s paused its reviews («%s»): it reviews no push until asked for one review with %q; review-loop never resumes its automatic reviews (ST6)",
		e.def.Name, clip(text, 80), e.def.Trigger)
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func (e *Engine) errorPhrase(body string) string {
	for _, p := range e.def.ErrorPhrases {
		if strings.Contains(body, p) {
			return p
		}
	}
	return ""
}

// ParseFinding reads one finding comment by the definition's markers; a body
// in an unknown format yields a finding of unknown severity.
func (e *Engine) ParseFinding(body string) engines.Parsed {
	p := engines.Parsed{Body: body, Severity: loop.SeverityUnknown}
	for _, s := range e.severities {
		if s.re.MatchString(body) {
			p.Severity = s.sev
			break
		}
	}
	if m := group(e.id, body); m != "" {
		p.Key = m
	}
	p.Title = group(e.title, body)
	if p.Title == "" {
		p.Title = engines.Title(body)
	}
	p.Category = strings.TrimSpace(group(e.category, body))
	return p
}

// SummaryCount reads the number of findings a review body announces.
func (e *Engine) SummaryCount(body string) (int, bool) {
	m := group(e.count, body)
	if m == "" {
		return 0, false
	}
	n, err := strconv.Atoi(m)
	return n, err == nil
}

// CleanPhrase reports whether body carries one of the engine's "nothing
// found" wordings; informational only (S3).
func (e *Engine) CleanPhrase(body string) bool {
	for _, p := range e.def.CleanPhrases {
		if strings.Contains(body, p) {
			return true
		}
	}
	return false
}

func group(re *regexp.Regexp, body string) string {
	if re == nil {
		return ""
	}
	m := re.FindStringSubmatch(body)
	if len(m) < 2 {
		return ""
	}
	return strings.TrimSpace(m[1])
}

// Trigger implements engines.Engine: it posts the trigger comment. An engine
// that ignores bot-posted commands needs a user token, else the trigger is
// unavailable.
//
// API: POST /repos/{owner}/{repo}/issues/{issue_number}/comments.
func (e *Engine) Trigger(ctx context.Context, gh engines.GitHub, pr engines.PRRef) (int64, error) {
	if e.def.Trigger == "" {
		return 0, &engines.EngineError{Engine: e.def.Name, Op: "trigger", Err: fmt.Errorf("%w: no trigger comment defined", engines.ErrTriggerUnavailable)}
	}
	if !e.def.AcceptsBotTrigger && !pr.UserToken {
		return 0, &engines.EngineError{Engine: e.def.Name, Op: "trigger", Err: fmt.Errorf("%w: %s ignores %q from bots and no trigger token was given", engines.ErrTriggerUnavailable, e.def.Name, e.def.Trigger)}
	}
	c, err := gh.CreateIssueComment(ctx, pr.Owner, pr.Repo, pr.Number, e.def.Trigger)
	if err != nil {
		return 0, &engines.EngineError{Engine: e.def.Name, Op: "trigger", Err: err}
	}
	return c.DatabaseID, nil
}
