package builtin

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// The engines' texts of ENGINES.md "Round 3", read through the adapters
// and the loop's one clean rule (IsClean), on observations built from the
// real samples in testdata/engines.

const (
	head  = "c1feb0b3c1feb0b3c1feb0b3c1feb0b3c1feb0b3"
	older = "8440f06d8440f06d8440f06d8440f06d8440f06d"
)

var r3t0 = time.Date(2026, 8, 24, 1, 0, 0, 0, time.UTC)

var bots = map[string]github.Actor{
	"bugbot":     {Login: "cursor", DatabaseID: 206951365, IsBot: true},
	"copilot":    {Login: "copilot-pull-request-reviewer", DatabaseID: 175728472, IsBot: true},
	"claude":     {Login: "claude", DatabaseID: 209825114, IsBot: true},
	"gemini":     {Login: "gemini-code-assist", DatabaseID: 176961590, IsBot: true},
	"coderabbit": {Login: "coderabbitai", DatabaseID: 136622811, IsBot: true},
}

var registry = sync.OnceValues(func() (*engines.Registry, error) { return Registry(Options{}) })

func engine(t *testing.T, name string) engines.Engine {
	t.Helper()
	r, err := registry()
	if err != nil {
		t.Fatal(err)
	}
	e, ok := r.Lookup(name)
	if !ok {
		t.Fatalf("no engine %s", name)
	}
	return e
}

func review(engine string, id int64, sha, body string, at time.Duration) github.Review {
	return github.Review{DatabaseID: id, Author: bots[engine], CommitSHA: sha, State: "COMMENTED", Body: body, SubmittedAt: r3t0.Add(at)}
}

func comment(engine string, id int64, body string, at time.Duration) github.IssueComment {
	return github.IssueComment{DatabaseID: id, Author: bots[engine], Body: body, CreatedAt: r3t0.Add(at), UpdatedAt: r3t0.Add(at)}
}

func check(name, app, status, conclusion string, at time.Duration) github.CheckRun {
	return github.CheckRun{DatabaseID: 1 << 33, NodeID: "CR_" + name, Name: name, AppSlug: app, Status: status, Conclusion: conclusion,
		StartedAt: r3t0.Add(at), CompletedAt: r3t0.Add(at + time.Minute)}
}

func observation() *github.Observation {
	return &github.Observation{Owner: "o", Repo: "r", Number: 1, State: "OPEN", HeadSHA: head, Complete: true}
}

// cleanOf is the loop's verdict on the engine's view of obs, with a judge
// CLEAN recorded for prose engines (so only the adapter's reading decides).
func cleanOf(t *testing.T, name string, obs *github.Observation) (bool, string, loop.EngineView) {
	t.Helper()
	e := engine(t, name)
	return loopVerdict(t, name, e.Observe(obs, engines.Env{HasTriggerToken: true, Now: r3t0.Add(time.Hour)}))
}

// loopVerdict is the loop's clean rule on an engine's view, with a judge
// CLEAN recorded for prose engines.
func loopVerdict(t *testing.T, name string, v loop.EngineView) (bool, string, loop.EngineView) {
	t.Helper()
	st := state.New()
	st.Status = state.StatusActive
	st.EngineStates = map[string]state.EngineState{name: {TriggeredSHA: head, TriggeredAt: r3t0}}
	if v.Prose {
		st = loop.RecordJudge(st, v, head, loop.JudgeResult{Verdict: loop.JudgeClean})
	}
	ok, why := loop.IsClean(st, v, head)
	return ok, why, v
}

func block(t *testing.T, engine, prefix string, i int) string {
	t.Helper()
	bs := samples.Blocks(samples.Get(t, samples.Load(t, engine), prefix).Text)
	if i >= len(bs) {
		t.Fatalf("%s/%s has %d blocks", engine, prefix, len(bs))
	}
	return bs[i]
}

func TestRule_S8_GeminiSummaryPlaceholderIsNotTheFinishedReview(t *testing.T) {
	placeholder := block(t, "gemini", "06-", 0)
	codeReview := block(t, "gemini", "06-", 1)
	if !strings.Contains(placeholder, "I'm currently reviewing this pull request") || !strings.HasPrefix(strings.TrimSpace(codeReview), "## Code Review") {
		t.Fatal("sample 06 changed")
	}
	obs := observation()
	obs.Reviews = []github.Review{review("gemini", 1, head, placeholder, 0)}
	if ok, _, _ := cleanOf(t, "gemini", obs); ok {
		t.Fatal("Gemini's \"Summary of Changes\" placeholder review on the head reads CLEAN; it is not the finished review (S8)")
	}
	// The real "## Code Review" review minutes later is the finished one.
	obs.Reviews = append(obs.Reviews, review("gemini", 2, head, codeReview, 3*time.Minute))
	if ok, why, _ := cleanOf(t, "gemini", obs); !ok {
		t.Fatalf("the \"## Code Review\" review of the head with no finding is not clean: %s", why)
	}
}

