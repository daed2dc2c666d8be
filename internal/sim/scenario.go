// Package sim simulates the AI review engines on the fake GitHub
// (internal/ghfake) in virtual time, and loads the YAML scenarios in
// testdata/scenarios that script them. A scenario runner delivers the
// webhook events the bots raise, runs a review-loop cycle, advances the
// clock, and finally compares what happened with the scenario's expectation.
package sim

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// Scenario is one scripted run of the review loop.
type Scenario struct {
	Name        string       `yaml:"name"`
	Description string       `yaml:"description"`
	Rules       []string     `yaml:"rules"`
	Start       time.Time    `yaml:"start"` // virtual start time; default DefaultStart
	Tick        Duration     `yaml:"tick"`  // how far the runner advances the clock per step; default 1m
	Repository  Repository   `yaml:"repository"`
	PR          PR           `yaml:"pr"`
	Tokens      TokenOptions `yaml:"tokens"`
	// Inputs are the action's inputs. A scenario's test-command is
	// `gofmt -e -l {packages}`: a real child process over the changed
	// packages that exits 2 when a fix leaves a file that does not parse
	// (e1-fix-that-does-not-parse-is-reverted), at a twentieth of a
	// `go build`'s CPU. A scenario whose point needs more keeps a real
	// one: `go test {packages}` where a fix must fail a test, `go build
	// {packages}` where it must fail to compile. See internal/scenario's
	// package comment.
	Inputs   map[string]string `yaml:"inputs"`
	Engines  map[string]Engine `yaml:"engines"`
	Events   []ScriptedEvent   `yaml:"events"`
	MaxSteps int               `yaml:"max_steps"`
	// FirstWake is how the run begins: "dispatch" (default), a maintainer
	// dispatching the workflow for the PR, or "none", only the engines'
	// own events and the scripted events (start-on: command).
	FirstWake string `yaml:"first_wake"`
	// Checkout is the workflow's checkout: "step" (default), an
	// actions/checkout step before review-loop, or "none", no checkout
	// step, so review-loop clones the PR from the fake over HTTP in the
	// cycles that need the tree.
	Checkout string `yaml:"checkout"`
	Expect   Expect `yaml:"expect"`
	// IDsFrom is where the fake GitHub's object ids start (check runs,
	// reviews, comments); default ghfake's, already above 2^31.
	IDsFrom int64 `yaml:"ids_from"`
	// OpenPRs is how many other PRs are open on the repository, opened
	// before the scenario's PR (so its PR is the newest) and without a
	// loop: a busy repository for the sweep.
	OpenPRs int `yaml:"open_prs"`
	// History names engines whose bots reviewed an earlier pull request
	// of the repository (merged, opened after the scenario's PR so its
	// number stays 1): the evidence a real repository shows of an engine
	// installed on it, such as Copilot, which leaves no other (IN2).
	History []string `yaml:"history"`
	// RateRemaining, when positive, is how much of the action token's
	// REST budget is left at the start (other runs spent the rest).
	RateRemaining int `yaml:"rate_remaining"`

	// File is the path the scenario was loaded from.
	File string `yaml:"-"`
}

// DefaultStart is the virtual time a scenario starts at when it names none.
var DefaultStart = time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)

// Repository is the base repository: its owner, name and the files of its
// default branch.
type Repository struct {
	Owner         string            `yaml:"owner"`
	Name          string            `yaml:"name"`
	DefaultBranch string            `yaml:"default_branch"`
	Files         map[string]string `yaml:"files"`
	// Collaborators maps extra logins to their author association
	// (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE).
	Collaborators map[string]string `yaml:"collaborators"`
	// Permissions maps logins to their repository role (admin, maintain,
	// write, triage, read, none) as the collaborator permission API
	// reports it; a collaborator without one gets admin as OWNER, write as
	// MEMBER or COLLABORATOR, read otherwise (TB3).
	Permissions map[string]string `yaml:"permissions"`
}

// PR is the pull request under review. Files are committed on the head
// branch on top of the default branch.
type PR struct {
	Title  string            `yaml:"title"`
	Body   string            `yaml:"body"`
	Branch string            `yaml:"branch"`
	Author string            `yaml:"author"`
	Draft  bool              `yaml:"draft"`
	Fork   bool              `yaml:"fork"`
	Files  map[string]string `yaml:"files"`
	// Protected protects the head branch once the PR is open: the branch
	// API says so and pushes to it are refused, as GitHub does.
	Protected bool `yaml:"protected"`
	// Additions is the PR's size in added lines as GitHub reports it
	// (default: the fake's 3), to stand for a very large PR (CV6).
	Additions int `yaml:"additions"`
}

// TokenOptions say which tokens the action is given besides GITHUB_TOKEN.
type TokenOptions struct {
	Trigger bool `yaml:"trigger"` // a user token for trigger comments
	Push    bool `yaml:"push"`    // a user token for pushes
}

