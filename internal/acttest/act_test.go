package acttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

// actEnv gates these tests: empty skips them; a path names the act binary;
// 1 uses act from PATH and skips without it; required uses act from PATH
// and fails without it (CI).
const actEnv = "REVIEW_LOOP_ACT"

// actTimeout bounds one act run; a cycle against the fake takes seconds.
// The act tests run one at a time, not in parallel: each act run links
// review-loop from source, and parallel links on a small runner only
// stretch every run.
const actTimeout = 3 * time.Minute

const (
	owner, repoName = "octo", "app"
	actionToken     = "ghs_acttest_action_token_0123456789"
)

// actBinary returns the act binary to run, or skips (fails under
// REVIEW_LOOP_ACT=required) when there is none.
func actBinary(t testing.TB) string {
	t.Helper()
	v := os.Getenv(actEnv)
	switch v {
	case "":
		t.Skipf("act end-to-end tests skipped: set %s=/path/to/act (or %s=1 with act on PATH; %s=required makes a missing act a failure)", actEnv, actEnv, actEnv)
	case "1", "required":
		p, err := exec.LookPath("act")
		if err != nil {
			if v == "required" {
				t.Fatalf("%s=required but act is not on PATH: go build -C tools/act -o <dir>/act github.com/nektos/act", actEnv)
			}
			t.Skipf("act end-to-end tests skipped: %s=1 but act is not on PATH", actEnv)
		}
		return p
	}
	if fi, err := os.Stat(v); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable act binary", actEnv, v)
	}
	return v
}

// world is one fake GitHub with one repository and one open PR, a checkout
// of the PR's head branch, and an act binary to run the example workflow
// against them.
type world struct {
	t        testing.TB
	act      string
	root     string
	example  []byte
	fake     *ghfake.Fake
	checkout string
	cache    string
	// hardened is the two-job example runHardened runs; nil runs the
	// README's (docs/examples/review-loop-hardened.yml).
	hardened []byte
}

// calcBug is the PR's file: Add subtracts. Its test fails until the fix.
const calcBug = "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"

// warmCache builds review-loop once the way action.yml does (-trimpath,
// no cgo), so the build cache holds its packages before parallel act runs
// each build it: otherwise every run compiles every dependency at once.
var warmCache = sync.OnceValues(func() ([]byte, error) {
	cmd := exec.Command("go", "build", "-trimpath", "-o", os.DevNull, "./cmd/review-loop")
	cmd.Dir, cmd.Env = "../..", append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	return cmd.CombinedOutput()
})

// buildReviewLoop writes review-loop to out: a copy of the binary
// REVIEW_LOOP_TEST_BINARY names (scripts/test builds it once, as
// action.yml does), or else a build of its own.
func buildReviewLoop(t testing.TB, out string) {
	t.Helper()
	if p := os.Getenv("REVIEW_LOOP_TEST_BINARY"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("REVIEW_LOOP_TEST_BINARY: %v", err)
		}
		if err := os.WriteFile(out, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/review-loop")
	cmd.Dir, cmd.Env = repoRoot(t), append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building review-loop: %v\n%s", err, b)
	}
}

func newWorld(t testing.TB) *world {
	t.Helper()
	// The example's test-command is `go test {packages}`: the PR is a small
	// Go module whose test fails until Add adds.
	return newWorldWith(t, map[string]string{
		"go.mod":            "module example.com/app\n\ngo 1.22\n",
		"calc/calc.go":      calcBug,
		"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Fatalf(\"Add(1, 2) = %d\", got)\n\t}\n}\n",
	})
}

