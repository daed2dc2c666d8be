// Package bugbot is the adapter for Cursor Bugbot: a structured,
// single-verdict engine whose check run "Cursor Bugbot" signals completion
// and whose findings are inline comments carrying hidden markers.
package bugbot

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// Name is the engine name.
const Name = "bugbot"

// CheckRunName is the name of Bugbot's check run, the review signal.
const CheckRunName = "Cursor Bugbot"

// TriggerBody is the comment that asks Bugbot for a review; Bugbot ignores
// it when a bot or app posts it.
const TriggerBody = "bugbot run"

// BotID is the account id of cursor[bot].
const BotID = 206951365

// Author is Bugbot's account ("cursor" in GraphQL, "cursor[bot]" in REST).
var Author = engines.Author{Logins: []string{"cursor"}, ID: BotID}

// Bugbot is the Cursor Bugbot adapter.
type Bugbot struct{}

var _ engines.Engine = (*Bugbot)(nil)

// New returns the Bugbot adapter.
func New() *Bugbot { return &Bugbot{} }

// Name implements engines.Engine.
func (*Bugbot) Name() string { return Name }

// TriggerBody implements engines.Engine.
func (*Bugbot) TriggerBody() string { return TriggerBody }

// Capabilities implements engines.Engine.
func (*Bugbot) Capabilities() engines.Capabilities {
	return engines.Capabilities{
		Trigger:           engines.TriggerComment,
		AcceptsBotTrigger: false,
		// Bugbot reads its earlier comments "to avoid duplicate
		// suggestions" (cursor.com/docs/bugbot): a still-present bug is
		// usually not re-posted, its old thread stays unresolved (ST5).
		Incremental:  true,
		Completion:   engines.CompletionCheckRun,
		CheckRunName: CheckRunName,
		CheckRunApp:  "cursor",
	}
}

// EngineAuthor implements engines.Authored.
func (*Bugbot) EngineAuthor() engines.Author { return Author }

// NoTokenNote explains why Bugbot cannot be triggered without a user token.
const NoTokenNote = "Bugbot ignores `bugbot run` when a bot or app posts it and no trigger token was given: relying on Bugbot's automatic review of every push"

// Observe implements engines.Engine.
func (*Bugbot) Observe(obs *github.Observation, env engines.Env) loop.EngineView {
	v := loop.EngineView{
		Engine:           Name,
		Installed:        true,
		TriggerAvailable: env.HasTriggerToken,
		Material:         loop.MaterialPending,
		Incremental:      true,
		// Its check run completes when its review does (S10, S11).
		CompletionSignal: true,
	}
	if !env.HasTriggerToken {
		v.TriggerNote = NoTokenNote
	}
	// Any app may carry the name: the Cursor app's slug is not confirmed.
	cr := engines.FindCheckRun(obs, IsReviewCheck)
	v.Signal, v.SignalStartedAt, v.SignalID = engines.CheckSignal(cr)

	// A review whose body Bugbot rewrote to "Stale Bugbot comment from a
	// previous run." is no review any more (bugbot/11-… A), like one it
	// hid: never its proof nor its latest review.
	reviews := slices.DeleteFunc(engines.ReviewsBy(obs, Author), func(r github.Review) bool { return staleRE.MatchString(r.Body) })
	v.Reviews = engines.Refs(reviews, func(github.Review) bool { return true })
	for _, r := range reviews {
		v.Verdicts = append(v.Verdicts, loop.Verdict{ReviewID: r.DatabaseID, SHA: r.CommitSHA, Body: r.Body, Substantive: true, At: r.SubmittedAt})
	}
	if n := len(reviews); n > 0 {
		v.LatestReviewID, v.LatestSHA = reviews[n-1].DatabaseID, reviews[n-1].CommitSHA
	}
	v.Findings = engines.ThreadFindings(obs, Name, Author, ParseFinding)

	if v.Signal == loop.SignalDone {
		readDone(&v, obs, cr, reviews, env.TriggeredAt(Name, obs.HeadSHA))
	}
	return v
}

// CheckRunNames are the names Bugbot's review check run carries: "Cursor
// Bugbot", and on some repositories "Cursor / Cursor Bugbot" (ENGINES.md
// round 3). Its "… Autofix" checks are not the review.
var CheckRunNames = []string{CheckRunName, "Cursor / " + CheckRunName}

