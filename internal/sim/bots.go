package sim

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// DefaultLatency is how long a scripted review takes when its round names
// no latency.
const DefaultLatency = 2 * time.Minute

// bot is one simulated engine.
type bot struct {
	w      *World
	name   string
	script Engine

	mu   sync.Mutex
	next int
	jobs []*job
	open []Finding // findings the engine still holds
	// postedLine is the line each finding was last posted at (Bugbot
	// re-posts a still-present finding only when its line moved).
	postedLine map[string]int
	// CodeRabbit's walkthrough comment (Engine.Walkthrough): its id, its
	// body before the running review, and the last commit it reviewed.
	walkID       int64
	walkBody     string
	lastReviewed string

	// reviewed counts the commits CodeRabbit reviewed; paused is its
	// walkthrough comment once it paused (0 while not), and resumed says
	// someone posted `@coderabbitai resume` (ST6).
	reviewed int
	paused   int64
	resumed  bool
}

type job struct {
	sha     string
	round   Round
	at      time.Time
	started bool
	done    bool
	draft   bool // Claude's plugin stopped on a draft PR
	checkID int64
	startAt time.Time
	// byComment: Claude's run was started by an issue comment, so its
	// workflow runs from the default branch: onSHA is that branch's head,
	// where the run and its job's check run hang (GitHub docs, events that
	// trigger workflows, issue_comment: GITHUB_SHA is the last commit on
	// the default branch). The review itself is still of sha.
	byComment bool
	onSHA     string
	runID     int64 // the job's workflow run on the fake (Claude)
	// placeholder: Gemini's placeholder review was posted.
	placeholder bool
}

// checkSHA is the commit the job's check run and workflow run hang off.
func (j *job) checkSHA() string {
	if j.onSHA != "" {
		return j.onSHA
	}
	return j.sha
}

func newBot(w *World, name string, e Engine) *bot {
	return &bot{w: w, name: name, script: e}
}

func (b *bot) installed() bool { return b.script.Installed == nil || *b.script.Installed }

// isTrigger reports whether a comment body is this engine's trigger.
func (b *bot) isTrigger(body string) bool {
	s := strings.ToLower(strings.TrimSpace(body))
	switch b.name {
	case Bugbot:
		return strings.HasPrefix(s, "bugbot run") || strings.HasPrefix(s, "cursor review") || strings.HasPrefix(s, "@cursor review")
	case Claude:
		return strings.HasPrefix(s, "@claude")
	case Gemini:
		return strings.HasPrefix(s, "/gemini review")
	case CodeRabbit:
		return strings.HasPrefix(s, "@coderabbitai review") || strings.HasPrefix(s, "@coderabbitai full review")
	}
	return false
}

// react starts the review a stimulus asks this engine for, if any.
func (b *bot) react(s stimulus) {
	if !b.installed() {
		return
	}
	head := b.w.headSHA()
	switch s.kind {
	case stimOpened:
		switch b.name {
		case Bugbot, CodeRabbit, Gemini, Claude:
			b.start(s.sha)
		case Copilot:
			if b.script.AutoOnPush {
				b.start(s.sha)
			}
		}
	case stimPush:
		switch b.name {
		case Bugbot:
			b.start(s.sha)
		case CodeRabbit:
			// Paused, it reviews no push until asked (ST6).
			if !b.isPaused() {
				b.start(s.sha)
			}
		case Copilot:
			if b.script.AutoOnPush {
				b.start(s.sha)
			}
		case Claude:
			// A push made with GITHUB_TOKEN starts no workflow.
			if s.byUser {
				b.start(s.sha)
			}
		}
	case stimReady:
		if b.name == Claude && s.byUser {
			b.start(head)
		}
	case stimComment:
		if b.name == CodeRabbit && strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.body)), "@coderabbitai resume") && !s.bot {
			b.resume()
			return
		}
		if !b.isTrigger(s.body) {
			return
		}
		// Bugbot, Claude and CodeRabbit ignore commands posted by bots, and
		// so does Gemini: `/gemini review` posted by github-actions[bot] is
		// ignored (googleworkspace/cli#384, ENGINES.md round 2).
		if s.bot {
			return
		}
		b.startJob(head, true)
	case stimReviewRequest:
		if b.name != Copilot {
			return
		}
		for _, l := range s.logins {
			if strings.EqualFold(strings.TrimSuffix(l, "[bot]"), CopilotReviewerLogin) {
				b.start(head)
				return
			}
		}
	}
}

func (b *bot) round() Round {
	var r Round
	switch {
	case b.next < len(b.script.Rounds):
		r = b.script.Rounds[b.next]
	case b.script.Default != nil:
		r = *b.script.Default
	}
	b.next++
	if r.Latency == 0 {
		r.Latency = Duration(DefaultLatency)
	}
	return r
}

