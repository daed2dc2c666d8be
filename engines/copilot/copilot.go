// Package copilot is the adapter for GitHub Copilot code review: a
// structured, single-verdict engine that is triggered by a review request
// and signals completion by a review whose commit is the head SHA.
package copilot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// Name is the engine name.
const Name = "copilot"

// BotID is the account id shared by Copilot's review and comment identities.
const BotID = 175728472

// ReviewerLogin is the login reviews carry (GraphQL spelling).
const ReviewerLogin = "copilot-pull-request-reviewer"

// ReviewerRESTLogin is the login a requested_reviewers call needs.
const ReviewerRESTLogin = "copilot-pull-request-reviewer[bot]"

// CheckRunName is the name of the Actions dynamic workflow that runs a
// review, also matched as a check run name.
const CheckRunName = "Copilot code review"

// JobCheckName is the name third-party code reports for the check run of
// that workflow's job. Unconfirmed (ENGINES.md, round 2): neither name is
// relied on for DONE, which is the review on the head SHA.
const JobCheckName = "Agent"

// WorkflowPathPrefix starts the path of Copilot's dynamic workflow
// (dynamic/copilot-pull-request-reviewer/…, ../shared/ENGINES.md), the
// workflow its check run is a job of.
const WorkflowPathPrefix = "dynamic/copilot-pull-request-reviewer"

// AgentsWorkflowPathPrefix is the newer path of that workflow,
// dynamic/agents/copilot-pull-request-reviewer (ENGINES.md round 3).
const AgentsWorkflowPathPrefix = "dynamic/agents/copilot-pull-request-reviewer"

// DynamicCheckName is the name of the dynamic workflow's check run
// (ENGINES.md round 3).
const DynamicCheckName = "copilot-pull-request-reviewer"