// Engine scripts one engine bot.
type Engine struct {
	// Installed is false for an engine that is not set up on the
	// repository (Claude: no workflow); default true.
	Installed *bool `yaml:"installed"`
	// Workflow replaces the generated Claude workflow file's content.
	Workflow string `yaml:"workflow"`
	// AutoOnPush makes Copilot review every push (the "review new pushes"
	// ruleset); the other engines follow their real behaviour.
	AutoOnPush bool `yaml:"auto_on_push"`
	// NoCheckRun: the engine reviews without any check run (Copilot's
	// check run is only a hint of a review in progress).
	NoCheckRun bool `yaml:"no_check_run"`
	// CheckName replaces the name of the engine's check run (Copilot's
	// job name is unconfirmed: the adapter must not depend on it).
	CheckName string `yaml:"check_name"`
	// Walkthrough: CodeRabbit keeps one walkthrough comment and edits it
	// in place: its "review in progress" state naming the head while a
	// review runs (coderabbit/14-…), its recent-review block naming the
	// reviewed range once done (10-… A).
	Walkthrough bool `yaml:"walkthrough"`
	// StaleRewrite: Bugbot, rerunning on a commit it already reviewed,
	// rewrites its earlier reviews' bodies to "Stale Bugbot comment from
	// a previous run." (bugbot/11-… A) instead of hiding them.
	StaleRewrite bool `yaml:"stale_rewrite"`
	// Status: CodeRabbit reports its review as a commit status named
	// "CodeRabbit" instead of a check run (ENGINES.md "at a glance").
	Status bool `yaml:"status"`
	// Rounds are consumed one per review the engine runs; after the last
	// one the engine re-evaluates its open findings with Default.
	Rounds  []Round `yaml:"rounds"`
	Default *Round  `yaml:"default"`
	// PauseAfter is CodeRabbit's auto_pause_after_reviewed_commits: once
	// it has reviewed this many commits it edits its walkthrough into
	// "> [!NOTE] > ## Reviews paused" (coderabbit/03-…) and reviews no
	// push until `@coderabbitai review` (one review) or `@coderabbitai
	// resume` (its automatic reviews again, which review-loop must never
	// ask for: the run fails if it is posted, ST6). 0: never pauses.
	PauseAfter int `yaml:"pause_after"`
}

// Round is what an engine does in one review.
type Round struct {
	// Latency is the virtual time from the trigger to the completed review;
	// default 2m.
	Latency Duration `yaml:"latency"`
	// Findings are new findings posted in this round; open findings of
	// earlier rounds are re-posted unless fixed (their bad text is gone).
	Findings []Finding `yaml:"findings"`
	// Clean posts a clean review and drops every earlier finding.
	Clean bool `yaml:"clean"`
	// Error ends the review in error: the check run concludes Conclusion
	// (default per engine) or Copilot posts its error body.
	Error      bool   `yaml:"error"`
	Conclusion string `yaml:"conclusion"`
	// Hang leaves the check run in progress forever.
	Hang bool `yaml:"hang"`
	// Trap is a Claude trap: silent (posts nothing), noop (posts nothing,
	// as when Claude already commented), skip (workflow validation skip).
	Trap string `yaml:"trap"`
	// ReviewBody replaces the engine's review summary body (S5: quoted
	// clean wording in a body with findings).
	ReviewBody string `yaml:"review_body"`
	// Comments are extra PR conversation comments the bot posts when it
	// completes (a second Claude verdict, a status notice).
	Comments []string `yaml:"comments"`
	// LowConfidence is the number of Copilot findings suppressed into the
	// review body.
	LowConfidence int `yaml:"low_confidence"`
	// Ignore makes the engine ignore the trigger of this round entirely
	// (no check run, no review): a missed trigger.
	Ignore bool `yaml:"ignore"`
	// Repost makes Bugbot re-post every still-present finding in a new
	// thread (same BUGBOT_BUG_ID), as it does when a finding's line moved;
	// without it Bugbot is incremental and re-posts only moved findings.
	Repost bool `yaml:"repost"`
	// Quota stops the review on the engine's usage limit, posted the way
	// the real engine does (ENGINES.md round 2): Bugbot's issue comment
	// "Bugbot couldn't run - usage limit reached", a neutral "Error" check;
	// for Copilot, the review request is refused with 429; CodeRabbit
	// rewrites its walkthrough comment into "Rate limit exceeded … Please
	// wait **<wait>**" with a check run titled "Review rate limited";
	// Gemini answers with its daily-quota notice ("Please wait up to 24
	// hours"). No review.
	Quota bool `yaml:"quota"`
	// Wait is the cooldown CodeRabbit's rate-limit notice states; default
	// 30m. Gemini always states "up to 24 hours".
	Wait Duration `yaml:"wait"`
	// Skipped is CodeRabbit's "Review skipped" status comment (auto reviews
	// disabled) with a successful check run and no review (06-…).
	Skipped bool `yaml:"skipped"`
	// Unsupported is Gemini's "[!NOTE] Gemini is unable to generate a
	// review for this pull request due to the file types involved" issue
	// comment, and no review (gemini/07-…).
	Unsupported bool `yaml:"unsupported"`
	// Unproven ends Bugbot's run without a review of the head: "cancelled"
	// (neutral, cancelled by a newer commit) or "skipped" (a very large PR
	// skipped with a comment).
	Unproven string `yaml:"unproven"`
	// Placeholder is Gemini's "## Summary of Changes" review that says it
	// is still reviewing (gemini/06-…): posted this long before the round's
	// real "## Code Review" review.
	Placeholder Duration `yaml:"placeholder"`
	// Refuse is CodeRabbit answering the trigger with "⚠️ Action not
	// completed … Already reviewed the last commit" (coderabbit/11-…) and a
	// green CodeRabbit check, with no review of the head.
	Refuse bool `yaml:"refuse"`
	// StatedOnly is Bugbot's free-tier review: the body says "found N
	// potential issues" while no thread is posted and the check output
	// states no count (ENGINES.md round 3).
	StatedOnly int `yaml:"stated_only"`
	// QuotaReview is Copilot's quota stop as a COMMENTED review "… has
	// reached their quota limit" (copilot/14-…), its check failed.
	QuotaReview bool `yaml:"quota_review"`
	// QuotaCheck is Copilot's quota stop as only a failed check of its
	// dynamic workflow, no review (copilot/15-…); for Bugbot, its
	// usage-limit sentence only in the check run's title and summary, no
	// issue comment (ENGINES.md round 3).
	QuotaCheck bool `yaml:"quota_check"`
	// Overview is Copilot's review body layout: "" for the classic
	// overview, "2026-09" for the verdict heading and "Review details"
	// counts (copilot/16-…), which no allow-listed sentence matches.
	Overview string `yaml:"overview"`
	// NoReviewObject: CodeRabbit's clean incremental review posts no
	// review object: its check turns green on the head and its
	// walkthrough's recent-review block names the head (with clean and
	// the engine's walkthrough; ENGINES.md round 4).
	NoReviewObject bool `yaml:"no_review_object"`
	// Fallback: CodeRabbit posts its full-review fallback notice for the
	// head when the review starts (coderabbit/13-…).
	Fallback bool `yaml:"fallback"`
	// CheckOnly: Bugbot's API-triggered run with postSuccessComment
	// false posts no review when clean: the check's summary is all it
	// leaves (ENGINES.md round 4).
	CheckOnly bool `yaml:"check_only"`
	// Automation is Claude run by claude-code-action in automation mode
	// (a workflow with a prompt): "review" posts its verdict with `gh pr
	// review`, "comment" with `gh pr comment`, in the prompt's own words,
	// and no tracking comment.
	Automation string `yaml:"automation"`
	// StatedTotal: Bugbot's review body states "There are N total
	// unresolved issues (including M from previous review)" (bugbot/11-…
	// B) while its check output states no count.
	StatedTotal bool `yaml:"stated_total"`
	// CheckSummary replaces the summary of Bugbot's check in a check_only
	// round (a real sample's words).
	CheckSummary string `yaml:"check_summary"`
	// WalkthroughBody replaces the walkthrough CodeRabbit leaves after a
	// no_review_object round (a real sample's words).
	WalkthroughBody string `yaml:"walkthrough_body"`
}