// start queues a review of sha; a review of the same SHA already under way
// absorbs the trigger, except Claude's draft-time run once the PR is ready:
// ready_for_review starts a workflow run of its own, which reviews.
func (b *bot) start(sha string) { b.startJob(sha, false) }

// startJob is start; byComment says an issue comment asked for it.
func (b *bot) startJob(sha string, byComment bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	draft := b.w.isDraft()
	for _, j := range b.jobs {
		if !j.done && j.sha == sha && (draft || !j.draft) {
			return
		}
	}
	j := &job{sha: sha, at: b.w.Now()}
	if b.name == Claude && draft {
		j.draft, j.round = true, Round{Latency: Duration(DefaultLatency)}
	} else {
		j.round = b.round()
	}
	if j.round.Ignore {
		return
	}
	if b.name == Claude && byComment {
		j.byComment, j.onSHA = true, b.w.Fake.BranchSHA(b.w.Owner, b.w.Repo, "")
	}
	b.jobs = append(b.jobs, j)
	if b.name == Bugbot {
		b.hideEarlierReviews(sha)
	}
	j.checkID = b.setCheck(j, "QUEUED", "")
	b.setRun(j, "queued", "")
}

// hideEarlierReviews is Bugbot rerunning on a commit it already reviewed:
// it hides (minimizes) its own earlier reviews (ENGINES.md round 3), so
// until the rerun posts, no visible Bugbot review of the commit remains.
func (b *bot) hideEarlierReviews(sha string) {
	pr := b.w.Fake.PR(b.w.Owner, b.w.Repo, b.w.Number)
	if !slices.ContainsFunc(pr.Reviews, func(r ghfake.Review) bool { return r.Author == BugbotLogin && r.CommitSHA == sha }) {
		return
	}
	for _, r := range pr.Reviews {
		if r.Author == BugbotLogin && b.script.StaleRewrite {
			_ = b.w.Fake.EditReviewBody(b.w.Owner, b.w.Repo, b.w.Number, r.ID, BugbotStaleBody)
			continue
		}
		if r.Author == BugbotLogin && r.MinimizedReason == "" {
			_ = b.w.Fake.MinimizeReview(b.w.Owner, b.w.Repo, b.w.Number, r.ID, "OUTDATED")
		}
	}
}

// setRun creates or moves Claude's workflow run; the other engines' runs
// are not modelled (their completion reads no workflow run).
func (b *bot) setRun(j *job, status, conclusion string) {
	if b.name != Claude {
		return
	}
	o := ghfake.WorkflowRunOptions{ID: j.runID, Name: ClaudeWorkflowName, Path: ClaudeWorkflowPath, Status: status, Conclusion: conclusion,
		HeadSHA: j.checkSHA(), Event: "pull_request", Actor: b.w.Scenario.PR.Author}
	if j.byComment {
		o.Event, o.HeadBranch, o.Actor = "issue_comment", b.w.defaultBranch(), b.w.lastTriggerAuthor(Claude)
	} else {
		o.HeadBranch = b.w.Fake.PR(b.w.Owner, b.w.Repo, b.w.Number).HeadRef
		if !b.w.Scenario.PR.Fork {
			o.PRs = []int{b.w.Number}
		}
	}
	if id, err := b.w.Fake.SetWorkflowRun(b.w.Owner, b.w.Repo, o); err == nil {
		j.runID = id
	}
}

func (w *World) isDraft() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.draft
}

// checkName and checkApp name the engine's check run ("" for none).
func (b *bot) checkName() (string, string) {
	if b.script.NoCheckRun {
		return "", ""
	}
	if b.script.CheckName != "" {
		_, app := b.defaultCheck()
		return b.script.CheckName, app
	}
	return b.defaultCheck()
}

// checkWorkflow is the workflow file of the engine's check run when it is
// an Actions job: Copilot's dynamic workflow, Claude's review workflow.
func (b *bot) checkWorkflow() string {
	switch b.name {
	case Copilot:
		return CopilotWorkflowPath
	case Claude:
		// The job's check suite names its workflow file; review-loop's own
		// GITHUB_TOKEN check run may be filed into it (MG2).
		return ClaudeWorkflowPath
	}
	return ""
}

func (b *bot) defaultCheck() (string, string) {
	switch b.name {
	case Bugbot:
		return BugbotCheck, BugbotApp
	case Copilot:
		return CopilotCheck, ActionsApp
	case Claude:
		return ClaudeJob, ActionsApp
	case CodeRabbit:
		return CodeRabbitCheck, CodeRabbitApp
	}
	return "", ""
}

