package engines

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/markdown"
)

// Author identifies an engine's bot account. Logins are compared
// case-insensitively with any "[bot]" suffix removed, so GraphQL
// ("cursor") and REST ("cursor[bot]") spellings both match.
//
// IN7: an author is the engine only if it is a bot (GraphQL __typename Bot,
// REST type Bot) and, where both ids are known, its id is ID. GraphQL bot
// logins carry no "[bot]" suffix, so a login alone cannot tell the Copilot
// bot from a user account named Copilot; a matching id is enough on its
// own (Copilot's bot is "Copilot" over REST and
// "copilot-pull-request-reviewer" over GraphQL, one id).
type Author struct {
	Logins []string
	ID     int64
	// AllowUsers lets non-bot accounts be the engine (a declarative engine
	// that posts through a user account opts in explicitly); the id, when
	// known on both sides, must still match.
	AllowUsers bool
	// Others are further identities the engine posts as, each matched on
	// its own terms (Claude posting through a workflow's github_token).
	Others []Author
}

// NormLogin lower-cases a login and drops a "[bot]" suffix.
func NormLogin(login string) string {
	l := strings.ToLower(strings.TrimSpace(login))
	return strings.TrimSuffix(l, "[bot]")
}

// Match reports whether the actor is this author, or one of its Others (IN7).
func (a Author) Match(actor github.Actor) bool {
	for _, o := range a.Others {
		if o.Match(actor) {
			return true
		}
	}
	if !actor.IsBot && !a.AllowUsers {
		return false
	}
	if a.ID != 0 && actor.DatabaseID != 0 {
		return actor.DatabaseID == a.ID
	}
	l := NormLogin(actor.Login)
	if l == "" {
		return false
	}
	for _, want := range a.Logins {
		if NormLogin(want) == l {
			return true
		}
	}
	return false
}

// Parsed is what an engine's body parser reads from one finding comment.
type Parsed struct {
	Title     string
	Body      string
	Severity  loop.Severity
	Key       string
	Category  string
	Locations []string
}

// ThreadFindings returns one finding per unresolved thread whose root
// comment is by author, identified by the root comment's id (so a finding
// that moved lines keeps its ID, ST3) and carrying the review id and commit
// of the review that submitted it (ST1/ST2 inputs).
func ThreadFindings(obs *github.Observation, engine string, author Author, parse func(string) Parsed) []loop.Finding {
	reviewSHA := make(map[int64]string, len(obs.Reviews))
	for _, r := range obs.Reviews {
		reviewSHA[r.DatabaseID] = r.CommitSHA
	}
	var out []loop.Finding
	for _, t := range obs.Threads {
		if t.IsResolved || len(t.Comments) == 0 {
			continue
		}
		root := t.Comments[0]
		if !author.Match(root.Author) {
			continue
		}
		p := parse(root.Body)
		if p.Severity == "" {
			p.Severity = loop.SeverityUnknown
		}
		sha := reviewSHA[root.ReviewDatabaseID]
		if sha == "" {
			sha = cmp.Or(root.OriginalCommitSHA, root.CommitSHA)
		}
		locs := p.Locations
		if len(locs) == 0 && t.Path != "" {
			locs = []string{t.Path}
		}
		out = append(out, loop.Finding{
			ID:             FindingID(engine, root.DatabaseID),
			Engine:         engine,
			CommentID:      root.DatabaseID,
			ReviewID:       root.ReviewDatabaseID,
			ReviewSHA:      sha,
			ThreadID:       t.NodeID,
			Path:           t.Path,
			Line:           t.Line,
			StartLine:      t.StartLine,
			OriginalCommit: root.OriginalCommitSHA,
			OriginalLine:   t.OriginalLine,
			Outdated:       t.IsOutdated,
			Title:          p.Title,
			Body:           p.Body,
			Severity:       p.Severity,
			Key:            p.Key,
			Category:       p.Category,
			Locations:      locs,
		})
	}
	return out
}

// FindingID is the stable id shown to maintainers: engine and root comment id.
func FindingID(engine string, commentID int64) string {
	return fmt.Sprintf("%s-%d", engine, commentID)
}

// ReviewsBy returns the author's visible reviews, oldest first (ties by
// id). A minimized (hidden) review is left out (S8): every adapter reads
// its proof, its latest review and its verdicts from these, so a review
// the engine hid (Bugbot hides its earlier reviews on rerun) is never
// proof of a finished review nor the engine's latest review.
func ReviewsBy(obs *github.Observation, author Author) []github.Review {
	var out []github.Review
	for _, r := range obs.Reviews {
		if author.Match(r.Author) && r.State != "PENDING" && !r.IsMinimized {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b github.Review) int {
		if c := a.SubmittedAt.Compare(b.SubmittedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.DatabaseID, b.DatabaseID)
	})
	return out
}

