package builtin

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// The texts of ENGINES.md "Round 4", read through the adapters and the
// loop's one clean rule, with the loop's trigger of the head at trigger.

var trigger = r3t0

// cleanAfter is cleanOf with the loop's trigger of the head recorded at
// trigger (S10 reads it: a signal from before the trigger is an older run).
func cleanAfter(t *testing.T, name string, obs *github.Observation, trig engines.Trigger) (bool, string, loop.EngineView) {
	t.Helper()
	e := engine(t, name)
	env := engines.Env{HasTriggerToken: true, Now: r3t0.Add(time.Hour), Triggers: map[string]engines.Trigger{name: trig}}
	v := e.Observe(obs, env)
	st := state.New()
	st.Status = state.StatusActive
	st.EngineStates = map[string]state.EngineState{name: {TriggeredSHA: head, TriggeredAt: trig.At}}
	if v.Prose {
		st = loop.RecordJudge(st, v, head, loop.JudgeResult{Verdict: loop.JudgeClean})
	}
	ok, why := loop.IsClean(st, v, head)
	return ok, why, v
}

func trig() engines.Trigger {
	return engines.Trigger{SHA: head, At: trigger.Add(300 * time.Millisecond)}
}

func dynamicCheck(status, conclusion string, at time.Duration) github.CheckRun {
	cr := check("copilot-pull-request-reviewer", "github-actions", status, conclusion, at)
	cr.WorkflowPath = "dynamic/copilot-pull-request-reviewer/copilot-pull-request-reviewer"
	return cr
}

// withSHAs puts the test's commits where a real sample names its own.
func withSHAs(text string, pairs ...string) string {
	return strings.NewReplacer(pairs...).Replace(text)
}

func TestRule_S10_CopilotApprovalRecommendedWithItsDynamicCheckIsClean(t *testing.T) {
	body := block(t, "copilot", "16-", 0)
	obs := observation()
	obs.Reviews = []github.Review{review("copilot", 21, head, body, 3*time.Minute)}
	obs.CheckRuns = []github.CheckRun{dynamicCheck("COMPLETED", "SUCCESS", time.Minute)}
	if ok, why, v := cleanAfter(t, "copilot", obs, trig()); !ok {
		t.Fatalf("Copilot's 2026-09 \"Approval recommended\" review of the head, with its dynamic check run concluded successfully after the trigger, is not CLEAN: %s (proof %+v)", why, v.Proof)
	}
	// Without the completion signal the wording alone proves nothing: it
	// is not an S8 allow-listed kind.
	obs.CheckRuns = nil
	if ok, _, _ := cleanAfter(t, "copilot", obs, trig()); ok {
		t.Fatal("the 2026-09 overview without Copilot's completion signal reads CLEAN")
	}
	// A signal that concluded before the loop's trigger is an older run.
	obs.CheckRuns = []github.CheckRun{dynamicCheck("COMPLETED", "SUCCESS", -3*time.Minute)}
	if ok, _, _ := cleanAfter(t, "copilot", obs, trig()); ok {
		t.Fatal("a dynamic check run completed before the trigger proves the review")
	}
	// A failed run is a quota or error, never clean.
	obs.CheckRuns = []github.CheckRun{dynamicCheck("COMPLETED", "FAILURE", time.Minute)}
	if ok, _, _ := cleanAfter(t, "copilot", obs, trig()); ok {
		t.Fatal("a failed dynamic check run reads CLEAN")
	}
}

func TestRule_S10_CopilotCommentsGeneratedIsAStatedCount(t *testing.T) {
	body := strings.Replace(block(t, "copilot", "16-", 0), "**Comments generated:** 0", "**Comments generated:** 2", 1)
	obs := observation()
	obs.Reviews = []github.Review{review("copilot", 21, head, body, 3*time.Minute)}
	obs.CheckRuns = []github.CheckRun{dynamicCheck("COMPLETED", "SUCCESS", time.Minute)}
	if ok, _, v := cleanAfter(t, "copilot", obs, trig()); ok || v.Stated == nil || v.Stated.N != 2 {
		t.Fatalf("\"**Comments generated:** 2\" with no thread read: clean %v, stated %+v; want STILL_FINDING with 2 stated (S6)", ok, v.Stated)
	}
}