func (b *bot) setCheck(j *job, status, conclusion string) int64 {
	return b.setCheckText(j, status, conclusion, "", "")
}

func (b *bot) setCheckText(j *job, status, conclusion, title, summary string) int64 {
	name, app := b.checkName()
	if name == "" {
		return 0
	}
	if b.name == CodeRabbit && b.script.Status {
		b.setStatus(j, name, status, conclusion, title)
		return 0
	}
	// Each review is a check run of its own: a second run on the same
	// commit (a retrigger, Claude's ready_for_review run) is a new one.
	id, _ := b.w.Fake.SetCheckRun(b.w.Owner, b.w.Repo, b.w.Number, ghfake.CheckRunOptions{HeadSHA: j.checkSHA(), Name: name, AppSlug: app,
		Status: status, Conclusion: conclusion, Title: title, Summary: summary, ID: j.checkID, Rerun: j.checkID == 0, WorkflowPath: b.checkWorkflow()})
	return id
}

// setStatus is CodeRabbit's review reported as a commit status: pending
// while queued or running, then success or failure with its title as the
// description.
func (b *bot) setStatus(j *job, context, status, conclusion, title string) {
	state, desc := "PENDING", "Review in progress"
	if status == "COMPLETED" {
		state, desc = "SUCCESS", title
		if conclusion != "SUCCESS" {
			state = "FAILURE"
		}
	}
	_, _ = b.w.Fake.SetCommitStatus(b.w.Owner, b.w.Repo, b.w.Number, j.checkSHA(), context, state, desc, CodeRabbitLogin+"[bot]")
}

// tick moves this engine's reviews forward to now.
func (b *bot) tick(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, j := range b.jobs {
		if j.done {
			continue
		}
		if !j.started {
			j.started, j.startAt = true, now
			b.setCheck(j, "IN_PROGRESS", "")
			b.setRun(j, "in_progress", "")
			b.startCodeRabbit(j)
		}
		due := j.at.Add(time.Duration(j.round.Latency))
		if p := time.Duration(j.round.Placeholder); p > 0 && !j.placeholder && !now.Before(due.Add(-p)) {
			// Gemini's "Summary of Changes" comes first (gemini/06-…).
			j.placeholder = true
			b.review(GeminiLogin, geminiPlaceholder(b.w.Scenario.PR.Author), j.sha)
		}
		if j.round.Hang || now.Before(due) {
			continue
		}
		j.done = true
		b.complete(j)
	}
	b.jobs = slices.DeleteFunc(b.jobs, func(j *job) bool { return j.done })
}

// fixed reports whether f's bad text is gone from its file at sha.
func (b *bot) fixed(f Finding, sha string) bool {
	s, ok := b.w.fileAt(sha, f.Path)
	return !ok || !strings.Contains(s, f.Bad)
}

// locate anchors f at sha: its scripted lines shifted by as many lines
// as its bad text moved since the scenario first wrote it.
func (b *bot) locate(f Finding, sha string) (start, line int) {
	start, line = f.StartLine, f.Line
	s, ok := b.w.fileAt(sha, f.Path)
	if !ok {
		return
	}
	now := lineOf(s, f.Bad)
	then := 0
	for _, t := range b.w.Scenario.fileTexts()[f.Path] {
		if then = lineOf(t, f.Bad); then > 0 {
			break
		}
	}
	if now == 0 || then == 0 {
		return
	}
	d := now - then
	if start > 0 {
		start += d
	}
	return start, line + d
}

// lineOf is the 1-based line where text first occurs in s, or 0.
func lineOf(s, text string) int {
	i := strings.Index(s, text)
	if i < 0 {
		return 0
	}
	return strings.Count(s[:i], "\n") + 1
}

// evaluate re-reads the engine's findings at sha: fixed ones and withdrawn
// ones disappear, the round's new ones join.
func (b *bot) evaluate(j *job) []Finding {
	if j.round.Clean {
		b.open = nil
		return nil
	}
	var keep []Finding
	for _, f := range b.open {
		if !f.Once && !b.fixed(f, j.sha) {
			keep = append(keep, f)
		}
	}
	for _, f := range j.round.Findings {
		if b.fixed(f, j.sha) || slices.ContainsFunc(keep, func(k Finding) bool { return k.ID == f.ID }) {
			continue
		}
		keep = append(keep, f)
	}
	b.open = keep
	return slices.Clone(keep)
}

func (b *bot) record(f Finding, commentID int64) {
	b.w.mu.Lock()
	defer b.w.mu.Unlock()
	b.w.posted[f.ID] = postedRef{engine: b.name, commentID: commentID}
	b.w.byComment[commentID] = f
}