// newWorldWith is newWorld with PR #1 holding files.
func newWorldWith(t testing.TB, files map[string]string) *world {
	t.Helper()
	w := &world{t: t, act: actBinary(t), root: repoRoot(t), example: readExample(t)}
	if out, err := warmCache(); err != nil {
		t.Fatalf("building review-loop: %v\n%s", err, out)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed")
	}
	f, err := ghfake.Start("127.0.0.1:0", ghfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	w.fake = f
	f.AddToken(actionToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	f.AddUser("maintainer", 1001, false)
	f.AddUser("stranger", 2002, false)
	if err := f.AddRepo(owner, repoName, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreatePR(owner, repoName, ghfake.PROptions{Head: "feature", Author: "maintainer", Files: files}); err != nil {
		t.Fatal(err)
	}
	// Copilot reviewed an earlier PR of the repository: the evidence a
	// repository with Copilot code review shows, so the default engine set
	// holds it (IN2). Opened after PR #1, merged.
	f.AddUser("copilot-pull-request-reviewer", 175728472, true)
	earlier, err := f.CreatePR(owner, repoName, ghfake.PROptions{Head: "earlier", Author: "maintainer", Files: map[string]string{"EARLIER.md": "earlier\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddReview(owner, repoName, earlier, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "Copilot reviewed the earlier change."}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetPRState(owner, repoName, earlier, "MERGED", false); err != nil {
		t.Fatal(err)
	}
	// What actions/checkout would leave: a clone of the PR head branch with
	// origin pointing at the repository (here the fake's bare repository).
	w.checkout = filepath.Join(t.TempDir(), "checkout")
	git(t, "", "clone", "--quiet", "--branch", "feature", f.CloneURL(owner, repoName), w.checkout)
	w.cache = t.TempDir()
	return w
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// actRun is one act run and what it left.
type actRun struct {
	Output  string            // act's log (stdout and stderr)
	Err     error             // nil when every job succeeded
	Outputs map[string]string // the action's outputs, as the workflow saw them
	Wall    time.Duration
	// Jobs are the wall times of the jobs act ran (started, not
	// skipped), by job id.
	Jobs map[string]time.Duration
	// Startup is action.yml's time before `review-loop cycle` printed its
	// first line.
	Startup time.Duration
}

// runOptions vary one act run.
type runOptions struct {
	// ExtraWith adds inputs to the action step (benchmarks only).
	ExtraWith map[string]string
	// Timeout bounds the run instead of actTimeout (a job that waits in
	// itself for the engines).
	Timeout time.Duration
	// WorkflowFile, when set, is the file under .github/workflows the run
	// says it comes from (GITHUB_WORKFLOW_REF, which GitHub sets and act
	// does not), so the cycle can re-dispatch its workflow (W5).
	WorkflowFile string
}

// run runs the example workflow for one event through act in host mode.
func (w *world) run(event string, payload any, o runOptions) actRun {
	w.t.Helper()
	dir := w.t.TempDir()
	outputs := filepath.Join(dir, "outputs")
	wf, err := generateWorkflow(w.example, workflowParams{
		Checkout: w.checkout, ActionRoot: w.root, OutputsFile: outputs, ExtraWith: o.ExtraWith,
	})
	if err != nil {
		w.t.Fatal(err)
	}
	wfPath := filepath.Join(dir, "review-loop.yml")
	evPath := filepath.Join(dir, "event.json")
	ev, err := json.Marshal(payload)
	if err != nil {
		w.t.Fatal(err)
	}
	for p, b := range map[string][]byte{wfPath: wf.YAML, evPath: ev} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
	args := []string{event,
		"--workflows", wfPath,
		"--eventpath", evPath,
		"--directory", w.checkout,
		"--env", "GITHUB_API_URL=" + w.fake.URL(),
		"--env", "GITHUB_GRAPHQL_URL=" + w.fake.GraphQLURL(),
		// act clones remote actions from the server URL: any `uses:` that
		// slipped into action.yml fails fast against the fake instead of
		// reaching for github.com.
		"--env", "GITHUB_SERVER_URL=" + w.fake.URL(),
		"--env", "GITHUB_REPOSITORY=" + owner + "/" + repoName,
		// github.token and secrets.GITHUB_TOKEN resolve to this secret.
		"--secret", "GITHUB_TOKEN=" + actionToken,
		// The example's anthropic-api-key; the agent on PATH checks it.
		"--secret", "ANTHROPIC_API_KEY=" + agentAPIKey,
		// Nothing from the network: no image pulls, no action fetches, no
		// cache server; act's own state stays in the test's directories.
		"--pull=false",
		"--action-offline-mode",
		"--no-cache-server",
		"--action-cache-path", w.cache,
	}
	if o.WorkflowFile != "" {
		args = append(args, "--env", "GITHUB_WORKFLOW_REF="+owner+"/"+repoName+"/.github/workflows/"+o.WorkflowFile+"@refs/heads/main")
	}
	for _, l := range wf.Labels {
		args = append(args, "--platform", l+"=-self-hosted")
	}
	timeout := actTimeout
	if o.Timeout > 0 {
		timeout = o.Timeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.act, args...)
	// act reads .actrc, .env, .secrets and .input from its working
	// directory: an empty one.
	cmd.Dir = dir
	cmd.Env = hostEnv()
	out := &stampedLog{}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	r := actRun{Output: out.String(), Err: err, Wall: time.Since(start), Outputs: map[string]string{}, Startup: out.startup()}
	if ctx.Err() != nil {
		w.t.Fatalf("act did not finish within %s:\n%s", timeout, r.Output)
	}
	if b, err := os.ReadFile(outputs); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				r.Outputs[k] = v
			}
		}
	}
	if testing.Verbose() {
		w.t.Logf("act %s: %s wall, %s in action.yml before review-loop cycle's first line", event, r.Wall.Round(time.Millisecond), r.Startup.Round(time.Millisecond))
	}
	return r
}

// stampedLog collects act's output and when each line arrived, to time
// action.yml's own steps from outside.
type stampedLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines []stampedLine
	part  []byte
}

type stampedLine struct {
	at   time.Time
	text string
}

func (l *stampedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.buf.Write(p)
	l.part = append(l.part, p...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, stampedLine{now, string(l.part[:i])})
		l.part = l.part[i+1:]
	}
	return len(p), nil
}

func (l *stampedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// jobLine is act's prefix of a job's log line: [workflow/job].
var jobLine = regexp.MustCompile(`^\[[^/\]]+/([^\]]+)\]`)

// jobs are the wall times of the jobs that ran: from a job's first line to
// its last, by job id.
func (l *stampedLog) jobs() map[string]time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	first, last := map[string]time.Time{}, map[string]time.Time{}
	for _, ln := range l.lines {
		m := jobLine.FindStringSubmatch(ln.text)
		if m == nil {
			continue
		}
		if _, ok := first[m[1]]; !ok {
			first[m[1]] = ln.at
		}
		last[m[1]] = ln.at
	}
	out := map[string]time.Duration{}
	for j, at := range first {
		out[j] = last[j].Sub(at)
	}
	return out
}

// startup is the time from act starting the action step to the first line
// `review-loop cycle` printed: what action.yml costs before the cycle runs
// (resolving or building the binary). Zero when the cycle never started.
func (l *stampedLog) startup() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var begin time.Time
	inCycle := false
	for _, ln := range l.lines {
		switch {
		case strings.Contains(ln.text, "⭐ Run Main ./"+localActionDir):
			begin = ln.at
		case strings.Contains(ln.text, "⭐ Run Main Run one review-loop cycle"):
			inCycle = true
		case inCycle && !begin.IsZero():
			return ln.at.Sub(begin)
		}
	}
	return 0
}