// The placeholders a scripted engine text may carry: the commit the
// review is of, and the commit the engine reviewed before it (the PR's
// base when none), as full SHAs. A real sample names its own commits; a
// scenario puts these where they were.
const (
	PlaceholderHead = "{{head}}"
	PlaceholderFrom = "{{from}}"
)

// Finding is one scripted finding.
type Finding struct {
	ID         string `yaml:"id"` // scenario-local key, also the stable bug id seed
	Path       string `yaml:"path"`
	Line       int    `yaml:"line"`
	StartLine  int    `yaml:"start_line"`
	Title      string `yaml:"title"`
	Severity   string `yaml:"severity"` // critical, high, medium, low
	Body       string `yaml:"body"`
	Suggestion string `yaml:"suggestion"` // replacement text of the anchored lines; Bugbot posts none
	// Bad is the text whose absence from Path at a new head means fixed.
	Bad string `yaml:"bad"`
	// Fix replaces Bad when the simulated fixer (World.Fix) handles the
	// finding; empty means the fixer declines it.
	Fix string `yaml:"fix"`
	// FixTime is the virtual time the simulated fixer spends on the
	// finding: the clock moves on while the cycle works, so it counts as
	// active work (B2), unlike the engines' latency, which is waiting.
	FixTime Duration `yaml:"fix_time"`
	// Locations are extra "path#La-Lb" locations (Bugbot cross-file).
	Locations []string `yaml:"locations"`
	// Once makes the engine withdraw the finding after its first post.
	Once bool `yaml:"once"`
	// Where is where CodeRabbit posts the finding: "thread" (default, an
	// inline review comment), or only in its review body, in the
	// collapsible "⚠️ Outside diff range comments" (body-outside-diff),
	// "🧹 Nitpick comments" (body-nitpick) or "♻️ Duplicate comments"
	// (body-duplicate) section (testdata/engines/coderabbit/08-…).
	Where string `yaml:"where"`
	// Unposted: Bugbot counts the finding in its check output but its
	// inline comment never appears as a thread (its check funnel can
	// report more than it posts, testdata/engines/bugbot/08 A).
	Unposted bool `yaml:"unposted"`
}

// ScriptedEvent is something that happens outside the engines after a
// given cycle. Exactly one of Comment, Review, Reply, Push, Fault, Kill is set.
type ScriptedEvent struct {
	AfterCycle int           `yaml:"after_cycle"`
	Comment    *CommentEvent `yaml:"comment"`
	Review     *ReviewEvent  `yaml:"review"`
	Reply      *ReplyEvent   `yaml:"reply"`
	Push       *PushEvent    `yaml:"push"`
	Fault      *FaultEvent   `yaml:"fault"`
	// Check is a check run on the head by something that is no engine
	// (a job of the repository's own CI).
	Check *CheckEvent `yaml:"check"`
	// Kill is "after-push": the runner ends the next cycle right after its
	// push, before the state is saved.
	Kill string `yaml:"kill"`
	// Revert is a person's `git revert` of review-loop's latest fix
	// commit, pushed to the head branch (CV4).
	Revert *RevertEvent `yaml:"revert"`
	// Autofix is an engine's own fixer pushing its fix of a scripted
	// finding to the head branch (CV5).
	Autofix *AutofixEvent `yaml:"autofix"`
}