func (b *bot) comment(login string, f Finding, body string, reviewID int64, sha string) int64 {
	start, line := b.locate(f, sha)
	id, _, err := b.w.Fake.AddReviewComment(b.w.Owner, b.w.Repo, b.w.Number, ghfake.CommentOptions{Author: login, Body: body,
		Path: f.Path, Line: line, StartLine: start, ReviewID: reviewID, CommitSHA: sha})
	if err == nil {
		b.record(f, id)
	}
	return id
}

func (b *bot) review(login, body, sha string) int64 {
	id, err := b.w.Fake.AddReview(b.w.Owner, b.w.Repo, b.w.Number, ghfake.ReviewOptions{Author: login, Body: body, CommitSHA: sha})
	if err != nil {
		return 0
	}
	b.w.emit("pull_request_review", b.w.reviewPayload(id, login, sha))
	return id
}

func (b *bot) issueComment(login, body string) {
	id, err := b.w.Fake.AddIssueComment(b.w.Owner, b.w.Repo, b.w.Number, login, "NONE", body)
	if err != nil {
		return
	}
	b.w.emit("issue_comment", b.w.issueCommentPayload(b.w.issueComment(id), true))
}

// dropOnce withdraws findings scripted to be posted only once.
func (b *bot) dropOnce() {
	b.open = slices.DeleteFunc(b.open, func(f Finding) bool { return f.Once })
}

// complete posts the review of j in the engine's real format and raises
// the events GitHub would.
func (b *bot) complete(j *job) {
	r := j.round
	switch b.name {
	case Bugbot:
		b.completeBugbot(j, r)
	case Copilot:
		b.completeCopilot(j, r)
	case Claude:
		b.completeClaude(j, r)
	case Gemini:
		b.completeGemini(j, r)
	case CodeRabbit:
		b.completeCodeRabbit(j, r)
	}
	b.dropOnce()
}

// completeBugbot posts Bugbot's review as the real one does (ENGINES.md,
// round 2): Bugbot is incremental — it reads its earlier comments "to
// avoid duplicate suggestions" (cursor.com/docs/bugbot), so a still-present
// bug is not re-posted and its old thread simply stays unresolved, except
// when its line moved: then it comes back in a new thread with the same
// BUGBOT_BUG_ID. The review summary says "found no new issues" when
// nothing is new even though old ones remain; the check output states the
// totals ("There are 2 total unresolved issues (including 1 from previous
// review)", github.com/tracebloc/cli/pull/22/checks) and concludes success
// only when no unresolved Bugbot comment remains from any run, else
// neutral (testdata/engines/bugbot/08).
func (b *bot) completeBugbot(j *job, r Round) {
	if r.Error {
		c := r.Conclusion
		if c == "" {
			c = "CANCELLED"
		}
		b.setCheckText(j, "COMPLETED", c, "Bugbot could not complete its review", "An error occurred while reviewing this commit.")
		b.w.emit("check_run", b.w.checkRunPayload(BugbotCheck, BugbotApp, "Cursor Bugbot", j.sha, c))
		return
	}
	if r.Quota || r.QuotaCheck || r.Unproven != "" {
		b.bugbotNoReview(j, r)
		return
	}
	if r.StatedOnly > 0 {
		// A free-tier review: "found N potential issues" in the body, no
		// thread, no count in the check (ENGINES.md round 3).
		b.review(BugbotLogin, bugbotSummary(r.StatedOnly, j.sha), j.sha)
		b.setCheckOutput(j, "COMPLETED", "NEUTRAL", "Bugbot Review", "Bugbot reviewed this pull request on the free plan.", "")
		b.w.emit("check_run", b.w.checkRunPayload(BugbotCheck, BugbotApp, "Cursor Bugbot", j.sha, "NEUTRAL"))
		return
	}
	fs := b.evaluate(j)
	if r.CheckOnly && len(fs) == 0 && b.unresolvedThreads() == 0 {
		// postSuccessComment false: a clean run posts no review, only
		// its check's summary (ENGINES.md round 4).
		summary := BugbotCheckClean
		if r.CheckSummary != "" {
			summary = b.expand(r.CheckSummary, j)
		}
		b.setCheckOutput(j, "COMPLETED", "SUCCESS", "Bugbot Review", summary, "")
		b.w.emit("check_run", b.w.checkRunPayload(BugbotCheck, BugbotApp, "Cursor Bugbot", j.sha, "SUCCESS"))
		return
	}
	if b.postedLine == nil {
		b.postedLine = map[string]int{}
	}
	var post []Finding
	fresh, previous := 0, 0
	for _, f := range fs {
		_, line := b.locate(f, j.sha)
		last, seen := b.postedLine[f.ID]
		switch {
		case f.Unposted:
			if !seen {
				fresh++
			} else {
				previous++
			}
			b.postedLine[f.ID] = line
		case !seen || last != line || r.Repost:
			post = append(post, f)
			fresh++
			b.postedLine[f.ID] = line
		case b.threadOpen(f):
			// Still present, not re-posted: its old thread stays open and
			// counts as "previously reported ... remain unresolved".
			previous++
		}
	}
	body := bugbotSummary(fresh, j.sha)
	if r.StatedTotal {
		body = bugbotWithTotal(body, fresh+previous, previous)
	}
	b.postReview(j, r, post, BugbotLogin, BugbotLogin, body, func(f Finding) string {
		start, line := b.locate(f, j.sha)
		return bugbotComment(f, start, line, j.sha)
	})
	conclusion := "SUCCESS"
	if fresh+previous > 0 || b.unresolvedThreads() > 0 {
		conclusion = "NEUTRAL"
	}
	if r.Conclusion != "" {
		conclusion = r.Conclusion
	}
	summary, text := bugbotCheckOutput(fresh, previous)
	if r.StatedTotal {
		// The count is in the review body only (bugbot/11-… B); the
		// check states none.
		summary, text = "Bugbot reviewed this pull request.", ""
	}
	b.setCheckOutput(j, "COMPLETED", conclusion, "Bugbot Review", summary, text)
	b.w.emit("check_run", b.w.checkRunPayload(BugbotCheck, BugbotApp, "Cursor Bugbot", j.sha, conclusion))
}

