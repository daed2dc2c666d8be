package engines

import (
	"path"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/github"
)

// Trigger is the loop's last trigger of one engine, as its state records it.
type Trigger struct {
	SHA string    // the head SHA the trigger was for
	At  time.Time // when the loop recorded it (the cycle's clock)
	// CommentID is the trigger comment's id; 0 for reviewer requests.
	CommentID int64
}

// RunQuery asks the cycle to read the runs of one workflow file started by
// Event and created at or after Since into Observation.WorkflowRuns.
type RunQuery struct {
	File  string // the workflow file's path, ".github/workflows/claude.yml"
	Event string // "issue_comment"
	Since time.Time
}

// RunWatcher is implemented by engines whose run for the head SHA may hang
// off no commit of the PR, so that no check run of the observation shows
// it: a workflow started by an issue comment runs from the default branch
// (Claude triggered by "@claude review once"). WorkflowRunQueries is pure,
// like Observe: it says which runs the cycle must read, and returns none
// when the observation already shows the engine's run, so an idle wake
// costs no request.
type RunWatcher interface {
	WorkflowRunQueries(obs *github.Observation, env Env) []RunQuery
}

// Matches reports whether a workflow run answers the query: the same
// workflow file (by path, or by base name when one side has no
// directory), the same event, created at or after Since.
func (q RunQuery) Matches(r github.WorkflowRun) bool {
	return SameWorkflowFile(q.File, r.Path) && r.Event == q.Event && !r.CreatedAt.Before(q.Since)
}

// SameWorkflowFile compares two workflow paths; a bare file name matches
// any path with that base name.
func SameWorkflowFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	a, b = path.Clean(a), path.Clean(b)
	if a == b {
		return true
	}
	return (!strings.Contains(a, "/") || !strings.Contains(b, "/")) && path.Base(a) == path.Base(b)
}