func TestRule_S10_BugbotCheckOnlyCleanRunIsAFinishedReview(t *testing.T) {
	obs := observation()
	cr := check("Cursor Bugbot", "cursor", "COMPLETED", "SUCCESS", time.Minute)
	cr.Title, cr.Summary = "Bugbot Review", "Bugbot completed review - no issues found! ✅" // bugbot/08-… B #171
	obs.CheckRuns = []github.CheckRun{cr}
	if ok, why, _ := cleanAfter(t, "bugbot", obs, trig()); !ok {
		t.Fatalf("an API-triggered clean Bugbot run (no review, check success on the head with its summary) is not CLEAN: %s", why)
	}
	for _, c := range []struct{ name, conclusion, summary string }{
		{"neutral with findings elsewhere", "NEUTRAL", "Bugbot completed review - no issues found. 1 previously reported issue remain unresolved."},
		{"cancelled", "NEUTRAL", "**Result:** Bugbot run cancelled because of a new commit"},
		{"usage limit on a green check", "SUCCESS", "Bugbot couldn't run - usage limit reached"},
		{"cancelled wording on a green check", "SUCCESS", "**Result:** Bugbot run cancelled because of a new commit"},
		{"no output at all", "SUCCESS", ""},
	} {
		cr := check("Cursor Bugbot", "cursor", "COMPLETED", c.conclusion, time.Minute)
		cr.Summary = c.summary
		obs.CheckRuns = []github.CheckRun{cr}
		if ok, _, _ := cleanAfter(t, "bugbot", obs, trig()); ok {
			t.Errorf("%s: Bugbot reads CLEAN", c.name)
		}
	}
}

func TestRule_S10_CodeRabbitCleanIncrementalReviewPostsNoReviewObject(t *testing.T) {
	const old1, old2 = "5e57a72dd97e969fb5b897823175e0999f252dad", "1e4bf26ace0f14ede910bc7f2339152cff4e05cc"
	walk := block(t, "coderabbit", "10-", 0) // the recent-review block: "No actionable comments were generated …"
	earlier := withSHAs(block(t, "coderabbit", "10-", 1), "fd382510c27873b3df547b5cfa674fcea6577ac4", older, "62126ba863ed9483dca88ccf07d1a246fb18c571", older)
	base := func() *github.Observation {
		obs := observation()
		obs.Reviews = []github.Review{review("coderabbit", 1, older, earlier, 0)}
		obs.CheckRuns = []github.CheckRun{check("CodeRabbit", "coderabbitai", "COMPLETED", "SUCCESS", time.Minute)}
		return obs
	}
	obs := base()
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, withSHAs(walk, old1, older, old2, head), 2*time.Minute)}
	if ok, why, v := cleanAfter(t, "coderabbit", obs, trig()); !ok {
		t.Fatalf("CodeRabbit's clean incremental review (green check on the head, walkthrough's recent review \"between <old> and <head>\", no review object) is not CLEAN: %s (proof %+v)", why, v.Proof)
	}

	// The same words naming an older commit are an older review.
	obs = base()
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, withSHAs(walk, old1, older, old2, older), 2*time.Minute)}
	if ok, _, _ := cleanAfter(t, "coderabbit", obs, trig()); ok {
		t.Fatal("a recent-review block naming an older commit proves the head")
	}

	// The coverage marker names the head: proof too (coderabbit/03-…, 07-…).
	obs = base()
	cov := withSHAs(block(t, "coderabbit", "03-", 1), "97a0ae7bb19c0e8dcc62f9e7a6fac81bd5a686e3", head)
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, cov, 2*time.Minute)}
	if ok, why, _ := cleanAfter(t, "coderabbit", obs, trig()); !ok {
		t.Fatalf("a walkthrough whose final_review_risk_coverage marker names the head is not CLEAN: %s", why)
	}

	// Exceptions win. "Already reviewed the last commit" after it:
	obs = base()
	obs.IssueComments = []github.IssueComment{
		comment("coderabbit", 5, withSHAs(walk, old1, older, old2, head), 2*time.Minute),
		comment("coderabbit", 6, block(t, "coderabbit", "11-", 0), 4*time.Minute),
	}
	if ok, _, _ := cleanAfter(t, "coderabbit", obs, trig()); ok {
		t.Fatal("a refusal newer than the walkthrough reads CLEAN: exceptions must win")
	}
	// The walkthrough in its "review in progress" state names the head too.
	obs = base()
	running := withSHAs(block(t, "coderabbit", "14-", 0), "6670458327af02da6faa044a0daf0775971cf7b1", older, "197439edf6987069adfc99af56a76b7e8aad7057", head)
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, running, 2*time.Minute)}
	if ok, _, v := cleanAfter(t, "coderabbit", obs, trig()); ok || v.Signal == loop.SignalDone {
		t.Fatalf("the in-progress walkthrough naming the head: clean %v, signal %s; want a running review", ok, v.Signal)
	}
	// The full-review fallback notice for the head: a review is running.
	obs = base()
	fallback := withSHAs(block(t, "coderabbit", "13-", 0), "9d4e5ddf72444505cbac4d20678108ed53a4b8e0", head)
	obs.IssueComments = []github.IssueComment{
		comment("coderabbit", 5, withSHAs(walk, old1, older, old2, head), 2*time.Minute),
		comment("coderabbit", 6, fallback, 3*time.Minute),
	}
	if ok, _, v := cleanAfter(t, "coderabbit", obs, trig()); ok || v.Signal == loop.SignalDone {
		t.Fatalf("the full-review fallback notice for the head: clean %v, signal %s; want a running review", ok, v.Signal)
	}
	// A fallback notice for another commit says nothing of the head.
	obs.IssueComments[1] = comment("coderabbit", 6, block(t, "coderabbit", "13-", 0), 3*time.Minute)
	if ok, why, _ := cleanAfter(t, "coderabbit", obs, trig()); !ok {
		t.Fatalf("a fallback notice for another head blocks the head's proof: %s", why)
	}
}