// hostEnv is the test's environment without anything of an Actions run
// the tests may themselves be running in: act's host mode hands its own
// environment to every step. PATH starts with agentDir, so the job's
// claude is the test's agent, and ANTHROPIC_BASE_URL (which the Anthropic
// SDK reads) names the test's Messages API instead of the real one.
func hostEnv() []string {
	var env []string
	path := agentDir
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") ||
			strings.HasPrefix(k, "ACTIONS_") || strings.HasPrefix(k, "INPUT_") || k == "CI" ||
			strings.HasPrefix(k, "ANTHROPIC_") {
			continue
		}
		if k == "PATH" {
			path += string(os.PathListSeparator) + v
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+path, "ANTHROPIC_BASE_URL="+messagesURL)
}

func (r actRun) mustSucceed(t testing.TB) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("act failed: %v\n%s", r.Err, r.Output)
	}
}

// statusComment is the PR's status comment and its decoded state.
func (w *world) statusComment() (ghfake.IssueComment, state.State, bool) {
	w.t.Helper()
	for _, c := range w.fake.PR(owner, repoName, 1).Comments {
		st, found, err := state.Decode(c.Body)
		if !found {
			continue
		}
		if err != nil {
			w.t.Fatalf("status comment %d: %v", c.ID, err)
		}
		return c, st, true
	}
	return ghfake.IssueComment{}, state.State{}, false
}