// bugbotNoReview ends a Bugbot run without a review of the head: the
// usage-limit stop (an issue comment and a neutral check titled "Error",
// oxc-angular-compiler#419 and testdata/engines/bugbot/06), a run
// cancelled by a newer commit (neutral, "**Result:** Bugbot run
// cancelled", testdata 08 D), or a very large PR skipped with a comment.
func (b *bot) bugbotNoReview(j *job, r Round) {
	title, summary := "Bugbot Review", "**Result:** Bugbot run cancelled because of a new commit"
	switch {
	case r.Quota:
		b.issueComment(BugbotLogin, BugbotUsageLimit)
		title, summary = "Error", "Bugbot run failed"
	case r.QuotaCheck:
		// The limit sentence only in the check (ENGINES.md round 3): the
		// words of testdata/engines/bugbot/06, no issue comment.
		title, summary = "Bugbot couldn't run - usage limit reached", "Bugbot is counted against Cursor usage for this user or team, and this run hit a usage or spend limit."
	case r.Unproven == "skipped":
		b.issueComment(BugbotLogin, BugbotSkippedLarge)
		summary = "**Result:** Bugbot skipped this pull request: it is too large to review"
	}
	b.setCheckOutput(j, "COMPLETED", "NEUTRAL", title, summary, "")
	b.w.emit("check_run", b.w.checkRunPayload(BugbotCheck, BugbotApp, "Cursor Bugbot", j.sha, "NEUTRAL"))
}

// threadOpen reports whether the newest thread posted for f is unresolved.
func (b *bot) threadOpen(f Finding) bool {
	b.w.mu.Lock()
	ref, ok := b.w.posted[f.ID]
	b.w.mu.Unlock()
	if !ok {
		return false
	}
	for _, t := range b.w.Fake.PR(b.w.Owner, b.w.Repo, b.w.Number).Threads {
		if len(t.Comments) > 0 && t.Comments[0].ID == ref.commentID {
			return !t.Resolved
		}
	}
	return false
}

// unresolvedThreads counts Bugbot's unresolved review threads on the PR.
func (b *bot) unresolvedThreads() int {
	n := 0
	for _, t := range b.w.Fake.PR(b.w.Owner, b.w.Repo, b.w.Number).Threads {
		if !t.Resolved && len(t.Comments) > 0 && strings.EqualFold(strings.TrimSuffix(t.Comments[0].Author, "[bot]"), BugbotLogin) {
			n++
		}
	}
	return n
}

func (b *bot) setCheckOutput(j *job, status, conclusion, title, summary, text string) {
	name, app := b.checkName()
	_, _ = b.w.Fake.SetCheckRun(b.w.Owner, b.w.Repo, b.w.Number, ghfake.CheckRunOptions{HeadSHA: j.sha, Name: name, AppSlug: app,
		Status: status, Conclusion: conclusion, Title: title, Summary: summary, Text: text, ID: j.checkID, WorkflowPath: b.checkWorkflow()})
}