// IsReviewCheck matches Bugbot's review check run by name (never an
// "Autofix" check, never review-loop's own gate, MG2).
func IsReviewCheck(cr github.CheckRun) bool {
	if strings.EqualFold(cr.Name, loop.GateName) {
		return false
	}
	for _, n := range CheckRunNames {
		if strings.EqualFold(strings.TrimSpace(cr.Name), n) {
			return true
		}
	}
	return false
}

// readDone reads a completed Bugbot check: only a Bugbot review of the head
// proves Bugbot reviewed it (S7). A `neutral` check also means cancelled by
// a newer commit or an internal error (cursor.com/docs/bugbot), a usage
// limit stop is an issue comment with a neutral "Error" check and no review
// (T8), and the check output states how many issues remain open (S6).
func readDone(v *loop.EngineView, obs *github.Observation, cr *github.CheckRun, reviews []github.Review, trigger time.Time) {
	var head *github.Review
	for i := range reviews {
		if reviews[i].CommitSHA == obs.HeadSHA {
			head = &reviews[i]
		}
	}
	conclusion := strings.ToLower(cr.Conclusion)
	if head == nil {
		if q := usageLimit(obs, cr); q != nil {
			v.Material, v.Quota = loop.MaterialQuota, q
			return
		}
		if engines.CheckErrored(cr) || conclusion == "failure" {
			// Bugbot's errors conclude `failure` (ENGINES.md round 3).
			v.Material = loop.MaterialErrored
			v.MaterialNote = fmt.Sprintf("check run %q concluded %s", cr.Name, conclusion)
			return
		}
		if checkOnly(v, obs, cr, trigger) {
			return
		}
		v.Material = loop.MaterialUnproven
		v.MaterialNote = fmt.Sprintf("check run %q concluded %s with no Bugbot review of the head %s", CheckRunName, conclusion, short(obs.HeadSHA))
		if line := checkLine(cr); line != "" {
			v.MaterialNote += ": " + line
		}
		return
	}
	v.Material = loop.MaterialOK
	if engines.CheckErrored(cr) {
		v.Material = loop.MaterialErrored
		v.MaterialNote = fmt.Sprintf("check run %q concluded %s", CheckRunName, conclusion)
	}
	v.VerdictSetProven = obs.Complete
	v.MaterialNote = joinNote(v.MaterialNote, countNote(obs, reviews, v.Findings))
	// S8: only a head review of a kind Bugbot posts when it finished
	// reviewing proves the review; anything else leaves it UNPROVEN.
	body := (&Bugbot{}).Classify(engines.SurfaceReview, head.Body)
	if !engines.ProveBy(v, body, head.CommitSHA, head.DatabaseID, head.Body) && !exception(body) && checkException(cr) == "" {
		// S10: Bugbot's check concluded success on the head after the
		// trigger and its review is of the head: finished, whatever the
		// body's words (a stale body or a notice is an exception).
		if engines.ProveByRun(v, engines.CheckCompletion(cr, obs.HeadSHA, engines.Success), obs.HeadSHA, trigger,
			[]engines.Bound{{Kind: engines.BoundReview, SHA: head.CommitSHA, ID: head.DatabaseID}}) {
			v.Unproven = ""
		}
	}
	if body.Proof && body.Stated > 0 {
		// S6: the review body's "found N potential issues", besides the
		// check output; a thread of that review resolved since is not owed.
		n, src := body.Stated, fmt.Sprintf("review %d: found %d potential issue(s)", head.DatabaseID, body.Stated)
		if m := totalRE.FindString(head.Body); m != "" {
			src = fmt.Sprintf("review %d: %s", head.DatabaseID, m)
		}
		if k := resolvedSince(obs, head.DatabaseID); k > 0 {
			n = max(0, n-k)
			src += fmt.Sprintf(" (less %d thread(s) of that review resolved since)", k)
		}
		v.Stated = &loop.StatedCount{N: n, Source: src}
	}
	if c := ParseCheck(cr.Title, cr.Summary, cr.Text); c.Known && (v.Stated == nil || c.Total >= v.Stated.N) {
		n, src := c.Total, fmt.Sprintf("check run %q: %s", CheckRunName, c.Source)
		// The output was written with the head review: a thread of that
		// review resolved since (a won't-fix reply, E6) was counted in it.
		if k := resolvedSince(obs, head.DatabaseID); k > 0 {
			n = max(0, n-k)
			src += fmt.Sprintf(" (less %d thread(s) of that review resolved since)", k)
		}
		v.Stated = &loop.StatedCount{N: n, Source: src}
	}
}

