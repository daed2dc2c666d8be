package acttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

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
// docs/examples/copilot-only.yml as copied, on a Node project: a manual
// run starts the loop, whose first cycle waits for Copilot's own review
// (W4: no push, no request of a review); Copilot's review, delivered as
// pull_request_review, starts the fix cycle, which runs the example's
// setup-command (npm ci) and test-command (npm test), pushes one fix
// commit through the agent fixer, resolves the thread and asks Copilot to
// review the new head.
func TestAct_CopilotOnlyExampleWaitsThenFixesCopilotsSuggestion(t *testing.T) {
	npmLog := filepath.Join(t.TempDir(), "npm.log")
	w := newWorldWith(t, jsProject(npmLog))
	w.useExample(t, "copilot-only.yml")
	var requests reviewRequests
	requests.watch(w.fake)

	r := w.run("workflow_dispatch", dispatchEvent(1), runOptions{})
	r.mustSucceed(t)
	if _, st, ok := w.statusComment(); !ok || st.EngineStates["copilot"].InitialWaitDone != true {
		t.Fatalf("after the first cycle: status comment %v, copilot state %+v; want the first review awaited (W4)\n%s", ok, st.EngineStates, r.Output)
	}
	if got := r.Outputs["phase"]; got != "wait" {
		t.Errorf("phase = %q, want wait", got)
	}
	if n := requests.count(); n != 0 {
		t.Errorf("the first cycle requested %d Copilot reviews; Copilot-only waits for its own first review (W4)", n)
	}

	head := w.fake.HeadSHA(owner, repoName, 1)
	review := w.copilotReviewOn(t, "calc.js", 2, "`add` subtracts.\n\n```suggestion\n  return a + b;\n```")
	r = w.run("pull_request_review", review, runOptions{})
	r.mustSucceed(t)
	pr := w.fake.PR(owner, repoName, 1)
	if pr.HeadSHA == head {
		t.Fatalf("nothing pushed to the PR branch\n%s", r.Output)
	}
	bare := strings.TrimPrefix(w.fake.CloneURL(owner, repoName), "file://")
	if n := git(t, bare, "rev-list", "--count", head+".."+pr.HeadSHA); n != "1" {
		t.Errorf("%s commits pushed, want one fix commit", n)
	}
	if got := git(t, bare, "show", pr.HeadSHA+":calc.js"); !strings.Contains(got, "return a + b;") {
		t.Errorf("the suggestion is not in the pushed commit:\n%s", got)
	}
	if want := "review-loop: using " + filepath.Join(agentDir, "claude"); !strings.Contains(r.Output, want) {
		t.Errorf("act's log lacks %q: the fix did not come from the agent\n%s", want, r.Output)
	}
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
	if r.Outputs["commits"] != "1" {
		t.Errorf("output commits = %q, want 1", r.Outputs["commits"])
	}
}
