package sim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/engines/copilot"
	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

const scenarioDir = "../../testdata/scenarios"

func TestEveryScenarioLoadsAndValidates(t *testing.T) {
	t.Parallel()
	scs, err := LoadScenarios(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) < 30 {
		t.Errorf("%d scenarios, want at least 30", len(scs))
	}
	for _, sc := range scs {
		for _, e := range sortedKeys(sc.Expect.Verdicts) {
			if _, ok := sc.Engines[e]; !ok {
				t.Errorf("%s: verdict for unscripted engine %s", sc.Name, e)
			}
		}
	}
}

func TestLoadScenarioNamesTheUnknownFieldAndTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "x1-bad.yaml")
	doc := "name: x1-bad\ndescription: d\nrules: [B1]\npr:\n  files: {a.go: x}\n  colour: red\nengines: {bugbot: {}}\nexpect: {end_reason: clean}\n"
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScenario(p)
	if err == nil || !strings.Contains(err.Error(), "colour") || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v, want one naming colour and %s", err, p)
	}
}

func TestValidationJoinsEveryProblem(t *testing.T) {
	t.Parallel()
	doc := `name: x2-bad
description: d
rules: [nope]
pr: {files: {calc/calc.go: "return a"}}
engines:
  bugbot:
    rounds:
      - findings:
          - {id: f1, path: calc/calc.go, line: 1, title: t, bad: "not there", suggestion: x}
  watson: {}
expect: {end_reason: done, verdicts: {bugbot: GREEN}}
`
	_, err := ParseScenario([]byte(doc))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"rules", "not there", "watson", "end_reason", "GREEN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// botScenario is a one-engine scenario on the calc module.
func botScenario(t *testing.T, engine, rounds string) Scenario {
	t.Helper()
	doc := `name: sim-test
description: one bot
rules: [S1]
tokens: {trigger: true}
repository:
  files:
    go.mod: "module example.com/calc\n\ngo 1.22\n"
pr:
  files:
    calc/calc.go: "package calc\n\nfunc Div(a, b int) int {\n\treturn a / b\n}\n\nfunc Max(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
engines:
  ` + engine + `:
    rounds:
` + rounds + `
expect: {end_reason: clean}
`
	sc, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

const twoFindings = `      - latency: 2m
        findings:
          - {id: div, path: calc/calc.go, line: 4, title: Div panics on zero, severity: high, body: "b may be zero.", bad: "return a / b", suggestion: "\treturn a / max(b, 1)"}
          - {id: max, path: calc/calc.go, start_line: 8, line: 9, title: Max is swapped, severity: medium, body: "returns the smaller value.", bad: "return a\n", suggestion: "\t\treturn b"}
`

func newWorld(t *testing.T, sc Scenario) (*World, *github.Client, *github.Client) {
	t.Helper()
	w, err := NewWorld(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	mk := func(tok string) *github.Client {
		c, err := github.New(github.Options{Token: tok, APIURL: w.Fake.URL(), GraphQLURL: w.Fake.GraphQLURL(), MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return w, mk(w.Tokens.Action), mk(w.Tokens.Trigger)
}

func observe(t *testing.T, w *World, c *github.Client) *github.Observation {
	t.Helper()
	obs, err := c.Observe(context.Background(), w.Owner, w.Repo, w.Number)
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

// checkStatus is the status of the newest check run of that name: each
// review run is a check run of its own.
func checkStatus(w *World, name string) string {
	got := "none"
	for _, cr := range w.Fake.PR(w.Owner, w.Repo, w.Number).CheckRuns {
		if cr.Name == name {
			got = cr.Status + "/" + cr.Conclusion
		}
	}
	return got
}

func eventNames(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

func byKeyOrTitle(fs []loop.Finding) map[string]loop.Finding {
	out := map[string]loop.Finding{}
	for _, f := range fs {
		out[f.Title] = f
	}
	return out
}

func TestBugbotReviewsOnOpenAndOnCommentAndTheAdapterReadsIt(t *testing.T) {
	t.Parallel()
	w, gh, _ := newWorld(t, botScenario(t, Bugbot, twoFindings))
	if got := checkStatus(w, BugbotCheck); got != "QUEUED/" {
		t.Fatalf("check run after PR open %s, want QUEUED", got)
	}
	w.Advance(time.Minute)
	if got := checkStatus(w, BugbotCheck); got != "IN_PROGRESS/" {
		t.Fatalf("check run after 1m %s, want IN_PROGRESS", got)
	}
	if n := len(w.Pending()); n != 0 {
		t.Fatalf("%d events before completion", n)
	}
	w.Advance(time.Minute)
	if got := checkStatus(w, BugbotCheck); got != "COMPLETED/NEUTRAL" {
		t.Fatalf("check run after 2m %s, want COMPLETED/NEUTRAL", got)
	}
	evs := w.Drain()
	if got := eventNames(evs); !slices.Equal(got, []string{"pull_request_review", "check_run"}) {
		t.Fatalf("events %v", got)
	}
	wake, err := event.Parse("check_run", evs[1].Payload, event.Config{WatchedCheckRuns: []string{BugbotCheck}})
	if err != nil || wake.Kind != event.KindEngineSignal || !slices.Equal(wake.PRs, []int{w.Number}) {
		t.Fatalf("check_run wake %+v, %v", wake, err)
	}

	obs := observe(t, w, gh)
	v := bugbot.New().Observe(obs, engines.Env{HasTriggerToken: true})
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK {
		t.Fatalf("signal %s material %s (%s)", v.Signal, v.Material, v.MaterialNote)
	}
	got := byKeyOrTitle(v.Findings)
	div, ok := got["Div panics on zero"]
	if !ok || div.Key != bugID("div") || div.Severity != loop.SeverityHigh || div.Line != 4 || div.Body != "b may be zero." {
		t.Fatalf("findings %+v", v.Findings)
	}
	if m := got["Max is swapped"]; m.StartLine != 8 || m.Line != 9 || m.Severity != loop.SeverityMedium {
		t.Fatalf("max finding %+v", m)
	}
}

func TestBugbotIgnoresABotPostedTrigger(t *testing.T) {
	t.Parallel()
	w, gh, user := newWorld(t, botScenario(t, Bugbot, "      - clean: true\n      - clean: true\n"))
	w.Advance(5 * time.Minute)
	w.Drain()
	reviews := func() int { return len(w.Fake.PR(w.Owner, w.Repo, w.Number).Reviews) }
	if reviews() != 1 {
		t.Fatalf("%d reviews after open", reviews())
	}
	if _, err := gh.CreateIssueComment(context.Background(), w.Owner, w.Repo, w.Number, "bugbot run"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(5 * time.Minute)
	if reviews() != 1 || len(w.Drain()) != 0 {
		t.Fatalf("Bugbot reacted to a bot's trigger: %d reviews", reviews())
	}
	if _, err := user.CreateIssueComment(context.Background(), w.Owner, w.Repo, w.Number, "bugbot run"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(5 * time.Minute)
	if reviews() != 2 {
		t.Fatalf("Bugbot ignored a user's trigger: %d reviews", reviews())
	}
	if n := w.Triggers()[Bugbot][w.Fake.HeadSHA(w.Owner, w.Repo, w.Number)]; n != 2 {
		t.Fatalf("%d triggers counted, want both comments", n)
	}
}

func TestFixedFindingsDisappearAndOthersComeBackWithTheSameBugID(t *testing.T) {
	t.Parallel()
	w, gh, _ := newWorld(t, botScenario(t, Bugbot, twoFindings))
	w.Advance(2 * time.Minute)
	w.Drain()
	fixed := "package calc\n\nfunc Div(a, b int) int {\n\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn a / max(b, 1)\n}\n\nfunc Max(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	if _, err := w.Fake.PushCommit(w.Owner, w.Repo, "feature", map[string]string{"calc/calc.go": fixed}, "fix div"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	if got := checkStatus(w, BugbotCheck); got != "QUEUED/" {
		t.Fatalf("check run on the new head %s, want QUEUED", got)
	}
	w.Advance(2 * time.Minute)
	obs := observe(t, w, gh)
	v := bugbot.New().Observe(obs, engines.Env{HasTriggerToken: true})
	var onHead []loop.Finding
	for _, f := range v.Findings {
		if f.ReviewSHA == obs.HeadSHA {
			onHead = append(onHead, f)
		}
	}
	if len(onHead) != 1 || onHead[0].Key != bugID("max") || onHead[0].Line != 12 {
		t.Fatalf("findings on the new head %+v, want only max, moved to line 12", onHead)
	}
	if len(v.Findings) != 3 {
		t.Fatalf("%d open threads, want the 2 old ones and 1 re-post", len(v.Findings))
	}
	if !strings.Contains(w.Fake.PR(w.Owner, w.Repo, w.Number).Reviews[1].Body, "found 1 potential issue") {
		t.Fatal("second summary does not count one issue")
	}
}

func TestCopilotReviewsOnRequestWithSuggestions(t *testing.T) {
	t.Parallel()
	w, gh, _ := newWorld(t, botScenario(t, Copilot, twoFindings+"        low_confidence: 1\n"))
	w.Advance(10 * time.Minute)
	if n := len(w.Fake.PR(w.Owner, w.Repo, w.Number).Reviews); n != 0 {
		t.Fatalf("Copilot reviewed without a request: %d reviews", n)
	}
	if err := gh.RequestCopilotReview(context.Background(), w.Owner, w.Repo, w.Number); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	if got := checkStatus(w, CopilotCheck); got != "QUEUED/" {
		t.Fatalf("check %s, want QUEUED", got)
	}
	w.Advance(time.Minute)
	w.Advance(time.Minute)
	evs := w.Drain()
	if got := eventNames(evs); !slices.Equal(got, []string{"pull_request_review"}) {
		t.Fatalf("events %v (an Actions check run raises no check_run event)", got)
	}
	wake, err := event.Parse("pull_request_review", evs[0].Payload, event.Config{})
	if err != nil || wake.Kind != event.KindEngineSignal {
		t.Fatalf("review wake %+v %v", wake, err)
	}
	obs := observe(t, w, gh)
	v := copilot.New().Observe(obs, engines.Env{})
	if len(v.Findings) != 2 || v.LowConfidence != 1 {
		t.Fatalf("findings %+v low %d", v.Findings, v.LowConfidence)
	}
	for _, f := range v.Findings {
		if !strings.Contains(f.Body, "```suggestion\n") || f.ReviewID != v.LatestReviewID {
			t.Errorf("finding %+v lacks a suggestion or the review id", f)
		}
	}
	if ov := copilot.ParseOverview(obs.Reviews[0].Body); ov.Kind != copilot.KindClassic || ov.Comments != 2 {
		t.Fatalf("overview %+v", ov)
	}
	if slices.Contains(obs.RequestedReviewers, CopilotReviewerLogin) {
		t.Log("the fake keeps Copilot requested after its review; the adapter then reads RUNNING")
	} else if v.Signal != loop.SignalDone {
		t.Fatalf("signal %s", v.Signal)
	}
}

func TestCopilotErrorBodyReadsAsErrored(t *testing.T) {
	t.Parallel()
	w, gh, _ := newWorld(t, botScenario(t, Copilot, "      - error: true\n"))
	if err := gh.RequestCopilotReview(context.Background(), w.Owner, w.Repo, w.Number); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(3 * time.Minute)
	obs := observe(t, w, gh)
	if ov := copilot.ParseOverview(obs.Reviews[0].Body); ov.Kind != copilot.KindError {
		t.Fatalf("overview %+v", ov)
	}
}

func claudeEnv(w *World) engines.Env {
	return engines.Env{HasTriggerToken: true, WorkflowFiles: []engines.WorkflowFile{{Path: ClaudeWorkflowPath, Content: ClaudeWorkflow}}}
}

func TestClaudeReviewsOnCommentThenPostsTheCleanSummary(t *testing.T) {
	t.Parallel()
	rounds := `      - findings:
          - {id: div, path: calc/calc.go, line: 4, title: Div panics on zero, body: "b may be zero.", bad: "return a / b", suggestion: "\treturn a / max(b, 1)"}
      - clean: true
`
	w, gh, user := newWorld(t, botScenario(t, Claude, rounds))
	if got := checkStatus(w, ClaudeJob); got != "QUEUED/" {
		t.Fatalf("job on open %s", got)
	}
	w.Advance(2 * time.Minute)
	evs := w.Drain()
	if got := eventNames(evs); !slices.Equal(got, []string{"pull_request_review", "workflow_run"}) {
		t.Fatalf("events %v", got)
	}
	wake, err := event.Parse("workflow_run", evs[1].Payload, event.Config{WatchedWorkflows: []string{ClaudeWorkflowName}})
	if err != nil || wake.Kind != event.KindEngineSignal {
		t.Fatalf("workflow_run wake %+v %v", wake, err)
	}
	c := claude.New(claude.Options{})
	v := c.Observe(observe(t, w, gh), claudeEnv(w))
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK || len(v.Findings) != 1 || !strings.Contains(v.Findings[0].Body, "```suggestion") {
		t.Fatalf("view %s %s %q findings %+v", v.Signal, v.Material, v.MaterialNote, v.Findings)
	}

	// A comment-triggered workflow runs from the default branch: its job's
	// check run and workflow run hang off the default branch's head, and
	// the PR head keeps only the first, push-triggered run.
	if _, err := user.CreateIssueComment(context.Background(), w.Owner, w.Repo, w.Number, "@claude review once"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	if got := checkStatus(w, ClaudeJob); got != "COMPLETED/SUCCESS" {
		t.Fatalf("job on the PR head after @claude review once %s, want the first run only", got)
	}
	mainSHA := w.Fake.BranchSHA(w.Owner, w.Repo, "")
	runs := w.Fake.WorkflowRuns(w.Owner, w.Repo)
	if n := len(runs); n != 2 || runs[1].Event != "issue_comment" || runs[1].HeadSHA != mainSHA || runs[1].Status != "queued" ||
		len(runs[1].PRs) != 0 || runs[1].Actor != TriggerLogin || runs[0].Event != "pull_request" || runs[0].PRs[0] != w.Number {
		t.Fatalf("workflow runs %+v, want the pull_request run and a queued issue_comment run on %s", runs, short(mainSHA))
	}
	w.Advance(2 * time.Minute)
	evs = w.Drain()
	last := evs[len(evs)-1]
	wake, err = event.Parse(last.Name, last.Payload, event.Config{WatchedWorkflows: []string{ClaudeWorkflowName}})
	if err != nil || wake.Event != "workflow_run" || wake.HeadSHA != mainSHA || len(wake.PRs) != 0 || !wake.NeedsLookup() {
		t.Fatalf("workflow_run wake %+v %v, want one on %s naming no PR", wake, err, short(mainSHA))
	}
	obs := observe(t, w, gh)
	env := claudeEnv(w)
	for _, ic := range obs.IssueComments {
		if ic.Body == "@claude review once" {
			env.Triggers = map[string]engines.Trigger{claude.Name: {SHA: obs.HeadSHA, At: w.Now(), CommentID: ic.DatabaseID}}
		}
	}
	qs := c.WorkflowRunQueries(obs, env)
	if len(qs) != 1 || qs[0].File != ClaudeWorkflowPath || qs[0].Event != "issue_comment" {
		t.Fatalf("queries %+v", qs)
	}
	list, err := gh.ListWorkflowRuns(context.Background(), w.Owner, w.Repo, qs[0].File, qs[0].Event, qs[0].Since)
	if err != nil {
		t.Fatal(err)
	}
	obs.WorkflowRuns = list
	v = c.Observe(obs, env)
	lastComment := obs.IssueComments[len(obs.IssueComments)-1]
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK || !claude.ParseComment(lastComment.Body).CleanPhrase {
		t.Fatalf("signal %s material %s (%s), last comment %q", v.Signal, v.Material, v.MaterialNote, lastComment.Body)
	}
}

func TestClaudeTrapsAndDraft(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		trap string
		want loop.Material
	}{{"silent", loop.MaterialSilent}, {"skip", loop.MaterialNoop}} {
		t.Run(tt.trap+" reads as "+string(tt.want), func(t *testing.T) {
			t.Parallel()
			w, gh, _ := newWorld(t, botScenario(t, Claude, "      - trap: "+tt.trap+"\n"))
			w.Advance(3 * time.Minute)
			if v := claude.New(claude.Options{}).Observe(observe(t, w, gh), claudeEnv(w)); v.Material != tt.want {
				t.Fatalf("material %s (%s)", v.Material, v.MaterialNote)
			}
		})
	}
	t.Run("a draft PR gets an empty run and un-drafting by a user starts the review", func(t *testing.T) {
		t.Parallel()
		sc := botScenario(t, Claude, "      - clean: true\n")
		sc.PR.Draft = true
		w, gh, user := newWorld(t, sc)
		w.Advance(3 * time.Minute)
		obs := observe(t, w, gh)
		if v := claude.New(claude.Options{}).Observe(obs, claudeEnv(w)); v.Material != loop.MaterialDraft {
			t.Fatalf("material %s", v.Material)
		}
		if err := user.MarkReadyForReview(context.Background(), obs.NodeID); err != nil {
			t.Fatal(err)
		}
		w.ReactToRequests()
		w.Advance(3 * time.Minute)
		if n := len(w.Fake.PR(w.Owner, w.Repo, w.Number).Comments); n != 1 {
			t.Fatalf("%d comments after ready_for_review, want the clean summary", n)
		}
	})
}

func TestDeclarativeEnginesAreReadByTheirDefinitions(t *testing.T) {
	t.Parallel()
	defs, err := declarative.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Gemini, CodeRabbit} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var eng *declarative.Engine
			for _, d := range defs {
				if d.Name == name {
					eng, _ = declarative.New(d)
				}
			}
			w, gh, _ := newWorld(t, botScenario(t, name, twoFindings))
			w.Advance(2 * time.Minute)
			v := eng.Observe(observe(t, w, gh), engines.Env{HasTriggerToken: true})
			if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK || len(v.Findings) != 2 {
				t.Fatalf("view %s %s %q %+v", v.Signal, v.Material, v.MaterialNote, v.Findings)
			}
			if f := byKeyOrTitle(v.Findings); len(f) != 2 {
				t.Fatalf("findings %+v", v.Findings)
			}
			sev := map[loop.Severity]bool{}
			for _, f := range v.Findings {
				sev[f.Severity] = true
			}
			if !sev[loop.SeverityHigh] {
				t.Errorf("severities %v, want high among them", sev)
			}
		})
	}
}

func TestScriptedEventsAndCheck(t *testing.T) {
	t.Parallel()
	sc := botScenario(t, Bugbot, twoFindings)
	sc.Repository.Collaborators = map[string]string{"stranger": "NONE"}
	sc.Events = []ScriptedEvent{
		{AfterCycle: 1, Comment: &CommentEvent{Author: "acme", Association: "OWNER", Body: "@review-loop approve {finding:div}"}},
		{AfterCycle: 1, Comment: &CommentEvent{Author: "stranger", Body: "@review-loop stop"}},
		{AfterCycle: 2, Push: &PushEvent{Files: map[string]string{"README.md": "x\n"}}},
	}
	zero, one := 0, 1
	sc.Expect.Commits, sc.Expect.ResolvedThreads = &zero, &one
	w, _, _ := newWorld(t, sc)
	w.Advance(2 * time.Minute)
	w.Drain()
	if err := w.ApplyEvents(1); err != nil {
		t.Fatal(err)
	}
	evs := w.Drain()
	if len(evs) != 2 {
		t.Fatalf("events %v", eventNames(evs))
	}
	var p struct {
		Comment struct {
			Body  string `json:"body"`
			Assoc string `json:"author_association"`
		} `json:"comment"`
	}
	if err := json.Unmarshal(evs[0].Payload, &p); err != nil || p.Comment.Body != "@review-loop approve "+w.FindingID("div") || p.Comment.Assoc != "OWNER" {
		t.Fatalf("approve payload %s", evs[0].Payload)
	}
	wake, _ := event.Parse("issue_comment", evs[1].Payload, event.Config{})
	if wake.Kind == event.KindCommand {
		t.Fatalf("a stranger's command was accepted: %+v", wake)
	}
	if err := w.ApplyEvents(2); err != nil {
		t.Fatal(err)
	}
	if got := eventNames(w.Drain()); !slices.Equal(got, []string{"pull_request"}) {
		t.Fatalf("outside push events %v", got)
	}
	w.Advance(2 * time.Minute)
	msgs := w.Check(Outcome{EndReason: "clean"})
	if len(msgs) != 1 || !strings.Contains(msgs[0], "resolved threads") {
		t.Fatalf("check %v, want only the resolved-thread mismatch", msgs)
	}
}

func TestW1WorldPostsEveryEnginesFindingAndTheScriptedFixerFixesThem(t *testing.T) {
	t.Parallel()
	sc, err := LoadScenario(filepath.Join(scenarioDir, "w1-three-engines-clean-after-one-fix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	w, gh, _ := newWorld(t, sc)
	if err := gh.RequestCopilotReview(context.Background(), w.Owner, w.Repo, w.Number); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	for range 3 {
		w.Advance(time.Minute)
	}
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	if len(snap.Threads) != 3 {
		t.Fatalf("%d threads, want one per engine", len(snap.Threads))
	}
	for _, id := range []string{"div-zero", "max-swapped", "sub-reversed"} {
		if w.FindingID(id) == "" {
			t.Errorf("finding %s not posted", id)
		}
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "calc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calc/calc.go"), []byte(sc.PR.Files["calc/calc.go"]), 0o644); err != nil {
		t.Fatal(err)
	}
	var in struct {
		Findings []map[string]any `json:"findings"`
	}
	for _, th := range snap.Threads {
		in.Findings = append(in.Findings, map[string]any{"id": "x", "comment_id": th.Comments[0].ID, "path": th.Path})
	}
	in.Findings[0]["id"] = "first"
	b, _ := json.Marshal(in)
	input := filepath.Join(t.TempDir(), "findings.json")
	if err := os.WriteFile(input, b, 0o644); err != nil {
		t.Fatal(err)
	}
	reply, err := w.Fix(input, dir)
	if err != nil || len(reply.Fixed) != 3 {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "calc/calc.go"))
	for _, want := range []string{"return 0, ErrDivZero", "return a - b", "\t\treturn b\n\t}\n\treturn a\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("fixed file lacks %q", want)
		}
	}
}

func TestScriptedFixerSpendsEachFindingsFixTimeOnTheClock(t *testing.T) {
	t.Parallel()
	sc, err := LoadScenario(filepath.Join(scenarioDir, "b2-240-minute-active-bound.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	w, _, _ := newWorld(t, sc)
	for range 3 {
		w.Advance(time.Minute)
	}
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	if len(snap.Threads) != 1 {
		t.Fatalf("%d threads, want Bugbot's first finding", len(snap.Threads))
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "calc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calc/calc.go"), []byte(sc.PR.Files["calc/calc.go"]), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"findings": []map[string]any{
		{"id": "f1", "comment_id": snap.Threads[0].Comments[0].ID, "path": "calc/calc.go"},
	}})
	input := filepath.Join(t.TempDir(), "findings.json")
	if err := os.WriteFile(input, b, 0o644); err != nil {
		t.Fatal(err)
	}
	before := w.Now()
	reply, err := w.Fix(input, dir)
	if err != nil || len(reply.Fixed) != 1 {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	if got := w.Now().Sub(before); got != 50*time.Minute {
		t.Errorf("the fix took %s of virtual time, want the scripted 50m", got)
	}
}