// RevertEvent is a person reverting review-loop's latest commit.
type RevertEvent struct {
	Author string `yaml:"author"`
}

// AutofixEvent is an engine fixer's commit: Bugbot Autofix applies the
// scripted finding's fix and pushes it as cursor[bot] (ENGINES.md: the
// author login of Cursor's commits and comments).
type AutofixEvent struct {
	Engine  string `yaml:"engine"`
	Finding string `yaml:"finding"`
	// Message is the commit's message; default "fix: <the finding's
	// title>" with "Applied by Bugbot Autofix." A message that names
	// nothing leaves the commit's own changed lines as the only evidence
	// of what it fixed.
	Message string `yaml:"message"`
}

// CheckEvent is a completed check run on the PR head: a job of the
// repository's own workflow (app github-actions, workflow file
// WorkflowPath) or another app's. Check runs GitHub Actions creates start
// no check_run workflow, so it wakes nothing by itself.
type CheckEvent struct {
	Name         string `yaml:"name"`
	App          string `yaml:"app"`
	WorkflowPath string `yaml:"workflow_path"`
	Conclusion   string `yaml:"conclusion"`
}

// CommentEvent is a PR conversation comment by someone. The body may name
// a finding as {finding:<id>}, replaced by the loop's finding id of the
// newest thread posted for it, or as {comment:<id>}, replaced by that
// thread's comment id (the id the status comment lists under "findings").
type CommentEvent struct {
	Author      string `yaml:"author"`
	Association string `yaml:"association"`
	Bot         bool   `yaml:"bot"`
	Body        string `yaml:"body"`
	// Count posts the comment this many times (default once), numbering
	// each body "(i/N)", to make a busy PR (SC3). Repeated comments raise
	// no webhook events: a comment without a command never starts a cycle
	// (internal/event ignores it), so the runner plays no no-op cycles.
	Count int `yaml:"count"`
}

// ReviewEvent is a pull request review with one inline comment, by an
// account that is not a simulated engine: author "user:Copilot" is a user
// account whose login is Copilot (ghfake.UserPrefix), the IN7 trap of a
// user posting as if it were an engine.
type ReviewEvent struct {
	Author string `yaml:"author"`
	Body   string `yaml:"body"`
	Path   string `yaml:"path"`
	Line   int    `yaml:"line"`
	// Comment is the inline comment's body (a ```suggestion block, say).
	Comment string `yaml:"comment"`
}

// ReplyEvent is a person's reply in the newest thread posted for a
// scripted finding (HY1: a person is working on it).
type ReplyEvent struct {
	Author  string `yaml:"author"`
	Finding string `yaml:"finding"`
	Body    string `yaml:"body"`
}

// PushEvent is an outside push to the PR's head branch.
type PushEvent struct {
	Author  string            `yaml:"author"`
	Message string            `yaml:"message"`
	Files   map[string]string `yaml:"files"`
	// Force rewrites the branch: the commit is made on the parent of the
	// head and force-pushed, so the head commit (review-loop's latest
	// fix, say) is no longer in the PR (CV4).
	Force bool `yaml:"force"`
}

// FaultEvent is a fault injected into the fake GitHub.
type FaultEvent struct {
	Match         string   `yaml:"match"` // "METHOD /path", "METHOD /path*" (a prefix), "graphql:<root>" or "*"; {owner}, {repo}, {number} are filled in
	Status        int      `yaml:"status"`
	Times         int      `yaml:"times"`
	RetryAfter    int      `yaml:"retry_after"`
	Message       string   `yaml:"message"`
	GraphQLErrors []string `yaml:"graphql_errors"`
	ErrorType     string   `yaml:"error_type"`
}