func TestRule_S8_CodeRabbitRefusalWithAGreenStatusAndNoReviewOfTheHead(t *testing.T) {
	refusal := block(t, "coderabbit", "11-", 0)
	body := block(t, "coderabbit", "10-", 1) // its one finding's thread since resolved
	obs := observation()
	obs.Reviews = []github.Review{review("coderabbit", 1, older, body, 0)}
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, refusal, 30*time.Minute)}
	obs.CheckRuns = []github.CheckRun{check("CodeRabbit", "coderabbitai", "COMPLETED", "SUCCESS", 29*time.Minute)}
	if ok, _, _ := cleanOf(t, "coderabbit", obs); ok {
		t.Fatal("CodeRabbit's \"Action not completed … Already reviewed the last commit\" with a green CodeRabbit check and no review of the head reads CLEAN (S8)")
	}
}

func TestRule_S8_CodeRabbitReviewNamingAnotherCommitIsNotOfTheHead(t *testing.T) {
	// 10-… B names the commits it reviewed: "between fd38251… and 62126ba…".
	body := block(t, "coderabbit", "10-", 1)
	if !strings.Contains(body, "between fd382510c27873b3df547b5cfa674fcea6577ac4 and 62126ba863ed9483dca88ccf07d1a246fb18c571") {
		t.Fatal("sample 10 B changed")
	}
	// Strip its one finding's thread: the review is filed on the head but
	// says it reviewed 62126ba, an earlier commit.
	obs := observation()
	obs.Reviews = []github.Review{review("coderabbit", 1, head, strings.Replace(body, "Actionable comments posted: 1", "Actionable comments posted: 0", 1), 0)}
	obs.CheckRuns = []github.CheckRun{check("CodeRabbit", "coderabbitai", "COMPLETED", "SUCCESS", -time.Minute)}
	if ok, _, _ := cleanOf(t, "coderabbit", obs); ok {
		t.Fatal("a CodeRabbit review whose body says it reviewed another commit (\"between X and Y\") reads CLEAN for the head (S8)")
	}
}

func TestRule_S6_BugbotReviewBodyFoundNWithoutCheckCountOrThread(t *testing.T) {
	body := block(t, "bugbot", "10-", 0)
	if !strings.Contains(body, "found 1 potential issue") {
		t.Fatal("sample 10 changed")
	}
	obs := observation()
	obs.Reviews = []github.Review{review("bugbot", 1, head, body, 2*time.Minute)}
	cr := check("Cursor Bugbot", "cursor", "COMPLETED", "NEUTRAL", 0)
	cr.Title = "Bugbot Review"
	obs.CheckRuns = []github.CheckRun{cr}
	if ok, _, _ := cleanOf(t, "bugbot", obs); ok {
		t.Fatal("a Bugbot review body stating \"found 1 potential issue\" with no count in the check and no thread read reads CLEAN (S6)")
	}
}

func TestRule_S6_ClaudeManagedCheckStatesFoundNWithNoComment(t *testing.T) {
	line := block(t, "claude", "05-", 0)
	if !strings.Contains(line, "Code review found 4 potential issues") {
		t.Fatal("sample 05 changed")
	}
	obs := observation()
	cr := check("Claude Code Review", "claude", "COMPLETED", "NEUTRAL", 0)
	cr.Summary = line
	obs.CheckRuns = []github.CheckRun{cr}
	if ok, _, _ := cleanOf(t, "claude", obs); ok {
		t.Fatal("the managed Claude check states \"found 4\" with no comment posted and reads CLEAN on a judge's word (S6)")
	}
}

func TestRule_T8_CopilotQuotaInAReviewBodyIsACooldown(t *testing.T) {
	body := block(t, "copilot", "14-", 0)
	obs := observation()
	obs.Reviews = []github.Review{review("copilot", 1, head, body, 0)}
	_, _, v := cleanOf(t, "copilot", obs)
	if v.Material != loop.MaterialQuota || v.Quota == nil || !strings.Contains(v.Quota.Text, "quota limit") {
		t.Fatalf("Copilot's COMMENTED review \"… has reached their quota limit\" read as material %s, quota %+v; want a quota cooldown (T8)", v.Material, v.Quota)
	}
}

func TestRule_T8_CopilotFailedDynamicWorkflowCheckIsACooldown(t *testing.T) {
	for _, path := range []string{
		"dynamic/agents/copilot-pull-request-reviewer/copilot-pull-request-reviewer",
		"dynamic/copilot-pull-request-reviewer/copilot-pull-request-reviewer",
	} {
		obs := observation()
		cr := check("copilot-pull-request-reviewer", "github-actions", "COMPLETED", "FAILURE", 0)
		cr.WorkflowPath = path
		obs.CheckRuns = []github.CheckRun{cr}
		_, _, v := cleanOf(t, "copilot", obs)
		if v.Signal != loop.SignalDone || v.Material != loop.MaterialQuota || v.Quota == nil {
			t.Errorf("%s: a failed copilot-pull-request-reviewer check read as signal %s, material %s, quota %+v; want a quota cooldown (T8)", path, v.Signal, v.Material, v.Quota)
		}
	}
}