// completeCopilot posts Copilot's review; submitting it fulfils the
// pending review request on the fake, as on GitHub.
func (b *bot) completeCopilot(j *job, r Round) {
	if r.Error {
		b.review(CopilotReviewerLogin, CopilotErrorBody, j.sha)
		b.setCheck(j, "COMPLETED", "SUCCESS")
		return
	}
	if r.QuotaReview {
		// The quota stop as a COMMENTED review, the check failed (14-…).
		b.review(CopilotReviewerLogin, CopilotQuotaBody, j.sha)
		b.setCheck(j, "COMPLETED", "FAILURE")
		return
	}
	if r.QuotaCheck {
		// Only the dynamic workflow's check fails; its words are in the
		// job log, none on the PR (15-…). The run is over, so the review
		// request no longer stands (unconfirmed; the adapter reads the
		// failed check first either way) and a new request starts a run.
		b.w.Fake.EndReviewRequest(b.w.Owner, b.w.Repo, b.w.Number, CopilotReviewerLogin)
		b.setCheck(j, "COMPLETED", "FAILURE")
		return
	}
	fs := b.evaluate(j)
	overview := copilotOverview(b.changedFiles(), len(fs), r.LowConfidence)
	if r.Overview == "2026-09" {
		overview = copilotOverviewDetails(b.changedFiles(), len(fs))
	}
	b.postReview(j, r, fs, CopilotReviewerLogin, CopilotCommentLogin, overview, copilotComment)
	b.setCheck(j, "COMPLETED", "SUCCESS")
}

// postReview posts one review (the round's scripted body, or summary),
// an inline comment per finding rendered in the engine's format, and the
// round's extra conversation comments.
func (b *bot) postReview(j *job, r Round, fs []Finding, reviewLogin, commentLogin, summary string, render func(Finding) string) {
	if r.ReviewBody != "" {
		summary = b.expand(r.ReviewBody, j)
	}
	rid := b.review(reviewLogin, summary, j.sha)
	for _, f := range fs {
		b.comment(commentLogin, f, render(f), rid, j.sha)
	}
	for _, c := range r.Comments {
		b.issueComment(commentLogin, b.expand(c, j))
	}
}

// expand puts the job's commits into a scripted text's placeholders.
func (b *bot) expand(text string, j *job) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	from := b.lastReviewed
	if from == "" {
		from = b.w.Fake.BranchSHA(b.w.Owner, b.w.Repo, "")
	}
	return strings.NewReplacer(PlaceholderHead, j.sha, PlaceholderFrom, from).Replace(text)
}

func (b *bot) changedFiles() int {
	n := len(b.w.Scenario.PR.Files)
	if n == 0 {
		n = 1
	}
	return n
}

func (b *bot) completeClaude(j *job, r Round) {
	conclusion := "SUCCESS"
	summary := ""
	switch {
	case j.draft, r.Trap == "silent", r.Trap == "noop":
	case r.Trap == "skip":
		summary = "Claude Code Action skipped: " + "skipped_due_to_workflow_validation_mismatch"
	case r.Error:
		conclusion = r.Conclusion
		if conclusion == "" {
			conclusion = "FAILURE"
		}
		b.issueComment(ClaudeLogin, ClaudeErrorComment)
	default:
		fs := b.evaluate(j)
		if r.ReviewBody != "" {
			b.review(ClaudeLogin, r.ReviewBody, j.sha)
		}
		for _, f := range fs {
			// The plugin creates inline comments one by one: each is its
			// own review.
			id := b.comment(ClaudeLogin, f, claudeComment(f), 0, j.sha)
			if id != 0 {
				b.w.emit("pull_request_review", b.w.reviewPayload(b.reviewOf(id), ClaudeLogin, j.sha))
			}
		}
		switch r.Automation {
		case "review":
			// claude-code-action in automation mode: `gh pr review`, in
			// the prompt's words, no tracking comment.
			b.review(ClaudeLogin, claudeAutomation(len(fs)), j.sha)
		case "comment":
			b.issueComment(ClaudeLogin, claudeAutomation(len(fs)))
		default:
			if len(fs) == 0 && len(r.Comments) == 0 && r.ReviewBody == "" {
				b.issueComment(ClaudeLogin, ClaudeClean)
			}
		}
		for _, c := range r.Comments {
			b.issueComment(ClaudeLogin, b.expand(c, j))
		}
	}
	b.setCheckText(j, "COMPLETED", conclusion, "", summary)
	b.setRun(j, "completed", conclusion)
	b.w.emit("workflow_run", b.w.claudeRunPayload(j, strings.ToLower(conclusion)))
}

// reviewOf is the review id a comment was submitted with.
func (b *bot) reviewOf(commentID int64) int64 {
	for _, t := range b.w.Fake.PR(b.w.Owner, b.w.Repo, b.w.Number).Threads {
		for _, c := range t.Comments {
			if c.ID == commentID {
				return c.ReviewID
			}
		}
	}
	return 0
}