// Expect is the scenario's expected outcome.
type Expect struct {
	EndReason       string            `yaml:"end_reason"`
	Verdicts        map[string]string `yaml:"verdicts"`
	Commits         *int              `yaml:"commits"`
	ResolvedThreads *int              `yaml:"resolved_threads"`
	// MaxTriggersPerSHA caps how often each engine was asked to review one
	// head SHA.
	MaxTriggersPerSHA map[string]int `yaml:"max_triggers_per_sha"`
	// MinTriggers asks for at least this many triggers per engine overall.
	MinTriggers    map[string]int `yaml:"min_triggers"`
	ReportContains []string       `yaml:"report_contains"`
	// StatusAfterCycle are, per cycle number, texts the status comment
	// must contain as that cycle left it (what a person saw then).
	StatusAfterCycle map[int][]string `yaml:"status_after_cycle"`
	ReportExcludes   []string         `yaml:"report_excludes"`
	// CommentsContain are texts some PR conversation comment by the
	// action, other than its status comment, must contain (command
	// replies).
	CommentsContain []string `yaml:"comments_contain"`
	// EnginePosted are texts an engine must have posted by the end: each
	// line of one that holds no placeholder appears in one review body,
	// conversation comment by someone other than the action, or check
	// run summary on the head. A scenario that puts a real sample into a
	// round says so, so a round that never posts it cannot pass.
	EnginePosted []string `yaml:"engine_posted"`
	// YieldAfterOutsidePush: no push by the loop comes sooner than this
	// after an outside push (HY1: yield-minutes).
	YieldAfterOutsidePush Duration `yaml:"yield_after_outside_push"`
	// RepliesContain are texts some reply by the action in a review
	// thread must contain (E6 answers, WF1 remembered rationales).
	RepliesContain []string `yaml:"replies_contain"`
	// Reactions are the reactions the action left on maintainers'
	// command comments, in order (eyes, +1, confused).
	Reactions []string `yaml:"reactions"`
	// MaxWrites caps the action's write requests over the whole run.
	MaxWrites *int `yaml:"max_writes"`
	// Cycles is the exact number of cycles the run takes.
	Cycles *int `yaml:"cycles"`
	// Checkouts is the exact number of cycles that cloned the PR
	// themselves (checkout: none): those that needed the tree.
	Checkouts *int `yaml:"checkouts"`
	// NoErrors: no cycle ended in an error (the binary would exit 0).
	NoErrors bool `yaml:"no_errors"`
	// Annotations are texts the job log's workflow commands (::warning::,
	// ::notice::, ::error::) must contain, over all cycles.
	Annotations []string `yaml:"annotations"`
	// Outputs are the action outputs the last cycle set, by name; "*"
	// means set to anything but empty (H9).
	Outputs map[string]string `yaml:"outputs"`
	// Summary are texts the last cycle's job summary must contain.
	Summary []string `yaml:"summary"`
	// QuietDuringQuota lists engines that must not be triggered between a
	// quota notice they posted and the end of the wait it states (1h when
	// none), T8.
	QuietDuringQuota []string `yaml:"quiet_during_quota"`
	// ActionComments counts the PR conversation comments the action
	// posted whose body contains each key (e.g. the reply listing fixed
	// body-only findings, posted once).
	ActionComments map[string]int `yaml:"action_comments"`
	// NoDuplicateComments: no author posted the same body twice on one SHA.
	NoDuplicateComments bool  `yaml:"no_duplicate_comments"`
	Draft               *bool `yaml:"draft"` // the PR's draft flag at the end
	// CycleErrors are substrings of the cycle errors the scenario expects
	// (a fault it injects, say): each must match an error, and a cycle
	// error matching none of them fails the scenario.
	CycleErrors []string `yaml:"cycle_errors"`
	// StatusComments is how many comments by review-loop's identity carry
	// the state marker at the end (1: the loop never started a second one).
	StatusComments *int `yaml:"status_comments"`
	// ErrorSignalIDs are engines whose last error signal (a check run, say)
	// must be recorded with an id in the final state (T4 counts errors by
	// signal).
	ErrorSignalIDs []string `yaml:"error_signal_ids"`
	// Gate is what review-loop's own check run (the merge gate) shows.
	Gate *GateExpect `yaml:"gate"`
	// CIDispatches counts, per workflow file, the workflow_dispatch runs
	// of the repository's CI the action asked for on the PR head branch.
	CIDispatches map[string]int `yaml:"ci_dispatches"`
}

// Duration is a time.Duration written as "90s" or "3m" in YAML.
type Duration time.Duration

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Known engine names.
const (
	Bugbot     = "bugbot"
	Copilot    = "copilot"
	Claude     = "claude"
	Gemini     = "gemini"
	CodeRabbit = "coderabbit"
)

// Where a CodeRabbit finding is posted (Finding.Where).
const (
	WhereThread      = "thread"
	WhereOutsideDiff = "body-outside-diff"
	WhereNitpick     = "body-nitpick"
	WhereDuplicate   = "body-duplicate"
)

// KnownEngines lists the engines the simulator has bots for.
var KnownEngines = []string{Bugbot, Claude, CodeRabbit, Copilot, Gemini}

var (
	knownVerdicts = []string{"CLEAN", "HUNG", "ERRORED", "STILL_FINDING", "UNPROVEN", "PAUSED"}
	// knownEnds are H5's end reasons; "" expects a loop that never
	// handed back (a dry run writes no state).
	knownEnds  = []string{"", "clean", "no-fixes", "no-comments", "max-iterations", "timeout", "bound", "no-progress", "stopped", "error", "diverging", "too-large"}
	knownSev   = []string{"", "critical", "high", "medium", "low"}
	knownTraps = []string{"", "silent", "noop", "skip"}
	knownWhere = []string{"", WhereThread, WhereOutsideDiff, WhereNitpick, WhereDuplicate}
	knownAssoc = []string{"", "OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE"}
	ruleIDRE   = regexp.MustCompile(`^[A-Z]+[0-9]+$`)
	nameRE     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// LoadScenario reads and validates one scenario file. Unknown keys are
// errors naming the field and the file.
func LoadScenario(file string) (Scenario, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Scenario{}, fmt.Errorf("reading scenario: %w", err)
	}
	sc, err := ParseScenario(b)
	if err != nil {
		return Scenario{}, fmt.Errorf("scenario %s: %w", file, err)
	}
	sc.File = file
	if base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)); base != sc.Name {
		return Scenario{}, fmt.Errorf("scenario %s: name %q differs from the file name %q", file, sc.Name, base)
	}
	return sc, nil
}

// LoadScenarios loads every *.yaml file of dir, sorted by name.
func LoadScenarios(dir string) ([]Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out []Scenario
	var errs []error
	for _, f := range files {
		sc, err := LoadScenario(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, sc)
	}
	return out, errors.Join(errs...)
}