// writes are the requests that change something: every REST call but a
// read, and every GraphQL mutation.
func writes(reqs []ghfake.Request) []ghfake.Request {
	var out []ghfake.Request
	for _, r := range reqs {
		switch {
		case r.GraphQL != "":
			if r.Operation == "mutation" {
				out = append(out, r)
			}
		case r.Method != "GET" && r.Method != "HEAD":
			out = append(out, r)
		}
	}
	return out
}

func repository() map[string]any {
	return map[string]any{
		"name": repoName, "full_name": owner + "/" + repoName,
		"owner":          map[string]any{"login": owner, "type": "Organization"},
		"default_branch": "main",
	}
}

func dispatchEvent(pr int) map[string]any {
	return map[string]any{
		"inputs":     map[string]any{"pr": fmt.Sprint(pr)},
		"ref":        "refs/heads/main",
		"repository": repository(),
		"sender":     map[string]any{"login": "maintainer", "type": "User"},
		"workflow":   ".github/workflows/review-loop.yml",
	}
}

// badEnginesEvent is a dispatch naming an engine review-loop does not
// know, through the example's `engines` dispatch input, which its `with:`
// passes on to the action.
func badEnginesEvent() map[string]any {
	ev := dispatchEvent(1)
	ev["inputs"].(map[string]any)["engines"] = "no-such-engine"
	return ev
}

func issueCommentEvent(id int64, login, association, body string) map[string]any {
	return map[string]any{
		"action": "created",
		"issue": map[string]any{
			"number":       1,
			"pull_request": map[string]any{"url": "https://api.github.com/repos/octo/app/pulls/1"},
		},
		"comment": map[string]any{
			"id": id, "body": body, "author_association": association,
			"user": map[string]any{"login": login, "type": "User"},
		},
		"repository": repository(),
		"sender":     map[string]any{"login": login, "type": "User"},
	}
}

// copilotReview makes Copilot review the PR's head with one suggestion
// that fixes Add, and returns the pull_request_review event GitHub sends.
func (w *world) copilotReview(t testing.TB) map[string]any {
	t.Helper()
	return w.copilotReviewOn(t, "calc/calc.go", 5, "Add subtracts instead of adding.\n\n```suggestion\n\treturn a + b\n```")
}