func (b *bot) completeGemini(j *job, r Round) {
	if r.Error {
		b.issueComment(GeminiLogin, GeminiSunset)
		return
	}
	if r.Quota {
		// The daily quota: an issue comment, no review (gemini/05-…).
		b.issueComment(GeminiLogin, GeminiQuota)
		b.w.recordQuota(Gemini, 24*time.Hour)
		return
	}
	if r.Unsupported {
		// Only unsupported file types changed: a note, and no review ever
		// (gemini/07-…).
		b.issueComment(GeminiLogin, GeminiUnsupported)
		return
	}
	fs := b.evaluate(j)
	b.postReview(j, r, fs, GeminiLogin, GeminiLogin, geminiSummary(len(fs)), geminiComment)
}

// startCodeRabbit is what CodeRabbit shows when a review starts: its
// full-review fallback notice for the head (Round.Fallback), and its
// walkthrough rewritten into the "review in progress" state naming the
// head (Engine.Walkthrough).
func (b *bot) startCodeRabbit(j *job) {
	if b.name != CodeRabbit {
		return
	}
	if j.round.Fallback {
		b.issueComment(CodeRabbitLogin, coderabbitFallback(b.w.Number, j.sha))
	}
	if !b.script.Walkthrough {
		return
	}
	from := b.lastReviewed
	if from == "" {
		from = b.w.Fake.BranchSHA(b.w.Owner, b.w.Repo, "")
	}
	b.setWalkthrough(coderabbitInProgress(from, j.sha), false)
}

// setWalkthrough creates CodeRabbit's walkthrough or edits it in place;
// keep records the body as the one to restore when a run ends without
// a review.
func (b *bot) setWalkthrough(body string, keep bool) {
	if b.walkID == 0 {
		id, err := b.w.Fake.AddIssueComment(b.w.Owner, b.w.Repo, b.w.Number, CodeRabbitLogin, "NONE", body)
		if err != nil {
			return
		}
		b.walkID = id
	} else if err := b.w.Fake.EditIssueComment(b.walkID, body); err != nil {
		return
	}
	if keep {
		b.walkBody = body
	}
}

// endWalkthrough leaves the walkthrough as the run's outcome says: its
// recent-review block naming the head after a review, or as it was
// before the run when the run reviewed nothing (quota, skip, failure).
func (b *bot) endWalkthrough(j *job, reviewed, clean bool) {
	if reviewed && j.round.WalkthroughBody != "" {
		b.setWalkthrough(b.expand(j.round.WalkthroughBody, j), true)
		b.lastReviewed = j.sha
		return
	}
	if !b.script.Walkthrough {
		return
	}
	if !reviewed {
		if b.walkBody != "" {
			b.setWalkthrough(b.walkBody, true)
		}
		return
	}
	from := b.lastReviewed
	if from == "" {
		from = b.w.Fake.BranchSHA(b.w.Owner, b.w.Repo, "")
	}
	b.setWalkthrough(coderabbitRecent(from, j.sha, clean), true)
	b.lastReviewed = j.sha
}