func TestRule_S10_CodeRabbitBodyOnlyNitpickIsAFinishedReviewWithFindings(t *testing.T) {
	body := withSHAs(block(t, "coderabbit", "15-", 0), "96a8cf24ba521bca8789568a35b41a2f321bee17", head)
	obs := observation()
	obs.Reviews = []github.Review{review("coderabbit", 1, head, body, 2*time.Minute)}
	obs.CheckRuns = []github.CheckRun{check("CodeRabbit", "coderabbitai", "COMPLETED", "SUCCESS", time.Minute)}
	ok, why, v := cleanAfter(t, "coderabbit", obs, trig())
	if ok || !loop.Proven(v, head) || len(loop.ActiveFindings(v, head)) != 1 {
		t.Fatalf("a review body whose only finding is a nitpick: clean %v (%s), proven %v, %d active; want a finished review with 1 finding", ok, why, loop.Proven(v, head), len(loop.ActiveFindings(v, head)))
	}
}

func TestRule_S10_ClaudeAutomationModePostsDuringItsRun(t *testing.T) {
	job := func(conclusion string, start time.Duration) github.CheckRun {
		cr := check("claude-review", "github-actions", "COMPLETED", conclusion, start)
		cr.WorkflowPath = ".github/workflows/claude-code-review.yml"
		return cr
	}
	words := "Looks good to me — the parser change is narrow and the new tests cover both branches. Nothing blocking."
	obs := observation()
	obs.CheckRuns = []github.CheckRun{job("SUCCESS", time.Minute)}
	obs.Reviews = []github.Review{review("claude", 31, head, words, time.Minute+30*time.Second)}
	if ok, why, v := cleanAfter(t, "claude", obs, trig()); !ok {
		t.Fatalf("claude-code-action in automation mode (a review in its own words posted during its successful run, no tracking comment) is not CLEAN after a CLEAN judge: %s (proof %+v)", why, v.Proof)
	}
	// The same by `gh pr comment`: an issue comment during the run.
	obs.Reviews = nil
	obs.IssueComments = []github.IssueComment{comment("claude", 32, words, time.Minute+30*time.Second)}
	if ok, why, _ := cleanAfter(t, "claude", obs, trig()); !ok {
		t.Fatalf("an automation-mode comment posted during the successful run is not proof: %s", why)
	}
	// A post from before the run is no post of the run.
	obs.IssueComments = []github.IssueComment{comment("claude", 32, words, 30*time.Second)}
	if ok, _, _ := cleanAfter(t, "claude", obs, trig()); ok {
		t.Fatal("a Claude post from before its run reads CLEAN")
	}
	// A failed run is not a finished review.
	obs.CheckRuns = []github.CheckRun{job("FAILURE", time.Minute)}
	obs.IssueComments = []github.IssueComment{comment("claude", 32, words, time.Minute+30*time.Second)}
	if ok, _, _ := cleanAfter(t, "claude", obs, trig()); ok {
		t.Fatal("a failed Claude run reads CLEAN")
	}
	// The tracking comment still working is an exception.
	obs.CheckRuns = []github.CheckRun{job("SUCCESS", time.Minute)}
	obs.IssueComments = []github.IssueComment{comment("claude", 33, "**Claude working…** <img src=\"spinner.gif\" />", time.Minute+30*time.Second)}
	if ok, _, _ := cleanAfter(t, "claude", obs, trig()); ok {
		t.Fatal("Claude's working tracking comment reads CLEAN")
	}
}

