// Package engines is the contract between the review loop and the AI review
// engines it drives: what an adapter reads from the shared observation, what
// it reports, and how it triggers a review. Each engine lives in its own
// package (bugbot, copilot, claude) or is declared in YAML (declarative).
package engines

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// TriggerKind is how an engine is asked for a review.
type TriggerKind string

// Trigger kinds.
const (
	TriggerComment  TriggerKind = "comment"  // a PR comment such as "bugbot run"
	TriggerReviewer TriggerKind = "reviewer" // a review request (Copilot)
	TriggerPushOnly TriggerKind = "push"     // only a push starts a review
)

// CompletionKind is how an engine signals that its review of a commit is done.
type CompletionKind string

// Completion kinds.
const (
	CompletionCheckRun     CompletionKind = "check-run"      // a check run by name and app
	CompletionReviewOnHead CompletionKind = "review-on-head" // a review whose commit is the head SHA
	CompletionWorkflowRun  CompletionKind = "workflow-run"   // a GitHub Actions job check run
)

// Capabilities describe how an engine behaves on GitHub; the loop and the
// report read them, and they never change during a run.
type Capabilities struct {
	Trigger TriggerKind
	// AcceptsBotTrigger is false when the engine ignores a trigger posted by
	// a bot or app identity (Bugbot, the Claude workflow): it then needs a
	// user token.
	AcceptsBotTrigger bool
	// Prose is true when the verdict surface is prose only (judge needed, J1).
	Prose bool
	// MultiVerdict is true when several substantive verdicts per SHA are
	// possible (ST2); false means latest review wins (ST1).
	MultiVerdict bool
	// Incremental is true for engines that do not re-post still-present
	// findings in each review (Bugbot, CodeRabbit): their unresolved
	// threads stay active until resolved (ST5). False means the engine
	// re-posts every finding and its latest review wins (ST1).
	Incremental  bool
	Completion   CompletionKind
	CheckRunName string // for CompletionCheckRun (and the workflow job name)
	CheckRunApp  string // app slug of the check run, "" when any app
}

// WorkflowFile is one file of the repository's .github/workflows directory.
type WorkflowFile struct {
	Path    string // e.g. ".github/workflows/claude-code-review.yml"
	Content string
}

// Env is what an adapter may know besides the observation. It is read once
// per cycle by the caller; adapters never read the process environment.
type Env struct {
	// HasTriggerToken is true when a user token for trigger comments was given.
	HasTriggerToken bool
	// WorkflowFiles are the contents of .github/workflows on the default
	// branch, read with the observation itself; nil means unknown.
	WorkflowFiles []WorkflowFile
	// ChangedFiles are the paths the PR changes; nil means unknown.
	ChangedFiles []string
	// Now is the cycle's clock reading.
	Now time.Time
	// Triggers are the loop's last trigger per engine, from its state
	// (absent when the loop never triggered the engine).
	Triggers map[string]Trigger
	// Texts are the phrases the repository's config adds to each engine's
	// words (S12), read on the engine's own posts after its adapter.
	Texts map[string][]TextPattern
	// Severities are the severity words the repository's config adds to
	// each engine's mapping (EQ3), read on the engine's findings after
	// its adapter.
	Severities map[string]SeverityMarkers
}

// PRRef names the pull request a trigger targets.
type PRRef struct {
	Owner  string
	Repo   string
	Number int
	// UserToken is true when the GitHub handle passed along with this
	// reference was built with a user (trigger) token rather than the
	// workflow's GITHUB_TOKEN.
	UserToken bool
}

// GitHub is the set of writes a trigger needs; internal/github.Client
// implements exactly these.
type GitHub interface {
	CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (github.IssueComment, error)
	RequestCopilotReview(ctx context.Context, owner, repo string, number int) error
	RequestReviewers(ctx context.Context, owner, repo string, number int, logins []string) error
}

// Engine is one review engine's adapter.
//
// Observe must be pure: it reads only its arguments, never calls GitHub, and
// never panics on any body text. It reports every open finding of the engine
// (across reviews and SHAs, each with its ReviewID and ReviewSHA) and leaves
// staleness (ST1/ST2) and the state machine to the loop. Anything it cannot
// read is reported as unknown or not proven, never as clean.
type Engine interface {
	// Name is the engine's stable lower-case name ("bugbot").
	Name() string
	// Capabilities describe how the engine behaves.
	Capabilities() Capabilities
	// Observe reads the engine's view of the PR from the shared observation.
	Observe(obs *github.Observation, env Env) loop.EngineView
	// Trigger asks the engine for a review of the PR's head and returns the
	// signal id (the trigger comment's id; 0 for reviewer requests). gh is
	// built with the trigger token when the engine needs a user token.
	Trigger(ctx context.Context, gh GitHub, pr PRRef) (signalID int64, err error)
	// TriggerBody is the exact trigger comment text, for T5 idempotency; ""
	// for reviewer-request engines.
	TriggerBody() string
}

// Installer is implemented by engines that can tell from the observation and
// environment whether they are installed on the repository (IN2). Engines
// without it are assumed installed.
type Installer interface {
	Installed(obs *github.Observation, env Env) (ok bool, reason string)
}

// ErrTriggerUnavailable means the engine cannot be triggered with the tokens
// at hand (for example a comment trigger that the engine ignores from bots
// and no user token was given). The loop relies on the engine's automatic
// run instead and reports it.
var ErrTriggerUnavailable = errors.New("trigger unavailable")

// EngineError is a failure of one engine operation.
type EngineError struct {
	Engine string
	Op     string // "trigger", "observe", ...
	Err    error
}

// Error implements error.
func (e *EngineError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Engine, e.Op, e.Err)
}

// Unwrap returns the underlying error.
func (e *EngineError) Unwrap() error { return e.Err }