// completeCodeRabbit posts CodeRabbit's review the way the real one does:
// incrementally ("incremental review of new changes", docs.coderabbit.ai,
// ENGINES.md round 2) — an open thread of an earlier review is not posted
// again, only new findings are; findings scripted into the review body
// appear once, in the body's collapsible sections, with "Actionable
// comments posted" counting the inline ones only (coderabbit/08-…). The
// quota, skip and failure rounds post the real notices (04-…, 06-…, 09-…).
func (b *bot) completeCodeRabbit(j *job, r Round) {
	finish := func(conclusion, title string) {
		b.setCheckText(j, "COMPLETED", conclusion, title, title)
		b.w.emit("check_run", b.w.checkRunPayload(CodeRabbitCheck, CodeRabbitApp, "CodeRabbit", j.sha, conclusion))
	}
	switch {
	case r.Error:
		c := r.Conclusion
		if c == "" {
			c = "FAILURE"
		}
		b.endWalkthrough(j, false, false)
		b.issueComment(CodeRabbitLogin, CodeRabbitFailed)
		b.setCheckText(j, "COMPLETED", c, "Review failed", "Review failed: the review could not be completed.")
		b.w.emit("check_run", b.w.checkRunPayload(CodeRabbitCheck, CodeRabbitApp, "CodeRabbit", j.sha, c))
		return
	case r.Quota:
		wait := time.Duration(r.Wait)
		if wait == 0 {
			wait = 30 * time.Minute
		}
		b.endWalkthrough(j, false, false)
		b.issueComment(CodeRabbitLogin, coderabbitRateLimited(b.w.Scenario.PR.Author, wait))
		b.w.recordQuota(CodeRabbit, wait)
		// The status of a rate-limited review reads success (04-… B).
		finish("SUCCESS", "Review rate limited")
		return
	case r.Refuse:
		// "Already reviewed the last commit" with a green status and no
		// review of the head (coderabbit/11-…).
		b.endWalkthrough(j, false, false)
		b.issueComment(CodeRabbitLogin, CodeRabbitRefusal)
		finish("SUCCESS", "Review completed")
		return
	case r.Skipped:
		b.endWalkthrough(j, false, false)
		b.issueComment(CodeRabbitLogin, CodeRabbitSkipped)
		// "Review skipped" comes with a success status (06-…).
		finish("SUCCESS", "Review skipped: automatic reviews are disabled")
		return
	}
	fs := b.evaluate(j)
	var inline, body []Finding
	for _, f := range fs {
		switch f.Where {
		case "", WhereThread:
			if !b.openThread(f.ID) {
				inline = append(inline, f)
			}
		default:
			if !b.bodyPosted(f) {
				body = append(body, f)
			}
		}
	}
	if r.NoReviewObject && len(inline) == 0 && len(body) == 0 {
		// A clean incremental review posts no review object: the
		// walkthrough's recent-review block, rewritten in place, and the
		// green check are all it leaves (ENGINES.md round 4).
		b.endWalkthrough(j, true, true)
		for _, c := range r.Comments {
			b.issueComment(CodeRabbitLogin, b.expand(c, j))
		}
		finish("SUCCESS", "Review completed")
		return
	}
	summary := coderabbitReviewBody(len(inline), body, func(f Finding) (int, int) { return b.locate(f, j.sha) })
	b.postReview(j, r, inline, CodeRabbitLogin, CodeRabbitLogin, summary, coderabbitComment)
	b.endWalkthrough(j, true, len(inline)+len(body) == 0)
	finish("SUCCESS", "Review completed")
	b.reviewed++
	if n := b.script.PauseAfter; n > 0 && b.reviewed >= n && b.paused == 0 {
		// auto_pause_after_reviewed_commits reached: the walkthrough says
		// so, and pushes are no longer reviewed (coderabbit/03-…).
		if id, err := b.w.Fake.AddIssueComment(b.w.Owner, b.w.Repo, b.w.Number, CodeRabbitLogin, "NONE", CodeRabbitPaused); err == nil {
			b.paused = id
			b.w.emit("issue_comment", b.w.issueCommentPayload(b.w.issueComment(id), true))
		}
	}
}

// isPaused reports whether CodeRabbit paused its automatic reviews.
func (b *bot) isPaused() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.paused != 0
}

// resume is `@coderabbitai resume`: the walkthrough drops its paused
// block and pushes are reviewed again. review-loop must never send it.
func (b *bot) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resumed = true
	if b.paused != 0 {
		_ = b.w.Fake.EditIssueComment(b.paused, CodeRabbitWalkthrough)
		b.paused = 0
	}
}

// Resumed lists the engines someone resumed with `@coderabbitai resume`.
func (w *World) Resumed() []string {
	var out []string
	for _, b := range w.bots {
		b.mu.Lock()
		if b.resumed {
			out = append(out, b.name)
		}
		b.mu.Unlock()
	}
	return out
}

// openThread reports whether the newest thread posted for a scripted
// finding is still open: an incremental engine leaves it be. A thread
// resolved while its bad text remains is posted anew.
func (b *bot) openThread(id string) bool {
	b.w.mu.Lock()
	p, ok := b.w.posted[id]
	b.w.mu.Unlock()
	if !ok || p.engine != b.name {
		return false
	}
	for _, t := range b.w.Fake.PR(b.w.Owner, b.w.Repo, b.w.Number).Threads {
		if len(t.Comments) > 0 && t.Comments[0].ID == p.commentID {
			return !t.Resolved
		}
	}
	return false
}

// bodyPosted reports whether a body-only finding was already posted; the
// first call records it for the fixer.
func (b *bot) bodyPosted(f Finding) bool {
	b.w.mu.Lock()
	defer b.w.mu.Unlock()
	k := bodyKey(f.Path, title(f))
	if _, ok := b.w.byBody[k]; ok {
		return true
	}
	b.w.byBody[k] = f
	return false
}

// recordQuota notes a quota notice and the wait it states, for the
// scenario's quiet_during_quota check.
func (w *World) recordQuota(engine string, wait time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.quotas[engine] = append(w.quotas[engine], quotaWindow{at: w.clock.Now(), wait: wait})
}