// copilotReviewOn is copilotReview with its one comment on path at line.
func (w *world) copilotReviewOn(t testing.TB, path string, line int, body string) map[string]any {
	t.Helper()
	head := w.fake.HeadSHA(owner, repoName, 1)
	// The example names no engines, and the default set holds Bugbot: it
	// must be done with the head too, or the loop waits for it before
	// fixing anything (T4).
	if _, err := w.fake.SetCheckRun(owner, repoName, 1, ghfake.CheckRunOptions{
		Name: "Cursor Bugbot", AppSlug: "cursor", Status: "COMPLETED", Conclusion: "SUCCESS", Title: "Bugbot Review",
		Summary: "✅ Bugbot reviewed your changes and found no new issues!\n\n<sup>Reviewed by [Cursor Bugbot](https://cursor.com/bugbot) for commit [`" + head[:7] + "`](https://github.com/commit/" + head + ").</sup>",
	}); err != nil {
		t.Fatal(err)
	}
	rid, err := w.fake.AddReview(owner, repoName, 1, ghfake.ReviewOptions{
		Author:    "copilot-pull-request-reviewer",
		Body:      "## Pull request overview\n\nCopilot reviewed 3 out of 3 changed files in this pull request and generated 1 comment.",
		CommitSHA: head,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.fake.AddReviewComment(owner, repoName, 1, ghfake.CommentOptions{
		Author: "Copilot", ReviewID: rid, Path: path, Line: line, CommitSHA: head, Body: body,
	}); err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"action": "submitted",
		"review": map[string]any{
			"id": rid, "commit_id": head, "state": "commented",
			"user": map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"},
		},
		"pull_request": map[string]any{
			"number": 1,
			"head":   map[string]any{"sha": head, "ref": "feature"},
			"base":   map[string]any{"ref": "main"},
			"labels": w.labels(),
		},
		"repository": repository(),
		"sender":     map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"},
	}
}

// TestAct_DispatchTriggersTheEnginesAndSetsOutputs runs the first cycle of
// a loop, started by hand: nothing to fix yet, so the cycle creates the
// status comment and triggers the engines.
func TestAct_DispatchTriggersTheEnginesAndSetsOutputs(t *testing.T) {
	w := newWorld(t)
	r := w.run("workflow_dispatch", dispatchEvent(1), runOptions{})
	r.mustSucceed(t)

	c, st, ok := w.statusComment()
	if !ok {
		t.Fatalf("no status comment\n%s", r.Output)
	}
	if c.Author != "github-actions" {
		t.Errorf("status comment by %q, want the action's identity", c.Author)
	}
	head := w.fake.HeadSHA(owner, repoName, 1)
	var triggered []string
	for name, es := range st.EngineStates {
		if es.TriggeredSHA == head {
			triggered = append(triggered, name)
		}
	}
	if len(triggered) == 0 {
		t.Errorf("no engine recorded as triggered for the head %s: %+v\n%s", head, st.EngineStates, r.Output)
	}
	if r.Outputs["phase"] == "" || r.Outputs["verdict"] == "" {
		t.Errorf("outputs phase and verdict not set through steps.<id>.outputs: %v\n%s", r.Outputs, r.Output)
	}
	if got := r.Outputs["phase"]; got != "trigger" {
		t.Errorf("phase = %q, want trigger", got)
	}
}

// TestAct_CopilotSuggestionIsPushedAndItsThreadResolved delivers Copilot's
// submitted review with one suggestion: the cycle applies it, runs the
// example's test command, pushes one fix commit to the PR branch, resolves
// the thread and updates the status comment.
func TestAct_CopilotSuggestionIsPushedAndItsThreadResolved(t *testing.T) {
	w := newWorld(t)
	w.run("workflow_dispatch", dispatchEvent(1), runOptions{}).mustSucceed(t)
	_, before, _ := w.statusComment()
	head := w.fake.HeadSHA(owner, repoName, 1)
	review := w.copilotReview(t)
	r := w.run("pull_request_review", review, runOptions{})
	r.mustSucceed(t)

	pr := w.oneFixCommit(t, head, r.Output, "calc/calc.go", "return a + b")
	resolved := 0
	for _, th := range pr.Threads {
		if th.Resolved {
			resolved++
		}
	}
	if resolved != 1 {
		t.Errorf("%d threads resolved, want 1\n%s", resolved, r.Output)
	}
	_, after, _ := w.statusComment()
	if after.Commits != before.Commits+1 || after.LastPushSHA != pr.HeadSHA {
		t.Errorf("status comment not updated for the push: commits %d → %d, last push %s (head %s)", before.Commits, after.Commits, after.LastPushSHA, pr.HeadSHA)
	}
	if r.Outputs["commits"] != "1" {
		t.Errorf("output commits = %q, want 1", r.Outputs["commits"])
	}
	// The single job holds the write tokens, so it runs no agent fixer
	// (TB1): the suggestion block was applied by review-loop itself. The
	// agent runs in the hardened examples' prepare job
	// (TestAct_CopilotOnlyExampleWaitsThenFixesCopilotsSuggestion).
	if strings.Contains(r.Output, "acttest npm: installed") {
		t.Errorf("the single job, which holds the write tokens, installed an agent fixer\n%s", r.Output)
	}
}

// TestAct_StatusCommandFromACollaborator answers `@review-loop status` from
// a collaborator: an acknowledging reaction and a status comment.
func TestAct_StatusCommandFromACollaborator(t *testing.T) {
	w := newWorld(t)
	id, err := w.fake.AddIssueComment(owner, repoName, 1, "maintainer", "COLLABORATOR", "@review-loop status")
	if err != nil {
		t.Fatal(err)
	}
	r := w.run("issue_comment", issueCommentEvent(id, "maintainer", "COLLABORATOR", "@review-loop status"), runOptions{})
	r.mustSucceed(t)
	if _, _, ok := w.statusComment(); !ok {
		t.Errorf("no status comment after a collaborator's status command\n%s", r.Output)
	}
	reacted := false
	for _, re := range w.fake.Reactions() {
		reacted = reacted || re.CommentID == id
	}
	if !reacted {
		t.Errorf("the command comment got no reaction: %+v", w.fake.Reactions())
	}
}

// TestAct_StatusCommandFromAStrangerChangesNothing: a command from someone
// whose association is not allowed is ignored and logged, and nothing on
// GitHub changes.
func TestAct_StatusCommandFromAStrangerChangesNothing(t *testing.T) {
	w := newWorld(t)
	id, err := w.fake.AddIssueComment(owner, repoName, 1, "stranger", "NONE", "@review-loop status")
	if err != nil {
		t.Fatal(err)
	}
	comments := len(w.fake.PR(owner, repoName, 1).Comments)
	w.fake.ResetRequests()
	r := w.run("issue_comment", issueCommentEvent(id, "stranger", "NONE", "@review-loop status"), runOptions{})
	r.mustSucceed(t)
	if n := len(w.fake.PR(owner, repoName, 1).Comments); n != comments {
		t.Errorf("comments %d → %d after a stranger's command", comments, n)
	}
	if re := w.fake.Reactions(); len(re) != 0 {
		t.Errorf("reactions after a stranger's command: %+v", re)
	}
	if wr := writes(w.fake.Requests()); len(wr) != 0 {
		t.Errorf("write requests after a stranger's command: %+v", wr)
	}
	if !strings.Contains(r.Output, "not allowed to command") {
		t.Errorf("the ignored command is not logged:\n%s", r.Output)
	}
}

// TestAct_UnknownEngineFailsTheJobWithAnErrorAnnotation runs the example
// with an engine review-loop does not know; the job must fail with an
// ::error annotation, and GitHub must be left alone.
func TestAct_UnknownEngineFailsTheJobWithAnErrorAnnotation(t *testing.T) {
	w := newWorld(t)
	w.fake.ResetRequests()
	r := w.run("workflow_dispatch", badEnginesEvent(), runOptions{})
	if r.Err == nil {
		t.Fatalf("act succeeded with an unknown engine:\n%s", r.Output)
	}
	if !strings.Contains(r.Output, "::error") || !strings.Contains(r.Output, "no-such-engine") {
		t.Errorf("no ::error annotation naming the engine in act's output:\n%s", r.Output)
	}
	if wr := writes(w.fake.Requests()); len(wr) != 0 {
		t.Errorf("write requests after bad input: %+v", wr)
	}
}

// BenchmarkAct times each act run of the tests above (run it with
// -benchtime=3x: the reported figures are medians over the runs), and
// the time action.yml spends before `review-loop cycle` prints its first
// line, with the binary built from source (the example's `with:`) and
// with a prebuilt one given as binary-path.
func BenchmarkAct(b *testing.B) {
	prebuilt := filepath.Join(b.TempDir(), "review-loop")
	cases := []struct {
		name  string
		setup func(b *testing.B, w *world) (string, any, runOptions)
	}{
		{"workflow_dispatch", func(*testing.B, *world) (string, any, runOptions) {
			return "workflow_dispatch", dispatchEvent(1), runOptions{}
		}},
		{"workflow_dispatch/binary-path", func(*testing.B, *world) (string, any, runOptions) {
			return "workflow_dispatch", dispatchEvent(1), runOptions{ExtraWith: map[string]string{"binary-path": prebuilt}}
		}},
		{"pull_request_review", func(b *testing.B, w *world) (string, any, runOptions) {
			w.run("workflow_dispatch", dispatchEvent(1), runOptions{ExtraWith: map[string]string{"binary-path": prebuilt}}).mustSucceed(b)
			return "pull_request_review", w.copilotReview(b), runOptions{}
		}},
		{"issue_comment/collaborator", func(b *testing.B, w *world) (string, any, runOptions) {
			id, err := w.fake.AddIssueComment(owner, repoName, 1, "maintainer", "COLLABORATOR", "@review-loop status")
			if err != nil {
				b.Fatal(err)
			}
			return "issue_comment", issueCommentEvent(id, "maintainer", "COLLABORATOR", "@review-loop status"), runOptions{}
		}},
		{"issue_comment/stranger", func(b *testing.B, w *world) (string, any, runOptions) {
			id, err := w.fake.AddIssueComment(owner, repoName, 1, "stranger", "NONE", "@review-loop status")
			if err != nil {
				b.Fatal(err)
			}
			return "issue_comment", issueCommentEvent(id, "stranger", "NONE", "@review-loop status"), runOptions{}
		}},
		{"bad-input", func(*testing.B, *world) (string, any, runOptions) {
			return "workflow_dispatch", badEnginesEvent(), runOptions{}
		}},
	}
	actBinary(b)
	buildReviewLoop(b, prebuilt)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var walls, startups []time.Duration
			for b.Loop() {
				b.StopTimer()
				w := newWorld(b)
				event, payload, o := c.setup(b, w)
				b.StartTimer()
				r := w.run(event, payload, o)
				walls, startups = append(walls, r.Wall), append(startups, r.Startup)
			}
			b.ReportMetric(median(walls).Seconds(), "s-wall/median")
			b.ReportMetric(median(startups).Seconds(), "s-before-cycle/median")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// labels is PR #1's labels as a webhook payload's pull_request.labels
// carries them: the labels the PR has when the event is sent.
func (w *world) labels() []any {
	var out []any
	for _, l := range w.fake.PR(owner, repoName, 1).Labels {
		out = append(out, map[string]any{"name": l})
	}
	return out
}

// oneFixCommit checks that the PR branch moved from head by one commit
// whose file holds want (the applied suggestion), and returns the PR.
func (w *world) oneFixCommit(t *testing.T, head, output, file, want string) ghfake.PRSnapshot {
	t.Helper()
	pr := w.fake.PR(owner, repoName, 1)
	if pr.HeadSHA == head {
		t.Fatalf("nothing pushed to the PR branch\n%s", output)
	}
	bare := strings.TrimPrefix(w.fake.CloneURL(owner, repoName), "file://")
	if n := git(t, bare, "rev-list", "--count", head+".."+pr.HeadSHA); n != "1" {
		t.Errorf("%s commits pushed, want one fix commit", n)
	}
	if got := git(t, bare, "show", pr.HeadSHA+":"+file); !strings.Contains(got, want) {
		t.Errorf("the suggestion is not in the pushed commit:\n%s", got)
	}
	return pr
}