func TestRule_S10_BugbotNewWordsAndStaleBody(t *testing.T) {
	p := engine(t, "bugbot").(engines.Prover)
	if r := p.Classify(engines.SurfaceReview, block(t, "bugbot", "11-", 2)); !r.Proof || r.Stated != 1 {
		t.Errorf("\"reviewed your changes using default effort and found 1 potential issue\": %+v, want a finished review stating 1", r)
	}
	if r := p.Classify(engines.SurfaceReview, block(t, "bugbot", "11-", 0)); r.Proof || r.Kind != "stale-review" {
		t.Errorf("\"Stale Bugbot comment from a previous run.\": %+v, want a stale body, no proof", r)
	}
	// A stale body on the head with a green check is no review either.
	obs := observation()
	obs.Reviews = []github.Review{review("bugbot", 41, head, block(t, "bugbot", "11-", 0), 2*time.Minute)}
	obs.CheckRuns = []github.CheckRun{check("Cursor Bugbot", "cursor", "COMPLETED", "SUCCESS", time.Minute)}
	if ok, _, _ := cleanAfter(t, "bugbot", obs, trig()); ok {
		t.Fatal("a stale Bugbot body on the head reads CLEAN")
	}
}

func TestRule_S6_BugbotReviewBodyStatesTotalUnresolved(t *testing.T) {
	body := block(t, "bugbot", "11-", 1)
	obs := observation()
	obs.Reviews = []github.Review{review("bugbot", 42, head, body, 2*time.Minute)}
	obs.Threads = []github.Thread{{NodeID: "T1", Path: "a.go", Line: 3, Comments: []github.ReviewComment{{DatabaseID: 501, Author: bots["bugbot"], Body: "### Bug\n\n**Medium Severity**", ReviewDatabaseID: 42, CommitSHA: head}}}}
	cr := check("Cursor Bugbot", "cursor", "COMPLETED", "NEUTRAL", time.Minute)
	obs.CheckRuns = []github.CheckRun{cr}
	ok, why, v := cleanAfter(t, "bugbot", obs, trig())
	if ok || v.Stated == nil || v.Stated.N != 2 {
		t.Fatalf("review body \"There are 2 total unresolved issues (including 1 from previous review)\" with 1 thread: clean %v (%s), stated %+v; want 2 stated, not clean (S6)", ok, why, v.Stated)
	}
}