// IssueCommentsBy returns the author's PR conversation comments, oldest first.
func IssueCommentsBy(obs *github.Observation, author Author) []github.IssueComment {
	var out []github.IssueComment
	for _, c := range obs.IssueComments {
		if author.Match(c.Author) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b github.IssueComment) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.DatabaseID, b.DatabaseID)
	})
	return out
}

// Refs turns reviews into staleness references; substantive says which
// review bodies carry a verdict.
func Refs(reviews []github.Review, substantive func(github.Review) bool) []loop.ReviewRef {
	out := make([]loop.ReviewRef, 0, len(reviews))
	for _, r := range reviews {
		out = append(out, loop.ReviewRef{ID: r.DatabaseID, SHA: r.CommitSHA, Substantive: substantive(r), At: r.SubmittedAt})
	}
	return out
}

// FindCheckRun returns the most recently started check run on the head
// whose name matches (case-insensitively) and, when app is not empty, whose
// app slug is app.
func FindCheckRun(obs *github.Observation, match func(github.CheckRun) bool) *github.CheckRun {
	var best *github.CheckRun
	for i := range obs.CheckRuns {
		cr := &obs.CheckRuns[i]
		if IsGate(*cr) || !match(*cr) {
			continue
		}
		if best == nil || cr.StartedAt.After(best.StartedAt) || (cr.StartedAt.Equal(best.StartedAt) && cr.SignalID() > best.SignalID()) {
			best = cr
		}
	}
	return best
}

// IsGate reports whether a check run is review-loop's own merge gate,
// which GitHub may file into any Actions check suite of the commit, an
// engine's workflow suite included: it is never an engine's signal (MG2).
func IsGate(cr github.CheckRun) bool {
	return strings.EqualFold(strings.TrimSpace(cr.Name), loop.GateName)
}

// NamedCheck matches a check run by exact name (case-insensitive) and, when
// app is not empty, by app slug.
func NamedCheck(name, app string) func(github.CheckRun) bool {
	return func(cr github.CheckRun) bool {
		return strings.EqualFold(cr.Name, name) && (app == "" || strings.EqualFold(cr.AppSlug, app))
	}
}

// CheckSignal reads a check run's status as a completion signal. A nil check
// run is SignalNone. The conclusion is deliberately ignored (S2). The id is
// the check run's SignalID: GraphQL answers databaseId null for ids of 2^31
// and above.
func CheckSignal(cr *github.CheckRun) (loop.Signal, time.Time, int64) {
	if cr == nil {
		return loop.SignalNone, time.Time{}, 0
	}
	if strings.EqualFold(cr.Status, "COMPLETED") {
		return loop.SignalDone, cr.StartedAt, cr.SignalID()
	}
	return loop.SignalRunning, cr.StartedAt, cr.SignalID()
}

// CheckErrored reports whether a completed check run's conclusion says the
// engine itself failed (cancelled, timed out, stale, startup failure) as
// opposed to a verdict.
func CheckErrored(cr *github.CheckRun) bool {
	if cr == nil || !strings.EqualFold(cr.Status, "COMPLETED") {
		return false
	}
	switch strings.ToUpper(cr.Conclusion) {
	case "CANCELLED", "TIMED_OUT", "STALE", "STARTUP_FAILURE":
		return true
	}
	return false
}

var htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// StripHTMLComments removes hidden HTML comments from a body.
func StripHTMLComments(s string) string { return htmlComment.ReplaceAllString(s, "") }

// Suggestions returns the contents of every ```suggestion block in body, in
// order, read as GitHub renders the body (rule TB4): never a block nested
// in another code block, an HTML comment, an indented code block or a
// block quote. An unterminated block runs to the end of its container.
func Suggestions(body string) []string {
	var out []string
	for _, f := range markdown.Fences(body) {
		if words := strings.Fields(f.Info); len(words) == 0 || words[0] != "suggestion" {
			continue
		}
		out = append(out, strings.Join(f.Lines, "\n"))
	}
	return out
}

// FirstLine returns the first non-empty line of s, trimmed.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// Title returns a short title for a prose finding: its first prose line
// without markdown emphasis, cut at 120 runes.
func Title(body string) string {
	for _, l := range strings.Split(StripHTMLComments(body), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "![") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "<") {
			continue
		}
		t = strings.Trim(t, "*_# ")
		if r := []rune(t); len(r) > 120 {
			t = string(r[:120]) + "…"
		}
		return t
	}
	return ""
}
