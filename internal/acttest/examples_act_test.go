package acttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// useExample makes w run docs/examples/name instead of the README's
// example, as users copy it.
func (w *world) useExample(t testing.TB, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	w.example = b
	if strings.Contains(string(b), "mode: prepare") {
		w.hardened = b
	}
}

// calcJS is the JavaScript PR of the Copilot-only world: add subtracts,
// and its test (node's own runner, `npm test`) fails until it adds.
const calcJS = "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n"

// jsProject is a Node project with no dependencies: `npm ci` installs
// nothing from its lockfile and `npm test` runs node's test runner. Its
// .npmrc keeps npm off the network (no audit, no funding or update check).
// Each script also appends its name and outcome to the file log (review-
// loop runs the commands with an environment of its own, so the path is
// written into the project), so the test sees what the job ran.
func jsProject(log string) map[string]string {
	return map[string]string{
		"package.json": `{"name": "app", "version": "1.0.0", "private": true, "scripts": {` +
			`"postinstall": "node note.js ci", "test": "node --test && node note.js test-passed || (node note.js test-failed; exit 1)"}}` + "\n",
		"note.js":           "require('node:fs').appendFileSync(" + strconv.Quote(log) + ", process.argv[2] + '\\n');\n",
		"package-lock.json": `{"name": "app", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "app", "version": "1.0.0"}}}` + "\n",
		".npmrc":            "audit=false\nfund=false\nupdate-notifier=false\n",
		"calc.js":           calcJS,
		"calc.test.js":      "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('./calc');\n\ntest('add', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
	}
}

// reviewRequests counts the reviews requested of Copilot on PR #1.
type reviewRequests struct {
	mu sync.Mutex
	n  int
}

func (r *reviewRequests) watch(f *ghfake.Fake) {
	f.OnReviewRequested(func(ev ghfake.ReviewRequestEvent) {
		for _, l := range ev.Logins {
			if ev.Number == 1 && strings.HasPrefix(l, "copilot-pull-request-reviewer") {
				r.mu.Lock()
				r.n++
				r.mu.Unlock()
			}
		}
	})
}

func (r *reviewRequests) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// TestAct_CopilotOnlyExampleWaitsThenFixesCopilotsSuggestion runs
// docs/examples/copilot-only.yml as copied (two jobs: prepare, holding a
// read-only token and the agent's key, and publish), on a Node project: a
// manual run starts the loop, whose first cycle waits for Copilot's own
// review (W4: no push, no request of a review); Copilot's review,
// delivered as pull_request_review, starts the fix cycle, whose prepare
// job runs the example's setup-command (npm ci), the agent fixer and
// test-command (npm test), and whose publish job pushes one fix commit,
// resolves the thread and asks Copilot to review the new head.
func TestAct_CopilotOnlyExampleWaitsThenFixesCopilotsSuggestion(t *testing.T) {
	npmLog := filepath.Join(t.TempDir(), "npm.log")
	w := newWorldWith(t, jsProject(npmLog))
	w.useExample(t, "copilot-only.yml")
	var requests reviewRequests
	requests.watch(w.fake)

	w.fake.AddToken(readOnlyToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true, ReadOnly: true})
	r := w.runHardened("workflow_dispatch", dispatchEvent(1))
	r.mustSucceed(t)
	if _, st, ok := w.statusComment(); !ok || st.EngineStates["copilot"].InitialWaitDone != true {
		t.Fatalf("after the first cycle: status comment %v, copilot state %+v; want the first review awaited (W4)\n%s", ok, st.EngineStates, r.Output)
	}
	if n := requests.count(); n != 0 {
		t.Errorf("the first cycle requested %d Copilot reviews; Copilot-only waits for its own first review (W4)", n)
	}

	head := w.fake.HeadSHA(owner, repoName, 1)
	review := w.copilotReviewOn(t, "calc.js", 2, "`add` subtracts.\n\n```suggestion\n  return a + b;\n```")
	r = w.runHardened("pull_request_review", review)
	r.mustSucceed(t)
	pr := w.oneFixCommit(t, head, r.Output, "calc.js", "return a + b;")
	installedAgent(t, r.Output)
	// setup-command (npm ci) ran, then test-command (npm test) passed on
	// the fixed tree.
	if got, _ := os.ReadFile(npmLog); string(got) != "ci\ntest-passed\n" {
		t.Errorf("the job's npm scripts ran %q, want npm ci then a passing npm test\n%s", got, r.Output)
	}
	resolved := 0
	for _, th := range pr.Threads {
		if th.Resolved {
			resolved++
		}
	}
	if resolved != 1 {
		t.Errorf("%d threads resolved, want 1\n%s", resolved, r.Output)
	}
	if n := requests.count(); n != 1 {
		t.Errorf("%d Copilot review requests after the fix, want one for the new head\n%s", n, r.Output)
	}
	if _, st, _ := w.statusComment(); st.Commits != 1 {
		t.Errorf("the loop's state records %d fix commits, want 1", st.Commits)
	}
}