func TestRule_S10_CodeRabbitsCommitStatusIsItsCompletionSignal(t *testing.T) {
	const old1, old2 = "5e57a72dd97e969fb5b897823175e0999f252dad", "1e4bf26ace0f14ede910bc7f2339152cff4e05cc"
	walk := withSHAs(block(t, "coderabbit", "10-", 0), old1, older, old2, head)
	status := func(state, desc string, by github.Actor) github.CommitStatus {
		return github.CommitStatus{NodeID: "SC_1", Context: "CodeRabbit", State: state, Description: desc, Creator: by, CreatedAt: r3t0.Add(2 * time.Minute)}
	}
	obs := observation()
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, walk, 2*time.Minute)}
	obs.Statuses = []github.CommitStatus{status("SUCCESS", "Review completed", bots["coderabbit"])}
	if ok, why, _ := cleanAfter(t, "coderabbit", obs, trig()); !ok {
		t.Fatalf("CodeRabbit's clean incremental review reported by a green commit status (no check run) is not CLEAN: %s", why)
	}
	obs.Statuses = []github.CommitStatus{status("PENDING", "Review in progress", bots["coderabbit"])}
	if ok, _, v := cleanAfter(t, "coderabbit", obs, trig()); ok || v.Signal != loop.SignalRunning {
		t.Fatalf("a pending CodeRabbit status: clean %v, signal %s; want RUNNING", ok, v.Signal)
	}
	obs.Statuses = []github.CommitStatus{status("SUCCESS", "Review rate limited", bots["coderabbit"])}
	if ok, _, v := cleanAfter(t, "coderabbit", obs, trig()); ok || v.Material != loop.MaterialQuota {
		t.Fatalf("a green status saying \"Review rate limited\": clean %v, material %s; want QUOTA", ok, v.Material)
	}
	// A status of that name set by anyone else is not CodeRabbit's.
	user := github.Actor{Login: "coderabbitai", DatabaseID: 99, IsBot: false}
	obs.Statuses = []github.CommitStatus{status("SUCCESS", "Review completed", user)}
	if ok, _, _ := cleanAfter(t, "coderabbit", obs, trig()); ok {
		t.Fatal("a \"CodeRabbit\" status set by a user reads as CodeRabbit's signal")
	}
}

// An exception older than the engine's head-bound output is over: a rate
// limit CodeRabbit announced before its clean incremental review of the
// head (after the cooldown, the loop asked again) no longer speaks for
// it. One posted after it wins.
func TestRule_S10_CodeRabbitAnOlderRateLimitDoesNotOutliveTheHeadsReview(t *testing.T) {
	const old1, old2 = "5e57a72dd97e969fb5b897823175e0999f252dad", "1e4bf26ace0f14ede910bc7f2339152cff4e05cc"
	walk := withSHAs(block(t, "coderabbit", "10-", 0), old1, older, old2, head)
	limit := block(t, "coderabbit", "04-", 0)
	obs := observation()
	obs.CheckRuns = []github.CheckRun{check("CodeRabbit", "coderabbitai", "COMPLETED", "SUCCESS", 61*time.Minute)}
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 4, limit, time.Minute), comment("coderabbit", 5, walk, 62*time.Minute)}
	later := engines.Trigger{SHA: head, At: trigger.Add(60 * time.Minute)}
	if ok, why, v := cleanAfter(t, "coderabbit", obs, later); !ok {
		t.Fatalf("a rate limit announced before CodeRabbit's clean review of the head keeps it from CLEAN: %s (material %s)", why, v.Material)
	}
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, walk, 62*time.Minute), comment("coderabbit", 4, limit, 63*time.Minute)}
	if ok, _, v := cleanAfter(t, "coderabbit", obs, later); ok || v.Material != loop.MaterialQuota {
		t.Fatalf("a rate limit after the review of the head: clean %v, material %s; want QUOTA", ok, v.Material)
	}
}

// Exceptions win over the structure: a Copilot review that says it could
// not review, in words no sample has shown yet, with its dynamic check
// green, is no finished review.
func TestRule_S10_CopilotRefusalWordsWinOverAGreenDynamicCheck(t *testing.T) {
	for _, body := range []string{
		"Copilot could not review this pull request because the diff exceeds the maximum size.",
		"Copilot is unable to review this pull request: it changes too many files.",
		"Copilot wasn’t able to review this pull request.",
	} {
		obs := observation()
		obs.Reviews = []github.Review{review("copilot", 21, head, body, 3*time.Minute)}
		obs.CheckRuns = []github.CheckRun{dynamicCheck("COMPLETED", "SUCCESS", time.Minute)}
		if ok, _, v := cleanAfter(t, "copilot", obs, trig()); ok || loop.Proven(v, head) {
			t.Errorf("%q with a green dynamic check: clean %v, proof %+v", body, ok, v.Proof)
		}
	}
}

func TestRule_S6_BugbotCleanReviewBodyStillStatesTheTotal(t *testing.T) {
	p := engine(t, "bugbot").(engines.Prover)
	body := "✅ Bugbot reviewed your changes and found no new issues!\n\nThere is 1 total unresolved issue (including 1 from previous review)."
	if r := p.Classify(engines.SurfaceReview, body); !r.Proof || r.Stated != 1 {
		t.Fatalf("a clean Bugbot body stating 1 total unresolved issue: %+v, want a finished review stating 1 (S6)", r)
	}
}