func TestRule_T8_BugbotLimitSentenceOnlyInTheCheck(t *testing.T) {
	limit := samples.Get(t, samples.Load(t, "bugbot"), "06-").Text
	obs := observation()
	cr := check("Cursor Bugbot", "cursor", "COMPLETED", "NEUTRAL", 0)
	cr.Title, cr.Summary = "Bugbot couldn't run - usage limit reached", limit
	obs.CheckRuns = []github.CheckRun{cr}
	_, _, v := cleanOf(t, "bugbot", obs)
	if v.Material != loop.MaterialQuota || v.Quota == nil {
		t.Fatalf("Bugbot's usage-limit sentence only in the check read as material %s (%s); want a quota cooldown (T8)", v.Material, v.MaterialNote)
	}
}

func TestRule_T8_CodeRabbitRateLimitInsideAFullReviewFinishedReply(t *testing.T) {
	// ENGINES.md round 3 quotes the notice only in part ("✅ Full review
	// finished." … "You're currently rate limited under our …"); no full
	// real text was found, so this reply is built from those words.
	reply := "<!-- This is an auto-generated reply by CodeRabbit -->\n✅ Full review finished.\n\nYou're currently rate limited under our plan's review limits."
	obs := observation()
	obs.Reviews = []github.Review{review("coderabbit", 1, older, block(t, "coderabbit", "08-", 0), 0)}
	obs.IssueComments = []github.IssueComment{comment("coderabbit", 5, reply, 30*time.Minute)}
	obs.CheckRuns = []github.CheckRun{check("CodeRabbit", "coderabbitai", "COMPLETED", "SUCCESS", 29*time.Minute)}
	ok, _, v := cleanOf(t, "coderabbit", obs)
	if ok || v.Material != loop.MaterialQuota || v.Quota == nil {
		t.Fatalf("a rate-limit notice inside \"Full review finished\" read as clean=%v, material %s; want a quota cooldown (T8)", ok, v.Material)
	}
}

func TestRule_S8_BugbotCheckNamesAndFailure(t *testing.T) {
	obs := observation()
	obs.CheckRuns = []github.CheckRun{check("Cursor / Cursor Bugbot", "cursor", "IN_PROGRESS", "", 0)}
	if _, _, v := cleanOf(t, "bugbot", obs); v.Signal != loop.SignalRunning {
		t.Errorf("a running \"Cursor / Cursor Bugbot\" check read as signal %s, want RUNNING", v.Signal)
	}
	obs.CheckRuns = []github.CheckRun{check("Cursor / Cursor Bugbot Autofix", "cursor", "IN_PROGRESS", "", 0)}
	if _, _, v := cleanOf(t, "bugbot", obs); v.Signal != loop.SignalNone {
		t.Errorf("the Autofix check is not the review: signal %s, want NONE", v.Signal)
	}
	obs.CheckRuns = []github.CheckRun{check("Cursor Bugbot", "cursor", "COMPLETED", "FAILURE", 0)}
	if _, _, v := cleanOf(t, "bugbot", obs); v.Material != loop.MaterialErrored {
		t.Errorf("a Bugbot check concluding failure with no review read as material %s, want ERRORED", v.Material)
	}
}

// MG2: GitHub files a check run created with GITHUB_TOKEN into an existing
// Actions check suite of the commit, so review-loop's own gate can show up
// as a job of an engine's workflow. It is never that engine's signal.
func TestRule_MG2_TheGateInAnEngineWorkflowSuiteIsNotItsSignal(t *testing.T) {
	gate := func(path string) github.CheckRun {
		cr := check(loop.GateName, "github-actions", "IN_PROGRESS", "", 10*time.Minute)
		cr.WorkflowPath = path
		return cr
	}
	t.Run("copilot", func(t *testing.T) {
		obs := observation()
		obs.Reviews = []github.Review{review("copilot", 1, head, block(t, "copilot", "04-", 1), 0)}
		for _, p := range []string{"dynamic/copilot-pull-request-reviewer/copilot-pull-request-reviewer", "dynamic/agents/copilot-pull-request-reviewer/copilot-pull-request-reviewer"} {
			obs.CheckRuns = []github.CheckRun{gate(p)}
			if _, _, v := cleanOf(t, "copilot", obs); v.Signal != loop.SignalDone {
				t.Errorf("%s: review-loop's gate in Copilot's suite read as Copilot's signal %s", p, v.Signal)
			}
		}
	})
	t.Run("claude", func(t *testing.T) {
		obs := observation()
		obs.CheckRuns = []github.CheckRun{gate(".github/workflows/claude-code-review.yml")}
		if _, _, v := cleanOf(t, "claude", obs); v.Signal != loop.SignalNone {
			t.Errorf("review-loop's gate in Claude's workflow suite read as Claude's signal %s", v.Signal)
		}
	})
}