// inDynamicWorkflow reports whether a workflow path is Copilot's dynamic
// review workflow, under either path.
func inDynamicWorkflow(p string) bool {
	for _, pre := range []string{WorkflowPathPrefix, AgentsWorkflowPathPrefix} {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

// isCopilotCheck is a check run that hints at a Copilot review in
// progress. When GitHub names the check run's workflow, that decides:
// a job of Copilot's dynamic workflow, whatever its name, and never a job
// of the repository's own workflows (one may well be called "Agent").
// Otherwise by name: the job of app github-actions named "Agent" or
// "Copilot code review" ("Agent" only with that app: the name is generic).
func isCopilotCheck(cr github.CheckRun) bool {
	if strings.EqualFold(cr.Name, loop.GateName) {
		// MG2: review-loop's own check run, filed by GitHub into whatever
		// Actions suite the commit has, is never Copilot's.
		return false
	}
	if cr.WorkflowPath != "" {
		return strings.EqualFold(cr.AppSlug, "github-actions") && inDynamicWorkflow(cr.WorkflowPath)
	}
	switch {
	case strings.EqualFold(cr.Name, CheckRunName), strings.EqualFold(cr.Name, DynamicCheckName):
		return cr.AppSlug == "" || strings.EqualFold(cr.AppSlug, "github-actions")
	case strings.EqualFold(cr.Name, JobCheckName):
		return strings.EqualFold(cr.AppSlug, "github-actions")
	}
	return false
}

// Author matches Copilot by id and by both logins ("Copilot" on comments).
var Author = engines.Author{Logins: []string{ReviewerLogin, "Copilot"}, ID: BotID}

// Copilot is the Copilot code review adapter.
type Copilot struct{}

var _ engines.Engine = (*Copilot)(nil)

// New returns the Copilot adapter.
func New() *Copilot { return &Copilot{} }

// Name implements engines.Engine.
func (*Copilot) Name() string { return Name }

// EngineAuthor implements engines.Authored.
func (*Copilot) EngineAuthor() engines.Author { return Author }

// TriggerBody implements engines.Engine: Copilot is triggered by a review
// request, not a comment.
func (*Copilot) TriggerBody() string { return "" }

// Capabilities implements engines.Engine.
func (*Copilot) Capabilities() engines.Capabilities {
	return engines.Capabilities{
		Trigger:           engines.TriggerReviewer,
		AcceptsBotTrigger: true,
		Completion:        engines.CompletionReviewOnHead,
		CheckRunName:      CheckRunName,
		CheckRunApp:       "github-actions",
	}
}

// Observe implements engines.Engine.
func (*Copilot) Observe(obs *github.Observation, env engines.Env) loop.EngineView {
	// Its review of the head (or its dynamic workflow's run) is its
	// completion signal (S10, S11).
	v := loop.EngineView{Engine: Name, Installed: true, TriggerAvailable: true, Signal: loop.SignalNone, Material: loop.MaterialPending,
		CompletionSignal: true}

	reviews := engines.ReviewsBy(obs, Author)
	v.Reviews = engines.Refs(reviews, func(github.Review) bool { return true })
	var head *github.Review
	for i := range reviews {
		r := &reviews[i]
		v.Verdicts = append(v.Verdicts, loop.Verdict{ReviewID: r.DatabaseID, SHA: r.CommitSHA, Body: r.Body, Substantive: true, At: r.SubmittedAt})
		if r.CommitSHA == obs.HeadSHA {
			head = r
		}
	}
	if n := len(reviews); n > 0 {
		v.LatestReviewID, v.LatestSHA = reviews[n-1].DatabaseID, reviews[n-1].CommitSHA
		v.LowConfidence = ParseOverview(reviews[n-1].Body).LowConfidence
	}
	v.Findings = engines.ThreadFindings(obs, Name, Author, ParseComment)

	requested := false
	for _, l := range obs.RequestedReviewers {
		if engines.NormLogin(l) == ReviewerLogin {
			requested = true
		}
	}
	// The check run is only a RUNNING hint, never needed for DONE: one
	// that started before the head's review is the run that posted it.
	cr := engines.FindCheckRun(obs, isCopilotCheck)
	checkRunning := cr != nil && !strings.EqualFold(cr.Status, "COMPLETED") && (head == nil || cr.StartedAt.After(head.SubmittedAt))
	quotaCheck := cr != nil && strings.EqualFold(cr.Conclusion, "FAILURE") && inDynamicWorkflow(cr.WorkflowPath) &&
		(head == nil || head.SubmittedAt.Before(cr.StartedAt))
	switch {
	case quotaCheck:
		// T8: Copilot's quota stop can be only a failed check of its own
		// dynamic workflow, the words in the job log (ENGINES.md round 3),
		// whether or not GitHub still lists the review request. A
		// cooldown, not an error hand-back.
		v.Signal, v.SignalStartedAt, v.SignalID = loop.SignalDone, cr.StartedAt, cr.SignalID()
		text := fmt.Sprintf("check %q of Copilot's workflow %s failed without a review of the head (Copilot's quota stop; its words are in the job log)", cr.Name, cr.WorkflowPath)
		v.Material, v.MaterialNote = loop.MaterialQuota, text
		v.Quota = &loop.QuotaNotice{At: cmp.Or(cr.CompletedAt, cr.StartedAt), Text: text}
	case requested || checkRunning:
		v.Signal = loop.SignalRunning
		if checkRunning {
			v.SignalStartedAt, v.SignalID = cr.StartedAt, cr.SignalID()
		}
	case head != nil:
		v.Signal, v.SignalID = loop.SignalDone, head.DatabaseID
		v.VerdictSetProven = obs.Complete
		ov := ParseOverview(head.Body)
		rd := (&Copilot{}).Classify(engines.SurfaceReview, head.Body)
		v.Material = loop.MaterialOK
		switch {
		case rd.Quota:
			// T8: a COMMENTED review saying the requester reached their
			// quota is a cooldown, not a review (helm/helm#32229).
			text := engines.FirstLine(engines.StripHTMLComments(head.Body))
			v.Material, v.MaterialNote = loop.MaterialQuota, "Copilot: "+text
			v.Quota = &loop.QuotaNotice{At: head.SubmittedAt, Text: text}
		case ov.Kind == KindError:
			v.Material, v.MaterialNote = loop.MaterialErrored, "Copilot reported: "+ov.Note
		default:
			if ov.Note != "" {
				v.MaterialNote = ov.Note
			}
			v.Stated = statedCount(obs, head, ov)
			// S8: an overview of a recognised kind proves the review.
			if !engines.ProveBy(&v, rd, head.CommitSHA, head.DatabaseID, head.Body) && rd.Kind != PostPartialSuite && dynamic(cr) {
				// S10: Copilot's dynamic workflow run concluded success on
				// the head after the trigger, and its review is of the
				// head: finished, whatever the overview's layout.
				if engines.ProveByRun(&v, engines.CheckCompletion(cr, obs.HeadSHA, engines.Success), obs.HeadSHA, env.TriggeredAt(Name, obs.HeadSHA),
					[]engines.Bound{{Kind: engines.BoundReview, SHA: head.CommitSHA, ID: head.DatabaseID}}) {
					v.Unproven = ""
				}
			}
		}
	case cr != nil && engines.CheckErrored(cr) || cr != nil && strings.EqualFold(cr.Conclusion, "FAILURE"):
		v.Signal, v.SignalStartedAt, v.SignalID = loop.SignalDone, cr.StartedAt, cr.SignalID()
		v.Material = loop.MaterialErrored
		v.MaterialNote = fmt.Sprintf("check %q concluded %s without a review on the head commit", cr.Name, strings.ToLower(cr.Conclusion))
	}
	return v
}

// dynamic reports whether a check run is Copilot's completion signal
// (S10): the check run of its dynamic copilot-pull-request-reviewer
// workflow, by its workflow path, or by its name when GitHub names no
// workflow. A job merely named "Agent" is only a RUNNING hint.
func dynamic(cr *github.CheckRun) bool {
	if cr == nil || !strings.EqualFold(cr.AppSlug, "github-actions") && cr.AppSlug != "" {
		return false
	}
	if cr.WorkflowPath != "" {
		return inDynamicWorkflow(cr.WorkflowPath)
	}
	return strings.EqualFold(cr.Name, DynamicCheckName) || strings.EqualFold(cr.Name, CheckRunName)
}

// statedCount is S6 for Copilot's head review: the inline comments its
// body says it generated ("generated K comments", v2 "**Findings:** N")
// plus v2's "Previously missed (N)" findings, which have no thread. The
// low-confidence suppressed ones are not counted: they are never thread
// findings. A thread of that review resolved since (a won't-fix reply)
// was counted in the body and is not owed. Nil when the body states no
// count.
func statedCount(obs *github.Observation, head *github.Review, ov Overview) *loop.StatedCount {
	if ov.Comments < 0 {
		return nil
	}
	n := ov.Comments + ov.PreviouslyMissed
	src := fmt.Sprintf("review %d: %d inline comment(s) generated", head.DatabaseID, ov.Comments)
	if ov.PreviouslyMissed > 0 {
		src += fmt.Sprintf(", %d previously missed in the body", ov.PreviouslyMissed)
	}
	resolved := 0
	for _, t := range obs.Threads {
		if t.IsResolved && len(t.Comments) > 0 && t.Comments[0].ReviewDatabaseID == head.DatabaseID {
			resolved++
		}
	}
	if resolved > 0 {
		n = max(0, n-resolved)
		src += fmt.Sprintf(", less %d thread(s) resolved since", resolved)
	}
	return &loop.StatedCount{N: n, Source: src}
}

// Trigger implements engines.Engine: it requests a Copilot review, falling
// back to requested_reviewers when the dedicated route is missing (404) or
// refused (422). A review already pending (409) is not an error. The signal
// id is 0: the loop watches the latest review id instead (T1).
//
// API: POST /repos/{owner}/{repo}/pulls/{n}/copilot-code-review (409 when
// pending); POST /repos/{owner}/{repo}/pulls/{n}/requested_reviewers with
// exactly "copilot-pull-request-reviewer[bot]".
func (*Copilot) Trigger(ctx context.Context, gh engines.GitHub, pr engines.PRRef) (int64, error) {
	err := gh.RequestCopilotReview(ctx, pr.Owner, pr.Repo, pr.Number)
	if q := QuotaRefusal(err); q != nil {
		return 0, q
	}
	switch s := status(err); {
	case err == nil || s == http.StatusConflict:
		return 0, nil
	case s == http.StatusNotFound || s == http.StatusUnprocessableEntity:
		err2 := gh.RequestReviewers(ctx, pr.Owner, pr.Repo, pr.Number, []string{ReviewerRESTLogin})
		if err2 == nil || status(err2) == http.StatusConflict {
			return 0, nil
		}
		return 0, &engines.EngineError{Engine: Name, Op: "trigger", Err: fmt.Errorf("requesting review: %w (fallback requested_reviewers: %w)", err, err2)}
	default:
		return 0, &engines.EngineError{Engine: Name, Op: "trigger", Err: err}
	}
}

var quotaRE = engines.BuiltinText(Name, "check-quota")

// QuotaRefusal reads a refused Copilot review request as a quota stop
// (T8): 429, or 422/403 whose message names a quota or rate limit. The
// exact wording GitHub uses is unconfirmed (ENGINES.md), so any 429 counts
// and the 422 fallback to requested_reviewers is kept for other reasons.
func QuotaRefusal(err error) *engines.QuotaError {
	var e *github.APIError
	if !errors.As(err, &e) {
		return nil
	}
	switch {
	case e.Status == http.StatusTooManyRequests:
	case (e.Status == http.StatusUnprocessableEntity || e.Status == http.StatusForbidden) && quotaRE.MatchString(e.Message):
	default:
		return nil
	}
	text := e.Message
	if text == "" {
		text = http.StatusText(e.Status)
	}
	return &engines.QuotaError{Engine: Name, Wait: e.RetryAfter, Text: fmt.Sprintf("review request refused (%d): %s", e.Status, text)}
}

func status(err error) int {
	var e *github.APIError
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// Kind is the shape of a Copilot review body.
type Kind string

// Review body shapes.
const (
	KindClassic Kind = "classic" // "## Pull request overview" … "generated K comments"
	KindV2      Kind = "v2"      // "<!-- ccr-overview-v2 -->" with "**Findings:**"
	KindDetails Kind = "details" // 2026-09: a verdict heading and "Review details" with "**Comments generated:** N"
	KindError   Kind = "error"   // Copilot could not review
	KindUnknown Kind = "unknown"
)

// Overview is what a Copilot review body says.
type Overview struct {
	Kind Kind
	// Comments is the announced number of inline comments (classic
	// "generated K comments", v2 "**Findings:**"); -1 when not stated.
	Comments int
	// LowConfidence counts findings suppressed into the body.
	LowConfidence int
	// PreviouslyMissed counts v2's "Previously missed (N)" findings: real
	// findings that live only in the body (ENGINES.md round 2).
	PreviouslyMissed int
	Note             string
}

var (
	errorRE     = engines.BuiltinText(Name, PostError)
	partialRE   = engines.BuiltinText(Name, PostPartialSuite)
	generatedRE = regexp.MustCompile(`(?i)generated\s+(\d+|no)\s+(?:new\s+)?comments?`)
	suppressRE  = regexp.MustCompile(`(?i)Comments suppressed due to low confidence\s*\((\d+)\)`)
	findingsRE  = engines.BuiltinText(Name, PostOverviewV2)
	missedRE    = regexp.MustCompile(`(?i)Previously missed\s*\((\d{1,6})\)`)
	overviewRE  = regexp.MustCompile(`(?i)#+\s*(?:pull request overview|copilot review overview)`)
	// The 2026-09 layout's counts, in its "Review details" list
	// (copilot/16-…): "**Comments generated:** 0" (or "0 new").
	generated2RE = regexp.MustCompile(`(?i)\*\*Comments generated:\*\*\s*(\d{1,6})`)
	detailsRE    = regexp.MustCompile(`(?i)<summary>\s*Review details\s*</summary>`)
)

// ParseOverview reads a Copilot review body by its markers.
func ParseOverview(body string) Overview {
	o := Overview{Kind: KindUnknown, Comments: -1}
	if m := suppressRE.FindStringSubmatch(body); m != nil {
		o.LowConfidence, _ = strconv.Atoi(m[1])
	}
	if m := missedRE.FindStringSubmatch(body); m != nil {
		o.PreviouslyMissed = atoiOrZero(m[1])
	}
	switch {
	case errorRE.MatchString(body):
		o.Kind = KindError
		o.Note = strings.TrimSpace(errorRE.FindString(body))
		return o
	case strings.Contains(body, "<!-- ccr-overview-v2 -->"):
		o.Kind = KindV2
		if m := findingsRE.FindStringSubmatch(body); m != nil {
			o.Comments = atoiOrZero(m[1])
		}
	case overviewRE.MatchString(body) || generatedRE.MatchString(body):
		o.Kind = KindClassic
	case detailsRE.MatchString(body) && generated2RE.MatchString(body):
		o.Kind = KindDetails
	}
	if m := generated2RE.FindStringSubmatch(body); m != nil && o.Comments < 0 {
		o.Comments = atoiOrZero(m[1])
	}
	if m := generatedRE.FindStringSubmatch(body); m != nil && o.Comments < 0 {
		o.Comments = atoiOrZero(m[1])
	}
	if partialRE.MatchString(body) {
		o.Note = "Copilot was unable to run its full agentic suite in this review"
	}
	return o
}

func atoiOrZero(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// severityMarkers are the "P0:"–"P3:" priorities an inline comment may
// open with, and where each lands on the one scale (EQ3's clean-at
// floor): data, in engines/defs/copilot.yaml.
var severityMarkers = engines.BuiltinSeverity(Name)

// ParseComment reads a Copilot inline comment: plain prose with an optional
// suggestion block, which is kept in the body. There is no severity marker,
// except an occasional priority (severityMarkers).
func ParseComment(body string) engines.Parsed {
	p := engines.Parsed{Title: engines.Title(body), Body: body}
	p.Severity, _ = severityMarkers.Read(body)
	return p
}