// ParseScenario decodes and validates a scenario document.
func ParseScenario(b []byte) (Scenario, error) {
	var sc Scenario
	if err := yaml.UnmarshalWithOptions(b, &sc, yaml.Strict()); err != nil {
		return Scenario{}, fmt.Errorf("decoding: %s", yaml.FormatError(err, false, true))
	}
	sc.defaults()
	if err := sc.Validate(); err != nil {
		return Scenario{}, err
	}
	return sc, nil
}

func (sc *Scenario) defaults() {
	if sc.Start.IsZero() {
		sc.Start = DefaultStart
	}
	if sc.Tick == 0 {
		sc.Tick = Duration(time.Minute)
	}
	if sc.Repository.Owner == "" {
		sc.Repository.Owner = "acme"
	}
	if sc.Repository.Name == "" {
		sc.Repository.Name = "calc"
	}
	if sc.Repository.DefaultBranch == "" {
		sc.Repository.DefaultBranch = "main"
	}
	if sc.PR.Branch == "" {
		sc.PR.Branch = "feature"
	}
	if sc.PR.Author == "" {
		sc.PR.Author = sc.Repository.Owner
	}
	if sc.PR.Title == "" {
		sc.PR.Title = "Change " + sc.PR.Branch
	}
	if sc.MaxSteps == 0 {
		sc.MaxSteps = 60
	}
	for name, e := range sc.Engines {
		if e.Installed == nil {
			t := true
			e.Installed = &t
		}
		sc.Engines[name] = e
	}
}