// TestAct_CommentOnlyExampleStartsOnACommandAndWaitsInTheJob runs
// docs/examples/comment-only.yml as copied. A comment without
// `@review-loop` starts no job. A collaborator's `@review-loop start`
// gets a reaction, asks Copilot (the engine the repository shows) to
// review, and re-dispatches the workflow for the PR (W5), since the
// example listens to no engine event. That run finds Copilot still
// reviewing and waits in the job (wait-seconds, poll-interval); Copilot's
// review, posted while it waits, is seen by its next poll, and the loop
// hands back clean in that same job.
func TestAct_CommentOnlyExampleStartsOnACommandAndWaitsInTheJob(t *testing.T) {
	w := newWorld(t)
	w.useExample(t, "comment-only.yml")
	// `start` needs write access (TB3).
	if err := w.fake.SetPermission(owner, repoName, "maintainer", "write"); err != nil {
		t.Fatal(err)
	}
	var requests reviewRequests
	requests.watch(w.fake)

	w.fake.ResetRequests()
	chatter, err := w.fake.AddIssueComment(owner, repoName, 1, "maintainer", "COLLABORATOR", "LGTM so far")
	if err != nil {
		t.Fatal(err)
	}
	r := w.run("issue_comment", issueCommentEvent(chatter, "maintainer", "COLLABORATOR", "LGTM so far"), runOptions{})
	r.mustSucceed(t)
	if ranJob(r) || len(w.fake.Requests()) != 0 {
		t.Fatalf("a comment without @review-loop started the job (%d requests):\n%s", len(w.fake.Requests()), r.Output)
	}

	id, err := w.fake.AddIssueComment(owner, repoName, 1, "maintainer", "COLLABORATOR", "@review-loop start")
	if err != nil {
		t.Fatal(err)
	}
	// Copied, as the example says, to .github/workflows/review-loop.yml.
	wf := runOptions{WorkflowFile: "review-loop.yml"}
	r = w.run("issue_comment", issueCommentEvent(id, "maintainer", "COLLABORATOR", "@review-loop start"), wf)
	r.mustSucceed(t)
	reacted := false
	for _, re := range w.fake.Reactions() {
		reacted = reacted || re.CommentID == id
	}
	if !reacted {
		t.Errorf("the command got no reaction: %+v", w.fake.Reactions())
	}
	if n := requests.count(); n != 1 {
		t.Fatalf("%d Copilot review requests after start, want 1\n%s", n, r.Output)
	}
	ds := w.fake.Dispatches()
	if len(ds) != 1 || ds[0].Workflow != wf.WorkflowFile || ds[0].Inputs["pr"] != "1" {
		t.Fatalf("dispatches after start: %+v; want the workflow re-dispatched for PR #1 (W5), the example's only way on\n%s", ds, r.Output)
	}

	// GitHub starts the dispatched run; Copilot answers while it waits.
	w.fake.ResetRequests()
	head := w.fake.HeadSHA(owner, repoName, 1)
	posted := make(chan int, 1)
	go func() {
		for len(w.fake.Requests()) == 0 {
			time.Sleep(100 * time.Millisecond)
		}
		// The run has observed the PR; its first poll is poll-interval
		// (30 s) away.
		time.Sleep(3 * time.Second)
		n := len(w.fake.Requests())
		if _, err := w.fake.AddReview(owner, repoName, 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", CommitSHA: head,
			Body: "## Pull request overview\n\nCopilot reviewed 3 out of 3 changed files in this pull request and generated no comments."}); err != nil {
			t.Error(err)
		}
		posted <- n
	}()
	wf.Timeout = 12 * time.Minute
	r = w.run("workflow_dispatch", dispatchEvent(1), wf)
	r.mustSucceed(t)
	var before int
	select {
	case before = <-posted:
	case <-time.After(time.Minute):
		t.Fatalf("the dispatched run made no request\n%s", r.Output)
	}
	observed := false
	for _, q := range w.fake.Requests()[before:] {
		observed = observed || (q.Operation == "query" && strings.Contains(q.GraphQL, "repository"))
	}
	if !observed {
		t.Errorf("the run did not observe the PR after Copilot's review: no in-job wait\n%s", r.Output)
	}
	if r.Outputs["verdict"] != "clean" {
		t.Errorf("outputs %v: want the loop handed back clean in the dispatched run\n%s", r.Outputs, r.Output)
	}
	if _, st, ok := w.statusComment(); !ok || st.Status == "active" {
		t.Errorf("status comment %v, state %q: want the loop ended", ok, st.Status)
	}
}