// checkOnly is S10 for Bugbot's run that posts no review: an
// API-triggered clean run with postSuccessComment false (ENGINES.md round
// 4). Its check, filed on the head, concluded success after the trigger
// and carries its own output: that output is bound to the head, and the
// run finished. Any exception wording in the output (cancelled, skipped,
// failed, a usage limit) wins. The output's counts stay S6's.
func checkOnly(v *loop.EngineView, obs *github.Observation, cr *github.CheckRun, trigger time.Time) bool {
	out := strings.TrimSpace(cr.Title + cr.Summary + cr.Text)
	if out == "" || checkException(cr) != "" {
		return false
	}
	if !engines.ProveByRun(v, engines.CheckCompletion(cr, obs.HeadSHA, engines.Success), obs.HeadSHA, trigger,
		[]engines.Bound{{Kind: engines.BoundSummary, SHA: obs.HeadSHA, ID: cr.SignalID()}}) {
		return false
	}
	v.Material = loop.MaterialOK
	v.VerdictSetProven = obs.Complete
	if c := ParseCheck(cr.Title, cr.Summary, cr.Text); c.Known {
		v.Stated = &loop.StatedCount{N: c.Total, Source: fmt.Sprintf("check run %q: %s", cr.Name, c.Source)}
	}
	return true
}

// checkExceptionRE are the words of a Bugbot check output that say the
// run reviewed nothing: cancelled, skipped, failed (testdata 08 C, D).
// They live in engines/defs/bugbot.yaml (S12).
var checkExceptionRE = engines.BuiltinText(Name, KindCheckException)

// checkException is the exception a Bugbot check output states (S10:
// exceptions win over the signal), or "".
func checkException(cr *github.CheckRun) string {
	if cr == nil {
		return ""
	}
	text := cr.Title + "\n" + cr.Summary + "\n" + cr.Text
	if t, ok := ParseUsageLimit(text); ok {
		return t
	}
	return checkExceptionRE.FindString(text)
}

// exception reports whether a review body is one of Bugbot's exception
// kinds: a usage limit, a free-tier notice, a stale body.
func exception(r engines.Reading) bool {
	return r.Quota || r.Kind == KindFreeTierNotice || r.Kind == KindStaleReview || r.Kind == KindUsageLimit
}

// resolvedSince counts Bugbot's resolved threads posted with review id.
func resolvedSince(obs *github.Observation, review int64) int {
	n := 0
	for _, t := range obs.Threads {
		if t.IsResolved && len(t.Comments) > 0 && t.Comments[0].ReviewDatabaseID == review && Author.Match(t.Comments[0].Author) {
			n++
		}
	}
	return n
}

// usageLimit is Bugbot's usage-limit stop on the head: its issue comment
// "Bugbot couldn't run - usage limit reached" (no retry time is stated)
// posted since the check run started (testdata/engines/bugbot/06).
func usageLimit(obs *github.Observation, cr *github.CheckRun) *loop.QuotaNotice {
	cs := engines.IssueCommentsBy(obs, Author)
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		if cr != nil && !cr.StartedAt.IsZero() && c.CreatedAt.Before(cr.StartedAt) {
			return nil
		}
		if text, ok := ParseUsageLimit(c.Body); ok {
			return &loop.QuotaNotice{At: c.CreatedAt, Text: text}
		}
	}
	// T8: the limit sentence can be only in the check run's title or
	// summary, with no issue comment (ENGINES.md round 3).
	if cr != nil {
		if text, ok := ParseUsageLimit(cr.Title + "\n\n" + cr.Summary + "\n\n" + cr.Text); ok {
			return &loop.QuotaNotice{At: cmp.Or(cr.CompletedAt, cr.StartedAt), Text: text}
		}
	}
	return nil
}