// Validate checks the scenario and joins every problem found.
func (sc Scenario) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !nameRE.MatchString(sc.Name) {
		bad("name %q: want lower-case words joined by dashes", sc.Name)
	}
	if strings.TrimSpace(sc.Description) == "" {
		bad("description: missing")
	}
	if len(sc.Rules) == 0 {
		bad("rules: name at least one rule id")
	}
	for _, r := range sc.Rules {
		if !ruleIDRE.MatchString(r) {
			bad("rules: %q is not a rule id like ST2", r)
		}
	}
	if len(sc.PR.Files) == 0 && len(sc.Repository.Files) == 0 {
		bad("repository.files and pr.files: the PR changes nothing")
	}
	for p := range sc.allFiles() {
		if path.IsAbs(p) || strings.Contains(p, "..") || p == "" {
			bad("file %q: want a relative path inside the repository", p)
		}
	}
	for l, a := range sc.Repository.Collaborators {
		if a == "" || !slices.Contains(knownAssoc, a) {
			bad("repository.collaborators.%s: association %q is not one of %v", l, a, knownAssoc[1:])
		}
	}
	for l, p := range sc.Repository.Permissions {
		if !slices.Contains(ghfake.Roles, p) {
			bad("repository.permissions.%s: role %q is not one of %v", l, p, ghfake.Roles)
		}
	}
	if len(sc.Engines) == 0 {
		bad("engines: script at least one engine")
	}
	texts := sc.fileTexts()
	// A scripted fix is text a file can hold too: an engine may flag the
	// loop's own fix (CV1). Appended after the files, so a finding is
	// still anchored on the files (bots' locate).
	for _, name := range sortedKeys(sc.Engines) {
		e := sc.Engines[name]
		for _, r := range append(slices.Clone(e.Rounds), derefRound(e.Default)...) {
			for _, f := range r.Findings {
				if f.Fix != "" {
					texts[f.Path] = append(texts[f.Path], f.Fix)
				}
			}
		}
	}
	seen := map[string]string{}
	for _, name := range sortedKeys(sc.Engines) {
		e := sc.Engines[name]
		if !slices.Contains(KnownEngines, name) {
			bad("engines.%s: unknown engine (known: %s)", name, strings.Join(KnownEngines, ", "))
			continue
		}
		if e.Workflow != "" && name != Claude {
			bad("engines.%s.workflow: only claude has a workflow file", name)
		}
		if e.AutoOnPush && name != Copilot {
			bad("engines.%s.auto_on_push: only copilot's push reviews are optional", name)
		}
		rounds := slices.Clone(e.Rounds)
		if e.Default != nil {
			rounds = append(rounds, *e.Default)
		}
		for i, r := range rounds {
			where := fmt.Sprintf("engines.%s.rounds[%d]", name, i)
			if i == len(e.Rounds) {
				where = fmt.Sprintf("engines.%s.default", name)
			}
			errs = append(errs, r.validate(where, name, texts, seen)...)
		}
	}
	for i, ev := range sc.Events {
		where := fmt.Sprintf("events[%d]", i)
		n := 0
		for _, set := range []bool{ev.Comment != nil, ev.Review != nil, ev.Reply != nil, ev.Push != nil, ev.Fault != nil, ev.Check != nil, ev.Kill != "", ev.Revert != nil, ev.Autofix != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			bad("%s: set exactly one of comment, review, reply, push, fault, check, kill, revert, autofix", where)
		}
		if ev.AfterCycle < 0 {
			bad("%s.after_cycle: must not be negative", where)
		}
		switch {
		case ev.Comment != nil:
			if ev.Comment.Author == "" || strings.TrimSpace(ev.Comment.Body) == "" {
				bad("%s.comment: author and body are required", where)
			}
			if !slices.Contains(knownAssoc, ev.Comment.Association) {
				bad("%s.comment.association: %q is not one of %v", where, ev.Comment.Association, knownAssoc[1:])
			}
			for _, m := range append(findingRefRE.FindAllStringSubmatch(ev.Comment.Body, -1), commentRefRE.FindAllStringSubmatch(ev.Comment.Body, -1)...) {
				if _, ok := seen[m[1]]; !ok {
					bad("%s.comment.body: {finding:%s} names no scripted finding", where, m[1])
				}
			}
			if ev.Comment.Count < 0 || ev.Comment.Count > 1000 {
				bad("%s.comment.count: %d, want 0 to 1000", where, ev.Comment.Count)
			}
		case ev.Review != nil:
			if ev.Review.Author == "" || ev.Review.Path == "" || ev.Review.Line <= 0 || strings.TrimSpace(ev.Review.Comment) == "" {
				bad("%s.review: author, path, line and comment are required", where)
			}
		case ev.Reply != nil:
			if _, ok := seen[ev.Reply.Finding]; !ok || ev.Reply.Author == "" || strings.TrimSpace(ev.Reply.Body) == "" {
				bad("%s.reply: author, body and a scripted finding are required", where)
			}
		case ev.Push != nil:
			if len(ev.Push.Files) == 0 {
				bad("%s.push.files: an outside push changes at least one file", where)
			}
		case ev.Fault != nil:
			if ev.Fault.Match == "" {
				bad("%s.fault.match: required", where)
			}
			if ev.Fault.Status == 0 && len(ev.Fault.GraphQLErrors) == 0 {
				bad("%s.fault: set status or graphql_errors", where)
			}
		case ev.Check != nil:
			if ev.Check.Name == "" || ev.Check.App == "" || ev.Check.Conclusion == "" {
				bad("%s.check: name, app and conclusion are required", where)
			}
		case ev.Revert != nil:
			if ev.Revert.Author == "" {
				bad("%s.revert.author: required", where)
			}
		case ev.Autofix != nil:
			if ev.Autofix.Engine != Bugbot {
				bad("%s.autofix.engine: %q, want bugbot (Bugbot Autofix)", where, ev.Autofix.Engine)
			}
			if seen[ev.Autofix.Finding] != ev.Autofix.Engine {
				bad("%s.autofix.finding: %q is no scripted finding of %s", where, ev.Autofix.Finding, ev.Autofix.Engine)
			}
		case ev.Kill != "":
			if ev.Kill != "after-push" {
				bad("%s.kill: %q, want after-push", where, ev.Kill)
			}
		}
	}
	x := sc.Expect
	if !slices.Contains(knownEnds, x.EndReason) {
		bad("expect.end_reason: %q is not one of %s", x.EndReason, strings.Join(knownEnds, ", "))
	}
	for _, eng := range sortedKeys(x.Verdicts) {
		if _, ok := sc.Engines[eng]; !ok {
			bad("expect.verdicts.%s: engine not scripted", eng)
		}
		if !slices.Contains(knownVerdicts, x.Verdicts[eng]) {
			bad("expect.verdicts.%s: %q is not one of %s", eng, x.Verdicts[eng], strings.Join(knownVerdicts, ", "))
		}
	}
	for _, eng := range x.QuietDuringQuota {
		if _, ok := sc.Engines[eng]; !ok {
			bad("expect.quiet_during_quota: %s: engine not scripted", eng)
		}
	}
	for _, m := range []map[string]int{x.MaxTriggersPerSHA, x.MinTriggers} {
		for _, eng := range sortedKeys(m) {
			if _, ok := sc.Engines[eng]; !ok {
				bad("expect trigger count for %s: engine not scripted", eng)
			}
		}
	}
	if x.Commits != nil && *x.Commits < 0 || x.ResolvedThreads != nil && *x.ResolvedThreads < 0 {
		bad("expect: counts must not be negative")
	}
	if sc.Checkout != "" && sc.Checkout != "step" && sc.Checkout != "none" {
		bad("checkout: %q, want step or none", sc.Checkout)
	}
	if sc.FirstWake != "" && sc.FirstWake != "dispatch" && sc.FirstWake != "none" {
		bad("first_wake: %q, want dispatch or none", sc.FirstWake)
	}
	if sc.MaxSteps < 1 {
		bad("max_steps: must be positive")
	}
	errs = append(errs, x.Gate.validate()...)
	return errors.Join(errs...)
}

