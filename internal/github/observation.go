package github

import (
	"hash/fnv"
	"time"
)

// Observation is everything one cycle reads about a pull request, gathered
// by one GraphQL query (plus pages). Engine adapters read it; nothing else
// calls the API to observe.
type Observation struct {
	Owner         string
	Repo          string
	Number        int
	NodeID        string // the PR's GraphQL node id (for mutations)
	URL           string
	Title         string
	State         string // OPEN, CLOSED or MERGED
	IsDraft       bool
	Author        Actor
	HeadSHA       string
	HeadRef       string
	BaseRef       string
	BaseSHA       string // the base branch's head commit (baseRefOid)
	HeadRepo      string // owner/name of the head repository
	IsFork        bool   // head repository differs from the base repository
	DefaultBranch string
	Commits       int // total commits on the PR (H7)
	Additions     int
	Deletions     int
	ChangedFiles  int
	// DiffChars is the size of the PR's diff in characters (CV6). Observe
	// leaves it nil; the cycle fills it only when an engine's character
	// limit needs it (observe.ChangedChars), once per cycle.
	DiffChars *int

	Reviews   []Review
	Threads   []Thread
	CheckRuns []CheckRun // check runs on the head commit
	// Statuses are the commit statuses on the head commit, the newest of
	// each context (CodeRabbit may report its review as one, S10).
	Statuses           []CommitStatus
	IssueComments      []IssueComment
	RequestedReviewers []string // logins as GraphQL spells them (no [bot] suffix)

	// WorkflowFiles are the default branch's .github/workflows files (empty
	// when there are none), read in the same query.
	WorkflowFiles []File
	// Config is the default branch's config file (Options.ConfigFile), nil
	// when there is none: read in the same query.
	Config *File

	// EngineConfigFiles are the paths of EngineConfigPaths present on the
	// default branch, read in the same query (IN2's evidence).
	EngineConfigFiles []string

	// WorkflowRuns are workflow runs an engine's completion depends on that
	// hang off no commit of the PR (Claude's comment-triggered runs on the
	// default branch's head). Observe leaves it empty; the cycle fills it
	// only when an engine asks (engines.RunWatcher), so an idle wake
	// costs no request.
	WorkflowRuns []WorkflowRun

	// Labels are the PR's label names (the sweep finds live loops by one).
	Labels []string

	// ViewerLogin is the login of the token's identity (GraphQL viewer),
	// used to recognise our own state comment and trigger comments.
	ViewerLogin string
	// DriverLogins are the identities of the loop's other driver whose
	// status comment this run adopted (LW1: `review-loop watch` writes
	// as the user, the Action as its bot): what they post is the loop's
	// own, never a person's act (HY1).
	DriverLogins []string

	// Complete is true when every page of every connection was read.
	Complete bool
	// ReviewsComplete and IssueCommentsComplete say that every review and
	// every issue comment was read (SC3: the state comment is among the
	// issue comments; when they are incomplete, a state that was not found
	// may be in a page that was not read).
	ReviewsComplete       bool
	IssueCommentsComplete bool
}

// EngineConfigPaths are the engines' own configuration files and folders
// the observation looks for on the default branch: CodeRabbit's
// .coderabbit.yaml (or .yml) and Gemini Code Assist's .gemini folder.
var EngineConfigPaths = []string{".coderabbit.yaml", ".coderabbit.yml", ".gemini"}

// Actor is the author of a review, comment or check run. Login is as
// GraphQL spells it: bots carry no "[bot]" suffix (cursor, not cursor[bot]).
type Actor struct {
	Login      string
	DatabaseID int64 // 0 when GitHub did not say
	IsBot      bool
}

// Review is one pull request review.
type Review struct {
	NodeID      string
	DatabaseID  int64
	Author      Actor
	CommitSHA   string
	State       string // COMMENTED, APPROVED, CHANGES_REQUESTED, DISMISSED, PENDING
	Body        string
	SubmittedAt time.Time
	// IsMinimized is true when the review is hidden (minimized) on the
	// pull request, as Bugbot hides its earlier reviews on rerun: it is
	// never proof of a finished review (S8).
	IsMinimized bool
}

// Thread is one review thread, grouped by GitHub (not by review id).
type Thread struct {
	NodeID       string
	IsResolved   bool
	IsOutdated   bool
	Path         string
	Line         int // 0 when outdated (REST line: null)
	StartLine    int
	OriginalLine int
	Comments     []ReviewComment // the root comment first
}

// ReviewComment is one comment of a review thread.
type ReviewComment struct {
	NodeID            string
	DatabaseID        int64
	Author            Actor
	Body              string
	CreatedAt         time.Time
	ReviewDatabaseID  int64 // the review that submitted this comment
	CommitSHA         string
	OriginalCommitSHA string
}

// CheckRun is one check run on the head commit.
type CheckRun struct {
	// DatabaseID is the REST id, 0 when GraphQL answered null: CheckRun's
	// databaseId is an Int and is null for ids of 2^31 and above (every
	// check run GitHub creates today), and CheckRun has no fullDatabaseId.
	// Compare check runs with SignalID, never with DatabaseID.
	DatabaseID int64
	// NodeID is the GraphQL node id, always present.
	NodeID     string
	Name       string
	Status     string // QUEUED, IN_PROGRESS, COMPLETED, WAITING, PENDING, REQUESTED
	Conclusion string // SUCCESS, NEUTRAL, FAILURE, CANCELLED, SKIPPED, TIMED_OUT, ACTION_REQUIRED, STALE, "" while running
	AppSlug    string // "cursor", "github-actions", ...
	// WorkflowPath is the workflow file of the Actions run this check run
	// is a job of ("" for other apps, or when GitHub does not say).
	WorkflowPath string
	StartedAt    time.Time
	CompletedAt  time.Time
	Title        string
	Summary      string
	Text         string
}

// CommitStatus is one commit status on the head commit (GraphQL
// StatusContext).
type CommitStatus struct {
	NodeID      string
	Context     string
	State       string // ERROR, EXPECTED, FAILURE, PENDING, SUCCESS
	Description string
	Creator     Actor
	CreatedAt   time.Time
}

// IssueComment is one top-level PR conversation comment.
type IssueComment struct {
	NodeID            string
	DatabaseID        int64
	Author            Actor
	AuthorAssociation string // OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...
	Body              string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// derivedIDBase marks a signal id derived from a node id: real REST ids are
// far below 2^62, so a derived id never equals one.
const derivedIDBase = int64(1) << 62

// SignalID is the check run's id for state, signals and fingerprints: its
// REST id when GraphQL gave one, else a stable id derived from the node id
// (FNV-1a 64 of the node id, folded into [2^62, 2^63)). The same check run
// always yields the same id; a re-run (a new check run) yields another. It
// is an identifier only, never an argument to a REST call. 0 when the check
// run has neither id.
func (c CheckRun) SignalID() int64 {
	if c.DatabaseID != 0 {
		return c.DatabaseID
	}
	if c.NodeID == "" {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(c.NodeID))
	return derivedIDBase | int64(h.Sum64()&uint64(derivedIDBase-1))
}
