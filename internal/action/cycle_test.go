package action

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

const actionToken = "ghs_actiontoken_0123456789"

// world is a fake GitHub with one repository, one PR and a checkout of it.
type world struct {
	t         testing.TB
	fake      *ghfake.Fake
	workspace string
	now       time.Time
	env       map[string]string
	out       bytes.Buffer
	// clientOpts, when set, replace the GitHub client options of a cycle.
	clientOpts *github.Options
}

func newWorld(t testing.TB, files map[string]string) *world {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	w := &world{t: t, now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	w.fake = ghfake.New(ghfake.Options{Now: func() time.Time { return w.now }})
	t.Cleanup(w.fake.Close)
	w.fake.AddToken(actionToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	w.fake.AddUser("maintainer", 1001, false)
	w.fake.AddToken("ghp_maintainer", ghfake.Identity{Login: "maintainer", ID: 1001, Association: "OWNER"})
	if err := w.fake.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if err := w.fake.SetPermission("octo", "app", "maintainer", "admin"); err != nil {
		t.Fatal(err)
	}
	if files == nil {
		files = map[string]string{"calc/calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"}
	}
	if _, err := w.fake.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Files: files, Author: "maintainer"}); err != nil {
		t.Fatal(err)
	}
	w.workspace = t.TempDir()
	// clone -c writes the checkout's own config: one process, not three.
	run(t, "", "git", "clone", "--quiet", "-c", "user.email=t@example.com", "-c", "user.name=t", "--branch", "feature", w.fake.CloneURL("octo", "app"), w.workspace)
	w.env = map[string]string{
		"INPUT_GITHUB-TOKEN":  actionToken,
		"INPUT_TEST-COMMAND":  "true",
		"GITHUB_REPOSITORY":   "octo/app",
		"GITHUB_API_URL":      w.fake.URL(),
		"GITHUB_GRAPHQL_URL":  w.fake.GraphQLURL(),
		"GITHUB_WORKSPACE":    w.workspace,
		"GITHUB_RUN_ID":       "77",
		"GITHUB_WORKFLOW_REF": "octo/app/.github/workflows/review-loop.yml@refs/heads/main",
		"RUNNER_TEMP":         t.TempDir(),
	}
	return w
}

// onServer runs git on the fake GitHub's bare repository octo/app, where
// the fix commits are (TB13: they are made through the API, not in the
// checkout).
func onServer(t testing.TB, fake *ghfake.Fake, args ...string) string {
	t.Helper()
	bare := strings.TrimPrefix(fake.CloneURL("octo", "app"), "file://")
	return run(t, "", "git", append([]string{"--git-dir", bare}, args...)...)
}

func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// cycle delivers one event to Run.
func (w *world) cycle(eventName string, payload any, inputs map[string]string) (Result, error) {
	w.t.Helper()
	return w.cycleWith(nil, eventName, payload, inputs)
}

// cycleWith delivers one event to Run with a judge.
func (w *world) cycleWith(j judge.Judge, eventName string, payload any, inputs map[string]string) (Result, error) {
	w.t.Helper()
	return w.cycleDeps(eventName, payload, inputs, func(d *Deps) { d.Judge = j })
}

func dispatchPayload(pr int) map[string]any {
	return map[string]any{
		"inputs":     map[string]any{"pr": fmt.Sprint(pr)},
		"ref":        "refs/heads/main",
		"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":     map[string]any{"login": "maintainer"},
		"workflow":   ".github/workflows/review-loop.yml",
	}
}

func statusState(t *testing.T, f *ghfake.Fake) (state.State, string) {
	t.Helper()
	for _, c := range f.PR("octo", "app", 1).Comments {
		st, found, err := state.Decode(c.Body)
		if found {
			if err != nil {
				t.Fatal(err)
			}
			return st, c.Body
		}
	}
	t.Fatal("no status comment")
	return state.State{}, ""
}

func TestCycle_TriggerOnlyFirstCycle(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.PRs[0].Plan.Action; got != loop.ActionTrigger {
		t.Fatalf("plan = %s, want trigger", got)
	}
	pr := w.fake.PR("octo", "app", 1)
	st, body := statusState(t, w.fake)
	if st.EngineStates["copilot"].TriggeredSHA != pr.HeadSHA {
		t.Errorf("copilot not recorded as triggered for the head: %+v", st.EngineStates["copilot"])
	}
	if !strings.Contains(body, "copilot") {
		t.Errorf("status comment does not name copilot:\n%s", body)
	}
	if out := res.PRs[0].Outputs; out["phase"] != "trigger" {
		t.Errorf("outputs = %v", out)
	}
	var copilotRequests int
	for _, r := range w.fake.Requests() {
		if strings.Contains(r.Path, "copilot-code-review") || strings.Contains(r.Path, "requested_reviewers") {
			copilotRequests++
		}
	}
	if copilotRequests == 0 {
		t.Errorf("copilot was not asked to review")
	}
	if d := w.fake.Dispatches(); len(d) != 1 {
		t.Errorf("dispatches = %v, want one re-dispatch (W5)", d)
	}
}

func TestCycle_CopilotSuggestionIsFixedPushedAndResolved(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(3 * time.Minute)
	head := w.fake.HeadSHA("octo", "app", 1)
	rid, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated 1 comment.", CommitSHA: head})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
		Body: "Add subtracts instead of adding.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	review := map[string]any{
		"action":       "submitted",
		"review":       map[string]any{"id": rid, "user": map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}, "commit_id": head, "state": "commented"},
		"pull_request": map[string]any{"number": 1, "head": map[string]any{"sha": head, "ref": "feature"}},
		"repository":   map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":       map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"},
	}
	res, err := w.cycle("pull_request_review", review, map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if res.PRs[0].Pushed == "" {
		t.Fatalf("nothing pushed; plan %+v\n%s", res.PRs[0].Plan, w.out.String())
	}
	pr := w.fake.PR("octo", "app", 1)
	if pr.HeadSHA != res.PRs[0].Pushed {
		t.Errorf("PR head %s is not the pushed fix %s", pr.HeadSHA, res.PRs[0].Pushed)
	}
	// The commit is made through the API (TB13): read it from the server.
	msg := onServer(t, w.fake, "log", "-1", "--format=%B", res.PRs[0].Pushed)
	if !strings.HasPrefix(msg, "fix(") || !strings.Contains(msg, "(PR #1)") {
		t.Errorf("commit message = %q", msg)
	}
	content := onServer(t, w.fake, "show", res.PRs[0].Pushed+":calc/calc.go")
	if !strings.Contains(content, "return a + b") {
		t.Errorf("suggestion not applied:\n%s", content)
	}
	resolved := 0
	for _, th := range pr.Threads {
		if th.Resolved {
			resolved++
		}
	}
	if resolved != 1 {
		t.Errorf("resolved threads = %d, want 1", resolved)
	}
	st, _ := statusState(t, w.fake)
	if st.Commits != 1 || st.LastPushSHA != pr.HeadSHA {
		t.Errorf("state commits=%d last push=%s", st.Commits, st.LastPushSHA)
	}
}