func (r Round) validate(where, engine string, texts map[string][]string, seen map[string]string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(where+format, args...)) }
	if r.Latency < 0 {
		bad(".latency: must not be negative")
	}
	if !slices.Contains(knownTraps, r.Trap) {
		bad(".trap: %q is not one of silent, noop, skip", r.Trap)
	}
	if r.Trap != "" && engine != Claude {
		bad(".trap: only claude has traps")
	}
	if r.LowConfidence != 0 && engine != Copilot {
		bad(".low_confidence: only copilot suppresses findings")
	}
	if r.Quota && engine == Claude {
		bad(".quota: claude posts no quota notice")
	}
	if r.Wait != 0 && (engine != CodeRabbit || !r.Quota) {
		bad(".wait: only a coderabbit quota round states a wait")
	}
	if r.Wait < 0 {
		bad(".wait: must not be negative")
	}
	if r.Unsupported && engine != Gemini {
		bad(".unsupported: only gemini posts the unsupported-files note")
	}
	if r.Skipped && engine != CodeRabbit {
		bad(".skipped: only coderabbit posts \"Review skipped\"")
	}
	if r.Placeholder != 0 && (engine != Gemini || r.Placeholder < 0 || r.Placeholder >= r.Latency) {
		bad(".placeholder: only gemini posts a placeholder, a positive lead shorter than the round's latency")
	}
	if r.Refuse && engine != CodeRabbit {
		bad(".refuse: only coderabbit refuses a review command")
	}
	if r.StatedOnly != 0 && (engine != Bugbot || r.StatedOnly < 0) {
		bad(".stated_only: only bugbot, a positive count")
	}
	if r.QuotaReview && engine != Copilot {
		bad(".quota_review: only copilot")
	}
	if r.QuotaCheck && engine != Copilot && engine != Bugbot {
		bad(".quota_check: only copilot and bugbot")
	}
	if r.Overview != "" && (engine != Copilot || r.Overview != "2026-09") {
		bad(".overview: only copilot, and only \"2026-09\"")
	}
	if r.NoReviewObject && (engine != CodeRabbit || !r.Clean) {
		bad(".no_review_object: only a clean coderabbit round")
	}
	if r.Fallback && engine != CodeRabbit {
		bad(".fallback: only coderabbit posts the full-review fallback notice")
	}
	if r.CheckOnly && (engine != Bugbot || len(r.Findings) > 0) {
		bad(".check_only: only a bugbot round with no new finding")
	}
	if r.StatedTotal && engine != Bugbot {
		bad(".stated_total: only bugbot")
	}
	if r.CheckSummary != "" && !r.CheckOnly {
		bad(".check_summary: only with check_only")
	}
	if r.WalkthroughBody != "" && !r.NoReviewObject {
		bad(".walkthrough_body: only with no_review_object")
	}
	if r.Automation != "" && (engine != Claude || r.Automation != "review" && r.Automation != "comment") {
		bad(".automation: only claude, \"review\" or \"comment\"")
	}
	modes := 0
	for _, on := range []bool{r.Clean, r.Error, r.Hang, r.Trap != "", r.Ignore, r.Quota, r.Skipped, r.Unsupported, r.Refuse, r.StatedOnly > 0, r.QuotaReview, r.QuotaCheck} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		bad(": clean, error, hang, trap, ignore, quota, skipped, unsupported, refuse, stated_only, quota_review and quota_check exclude each other")
	}
	if modes > 0 && len(r.Findings) > 0 {
		bad(": findings with clean, error, hang, trap, ignore, quota, skipped or unsupported")
	}
	for i, f := range r.Findings {
		fw := fmt.Sprintf(".findings[%d]", i)
		switch {
		case !nameRE.MatchString(f.ID):
			bad("%s.id: %q, want a short lower-case key", fw, f.ID)
		case seen[f.ID] != "" && seen[f.ID] != engine:
			bad("%s.id: %q is already used by %s", fw, f.ID, seen[f.ID])
		}
		seen[f.ID] = engine
		if f.Path == "" || f.Line < 1 {
			bad("%s: path and a positive line are required", fw)
		}
		if f.StartLine > f.Line {
			bad("%s.start_line: after line", fw)
		}
		if f.FixTime < 0 {
			bad("%s.fix_time: must not be negative", fw)
		}
		if strings.TrimSpace(f.Title) == "" && strings.TrimSpace(f.Body) == "" {
			bad("%s: a title or a body is required", fw)
		}
		if !slices.Contains(knownSev, f.Severity) {
			bad("%s.severity: %q is not one of critical, high, medium, low", fw, f.Severity)
		}
		if f.Bad == "" {
			bad("%s.bad: required (the text whose removal fixes the finding)", fw)
		} else if !slices.ContainsFunc(texts[f.Path], func(s string) bool { return strings.Contains(s, f.Bad) }) {
			bad("%s.bad: %q is in no version of %s the scenario writes", fw, f.Bad, f.Path)
		}
		if !slices.Contains(knownWhere, f.Where) {
			bad("%s.where: %q is not one of %s", fw, f.Where, strings.Join(knownWhere[1:], ", "))
		} else if f.Where != "" && engine != CodeRabbit {
			bad("%s.where: only coderabbit posts findings in its review body", fw)
		}
		for _, l := range f.Locations {
			if !strings.Contains(l, "#L") {
				bad("%s.locations: %q, want path#La-Lb", fw, l)
			}
		}
	}
	return errs
}

var (
	findingRefRE = regexp.MustCompile(`\{finding:([a-z0-9][a-z0-9-]*)\}`)
	commentRefRE = regexp.MustCompile(`\{comment:([a-z0-9][a-z0-9-]*)\}`)
)

// allFiles is every path the scenario writes.
func (sc Scenario) allFiles() map[string]bool {
	out := map[string]bool{}
	for p := range sc.Repository.Files {
		out[p] = true
	}
	for p := range sc.PR.Files {
		out[p] = true
	}
	for _, ev := range sc.Events {
		if ev.Push != nil {
			for p := range ev.Push.Files {
				out[p] = true
			}
		}
	}
	return out
}

// fileTexts is every version of every file the scenario writes.
func (sc Scenario) fileTexts() map[string][]string {
	out := map[string][]string{}
	add := func(m map[string]string) {
		for p, s := range m {
			out[p] = append(out[p], s)
		}
	}
	add(sc.PR.Files)
	add(sc.Repository.Files)
	for _, ev := range sc.Events {
		if ev.Push != nil {
			add(ev.Push.Files)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
