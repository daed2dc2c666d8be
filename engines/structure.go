package engines

import (
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// Completion is an engine's own completion signal for one review run
// (S10): a check run, commit status or Actions workflow run that
// completes when the engine's review of a commit completes.
type Completion struct {
	// Source names the signal for the proof's kind ("check", "workflow-run").
	Source string
	// SHA is the commit the run reviewed: the check run's commit, or the
	// PR head a comment-started workflow run answered.
	SHA string
	// Done is true once the signal completed.
	Done bool
	// OK is true when it concluded successfully, in the engine's own
	// terms (success; the managed Claude check always concludes neutral).
	OK bool
	// StartedAt and CompletedAt are GitHub's (whole-second) times.
	StartedAt   time.Time
	CompletedAt time.Time
	ID          int64
}

// Bound is output an engine left bound to one commit (S10).
type Bound struct {
	// Kind says how it is bound: BoundReview, BoundSummary, BoundPost.
	Kind string
	// SHA is the commit it is bound to.
	SHA string
	// ID is the review, comment or check run carrying it.
	ID int64
}

// Kinds of head-bound output (S10).
const (
	// BoundReview is a review whose commit_id is the commit.
	BoundReview = "review-on-head"
	// BoundSummary is a summary that names the commit's full SHA
	// (CodeRabbit's "between <a> and <head>", its coverage marker), or
	// the output of a check run filed on that very commit.
	BoundSummary = "summary-names-head"
	// BoundPost is a post the engine made during the run.
	BoundPost = "post-during-run"
)

// StructureKindPrefix starts the kind of every proof by structure, so
// that the status comment and the S9 table tell it from an allow-listed
// kind of post.
const StructureKindPrefix = "finished-run:"

// CheckCompletion reads a check run on the head as a completion signal.
// ok decides which conclusions are a successful finish for this engine.
func CheckCompletion(cr *github.CheckRun, sha string, ok func(conclusion string) bool) Completion {
	if cr == nil {
		return Completion{}
	}
	done := strings.EqualFold(cr.Status, "COMPLETED")
	return Completion{Source: "check", SHA: sha, Done: done, OK: done && ok(strings.ToUpper(cr.Conclusion)),
		StartedAt: cr.StartedAt, CompletedAt: cr.CompletedAt, ID: cr.SignalID()}
}

// Success is the usual successful conclusion.
func Success(conclusion string) bool { return conclusion == "SUCCESS" }

// TriggeredAt is the loop's last trigger of the engine for head, zero
// when the loop did not trigger it for head.
func (e Env) TriggeredAt(engine, head string) time.Time {
	if t, ok := e.Triggers[engine]; ok && t.SHA == head {
		return t.At
	}
	return time.Time{}
}

// FinishedRun is rule S10, proof by structure: an engine whose own
// completion signal concluded successfully for the head, at or after the
// loop's last trigger for it (compared at GitHub's whole-second
// resolution), and that left output bound to the head, has finished
// reviewing the head. Its wording plays no part: the adapter calls this
// only once no exception (quota, error, skip, pause, in progress,
// placeholder, refusal) was read, and exceptions always win. It returns
// the proof, nil when there is none.
func FinishedRun(c Completion, head string, trigger time.Time, out []Bound) *loop.Proof {
	if head == "" || c.SHA != head || !c.Done || !c.OK {
		return nil
	}
	at := c.CompletedAt
	if at.IsZero() {
		at = c.StartedAt
	}
	if at.IsZero() || !loop.NotBeforeOurs(at, trigger) {
		return nil
	}
	for _, b := range out {
		if b.SHA == head && b.Kind != "" {
			return &loop.Proof{Kind: StructureKindPrefix + c.Source + "+" + b.Kind, SHA: head, ID: b.ID}
		}
	}
	return nil
}

// ProveByRun sets v.Proof from FinishedRun when the view has no proof of
// the head yet; it reports whether the head is proven now.
func ProveByRun(v *loop.EngineView, c Completion, head string, trigger time.Time, out []Bound) bool {
	if loop.Proven(*v, head) {
		return true
	}
	if p := FinishedRun(c, head, trigger, out); p != nil {
		v.Proof = p
		return true
	}
	return false
}

// During reports whether a GitHub time t falls within the run c, at
// whole-second resolution: not before it started and, once it completed,
// not after it completed.
func During(c Completion, t time.Time) bool {
	if t.IsZero() || c.StartedAt.IsZero() || loop.AtSecond(t).Before(loop.AtSecond(c.StartedAt)) {
		return false
	}
	return c.CompletedAt.IsZero() || !loop.AtSecond(t).After(loop.AtSecond(c.CompletedAt))
}

// StatusCheck returns the head's newest commit status named context and
// created by author, read as a check run (nil when there is none): an
// engine may report its review as a commit status rather than a check
// run (CodeRabbit's "CodeRabbit" status, ENGINES.md). PENDING and
// EXPECTED are a run in progress; SUCCESS, FAILURE and ERROR complete
// it; the description stands for the check's title and summary, and the
// status's creation time for both its start and its completion.
func StatusCheck(obs *github.Observation, context string, author Author) *github.CheckRun {
	var best *github.CommitStatus
	for i := range obs.Statuses {
		s := &obs.Statuses[i]
		if !strings.EqualFold(strings.TrimSpace(s.Context), context) || !author.Match(s.Creator) {
			continue
		}
		if best == nil || !s.CreatedAt.Before(best.CreatedAt) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	cr := &github.CheckRun{NodeID: best.NodeID, Name: best.Context, AppSlug: NormLogin(best.Creator.Login),
		Title: best.Description, Summary: best.Description, StartedAt: best.CreatedAt}
	switch strings.ToUpper(best.State) {
	case "SUCCESS":
		cr.Status, cr.Conclusion, cr.CompletedAt = "COMPLETED", "SUCCESS", best.CreatedAt
	case "FAILURE", "ERROR":
		cr.Status, cr.Conclusion, cr.CompletedAt = "COMPLETED", "FAILURE", best.CreatedAt
	default:
		cr.Status = "IN_PROGRESS"
	}
	return cr
}