var (
	usageRE = engines.BuiltinText(Name, KindUsageLimit)
	tagRE   = regexp.MustCompile(`<[^>]*>`)
)

// ParseUsageLimit reads Bugbot's usage-limit issue comment and returns its
// own words (heading and first paragraph, tags stripped). Free-tier
// notices inside a normal review body are not a stop (testdata 09).
func ParseUsageLimit(body string) (string, bool) {
	if !usageRE.MatchString(body) {
		return "", false
	}
	var parts []string
	for _, p := range strings.Split(engines.StripHTMLComments(body), "\n\n") {
		p = strings.TrimSpace(tagRE.ReplaceAllString(p, ""))
		if p == "" {
			continue
		}
		parts = append(parts, p)
		if len(parts) == 2 {
			break
		}
	}
	return strings.Join(parts, ": "), true
}

// checkLine is the check run's own word on what happened, for the report.
func checkLine(cr *github.CheckRun) string {
	for _, s := range []string{cr.Summary, cr.Title, cr.Text} {
		if l := engines.FirstLine(tagRE.ReplaceAllString(s, "")); l != "" {
			return l
		}
	}
	return ""
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// CheckCounts is what the check run's output states about open issues.
type CheckCounts struct {
	Known    bool   // the output stated a count
	New      int    // found in this run
	Previous int    // reported earlier and still unresolved
	Total    int    // open in all: stated, or New + Previous
	Source   string // the sentence the count was read from
}

var (
	totalRE    = regexp.MustCompile(`(?i)there (?:are|is) (\d{1,6}) total unresolved issues?(?: \(including (\d{1,6}) from previous reviews?\))?`)
	foundRE    = regexp.MustCompile(`(?i)completed review and found (\d{1,6}) potential (?:issues?|bugs?)`)
	noneRE     = regexp.MustCompile(`(?i)completed review\s*[-–—]?\s*(?:and found )?no (?:new )?(?:issues|bugs)(?: found)?`)
	previousRE = regexp.MustCompile(`(?i)(\d{1,6}) previously reported (?:issues?|bugs?) remains?(?: unresolved)?`)
)

// ParseCheck reads the counts Bugbot's check output states (S6), e.g.
// "Final Result: Bugbot completed review and found 1 potential issue. 1
// previously reported issue remain unresolved." and "There are 2 total
// unresolved issues (including 1 from previous review)." (ENGINES.md
// round 2; testdata/engines/bugbot/08). A text without a count leaves
// Known false: nothing is stated, nothing is proven by it.
func ParseCheck(title, summary, text string) CheckCounts {
	all := strings.Join([]string{title, summary, text}, "\n")
	var c CheckCounts
	if m := foundRE.FindStringSubmatch(all); m != nil {
		c.Known, c.New, c.Source = true, atoi(m[1]), m[0]
	} else if m := noneRE.FindString(all); m != "" {
		c.Known, c.Source = true, m
	}
	if m := previousRE.FindStringSubmatch(all); m != nil {
		c.Known, c.Previous = true, atoi(m[1])
		c.Source = joinSource(c.Source, m[0])
	}
	c.Total = c.New + c.Previous
	if m := totalRE.FindStringSubmatch(all); m != nil {
		c.Known = true
		if n := atoi(m[1]); n > c.Total {
			c.Total = n
		}
		if m[2] != "" && atoi(m[2]) > c.Previous {
			c.Previous = atoi(m[2])
		}
		c.Source = joinSource(c.Source, m[0])
	}
	return c
}

func joinSource(a, b string) string {
	if a == "" {
		return b
	}
	return a + " … " + b
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// countNote compares the head review's announced count with the threads
// read for it, so a missing thread is reported rather than read as fixed.
func countNote(obs *github.Observation, reviews []github.Review, findings []loop.Finding) string {
	for i := len(reviews) - 1; i >= 0; i-- {
		r := reviews[i]
		if r.CommitSHA != obs.HeadSHA {
			continue
		}
		s := ParseSummary(r.Body)
		if !s.Known || s.Count == 0 {
			return ""
		}
		seen := 0
		for _, f := range findings {
			if f.ReviewID == r.DatabaseID {
				seen++
			}
		}
		if seen < s.Count {
			return fmt.Sprintf("review %d announces %d potential issue(s), %d open thread(s) read", r.DatabaseID, s.Count, seen)
		}
		return ""
	}
	return ""
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// Trigger implements engines.Engine: it posts "bugbot run", which Bugbot
// honours only from a user, so without a user token it returns
// engines.ErrTriggerUnavailable.
//
// API: POST /repos/{owner}/{repo}/issues/{issue_number}/comments.
func (*Bugbot) Trigger(ctx context.Context, gh engines.GitHub, pr engines.PRRef) (int64, error) {
	if !pr.UserToken {
		return 0, &engines.EngineError{Engine: Name, Op: "trigger", Err: fmt.Errorf("%w: %s", engines.ErrTriggerUnavailable, NoTokenNote)}
	}
	c, err := gh.CreateIssueComment(ctx, pr.Owner, pr.Repo, pr.Number, TriggerBody)
	if err != nil {
		return 0, &engines.EngineError{Engine: Name, Op: "trigger", Err: err}
	}
	return c.DatabaseID, nil
}

var (
	titleRE    = regexp.MustCompile(`(?m)^[ \t]*###[ \t]+(.+?)[ \t]*$`)
	oldTitleRE = regexp.MustCompile(`<h3>\s*(?:Bug:\s*)?(.+?)\s*</h3>`)
	descRE     = regexp.MustCompile(`(?s)<!--\s*DESCRIPTION START\s*-->(.*?)<!--\s*DESCRIPTION END\s*-->`)
	bugIDRE    = regexp.MustCompile(`<!--\s*BUGBOT_BUG_ID:\s*([^\s>]+)\s*-->`)
	locsRE     = regexp.MustCompile(`(?s)<!--\s*LOCATIONS START(.*?)LOCATIONS END\s*-->`)
	countRE    = regexp.MustCompile(`(?i)found\s+(\d+)\s+potential\s+issues?`)
	cleanRE    = regexp.MustCompile(`(?i)found no (?:new )?(?:potential )?(?:issues|bugs)`)
)

// severityMarkers are Bugbot's severity words ("**High Severity**") and
// where each lands on the one scale (EQ3's clean-at floor, the triage
// patterns): data, in engines/defs/bugbot.yaml.
var severityMarkers = engines.BuiltinSeverity(Name)

// ParseFinding reads one Bugbot inline comment by its markers (ST4). Missing
// markers leave fields empty and the severity unknown.
func ParseFinding(body string) engines.Parsed {
	p := engines.Parsed{Severity: loop.SeverityUnknown}
	if m := titleRE.FindStringSubmatch(body); m != nil {
		p.Title = m[1]
	} else if m := oldTitleRE.FindStringSubmatch(body); m != nil {
		p.Title = m[1]
	} else {
		p.Title = engines.Title(body)
	}
	p.Severity, _ = severityMarkers.Read(body)
	if m := descRE.FindStringSubmatch(body); m != nil {
		p.Body = strings.TrimSpace(m[1])
	} else {
		p.Body = strings.TrimSpace(engines.StripHTMLComments(body))
	}
	if m := bugIDRE.FindStringSubmatch(body); m != nil {
		p.Key = m[1]
	}
	if m := locsRE.FindStringSubmatch(body); m != nil {
		for _, l := range strings.Split(m[1], "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			if i := strings.LastIndex(l, "#L"); i > 0 {
				l = l[:i]
			}
			if !contains(p.Locations, l) {
				p.Locations = append(p.Locations, l)
			}
		}
	}
	return p
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Summary is what a Bugbot review body announces.
type Summary struct {
	Known bool // the body matched a known summary shape
	Count int  // announced potential issues
	Clean bool // "found no new issues"
}

// ParseSummary reads a Bugbot review summary body.
func ParseSummary(body string) Summary {
	if m := countRE.FindStringSubmatch(body); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil {
			return Summary{Known: true, Count: n, Clean: n == 0}
		}
	}
	if cleanRE.MatchString(body) {
		return Summary{Known: true, Clean: true}
	}
	return Summary{}
}
