package action_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// The end-to-end tests run the real binary, `review-loop cycle`, as a
// subprocess with the Actions environment, against the fake GitHub over
// HTTP. scripts/test builds it once, the way action.yml does, and names
// it in REVIEW_LOOP_TEST_BINARY; without that the tests build it
// themselves, once per process.

// testBinaryEnv names a review-loop binary built from this tree for the
// tests to run instead of building their own.
const testBinaryEnv = "REVIEW_LOOP_TEST_BINARY"

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

func binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(testBinaryEnv); p != "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			t.Fatalf("%s=%s is not an executable review-loop binary", testBinaryEnv, p)
		}
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "review-loop-e2e-*")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "review-loop")
		out, err := exec.Command("go", "build", "-o", builtPath, "../../cmd/review-loop").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

const e2eToken = "ghs_e2e_token_must_never_print_42"

type e2e struct {
	t         testing.TB
	fake      *ghfake.Fake
	workspace string
	head      string
	// unset names environment variables the next runs leave out.
	unset []string
	// serverURL, when set, is GITHUB_SERVER_URL (the fake, for runs
	// with no checkout that clone from it).
	serverURL string
	// env holds variables the next runs set or override (HOME, say).
	env map[string]string
	// runnerTemp, when set, is RUNNER_TEMP of the next runs instead of a
	// fresh directory.
	runnerTemp string
}

func newE2E(t testing.TB) *e2e {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := &e2e{t: t, fake: ghfake.New(ghfake.Options{})}
	t.Cleanup(e.fake.Close)
	e.fake.AddToken(e2eToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	e.fake.AddUser("maintainer", 1001, false)
	e.fake.AddUser("stranger", 1002, false)
	if err := e.fake.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	// The PR's author maintains the repository: the start label and the
	// commands need write permission (TB3, TB15).
	if err := e.fake.SetPermission("octo", "app", "maintainer", "admin"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"calc/calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"}
	if _, err := e.fake.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Files: files, Author: "maintainer"}); err != nil {
		t.Fatal(err)
	}
	e.head = e.fake.HeadSHA("octo", "app", 1)
	e.workspace = t.TempDir()
	if out, err := exec.Command("git", "clone", "--quiet", "--branch", "feature", e.fake.CloneURL("octo", "app"), e.workspace).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	return e
}

type runResult struct {
	code           int
	maxRSS         int64 // KiB
	stdout, stderr string
	outputs        map[string]string
	summary        string
}

var repo = map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}}

// run runs one cycle as a subprocess for the event.
func (e *e2e) run(event string, payload any, inputs map[string]string) runResult {
	e.t.Helper()
	dir := cmp.Or(e.runnerTemp, e.t.TempDir())
	var raw []byte
	switch p := payload.(type) {
	case string:
		raw = []byte(p)
	default:
		raw, _ = json.Marshal(p)
	}
	eventPath := filepath.Join(dir, "event.json")
	// The runner's layout: the file-command files of the step live in
	// RUNNER_TEMP/_runner_file_commands.
	fc := filepath.Join(dir, "_runner_file_commands")
	if err := os.MkdirAll(fc, 0o755); err != nil {
		e.t.Fatal(err)
	}
	outPath := filepath.Join(fc, "set_output_1")
	sumPath := filepath.Join(fc, "step_summary_1")
	envPath := filepath.Join(fc, "set_env_1")
	pathPath := filepath.Join(fc, "add_path_1")
	statePath := filepath.Join(fc, "save_state_1")
	for _, p := range []string{outPath, sumPath, envPath, pathPath, statePath} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := os.WriteFile(eventPath, raw, 0o600); err != nil {
		e.t.Fatal(err)
	}
	cmd := exec.Command(binary(e.t), "cycle")
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + eventPath,
		"GITHUB_REPOSITORY=octo/app", "GITHUB_API_URL=" + e.fake.URL(), "GITHUB_GRAPHQL_URL=" + e.fake.GraphQLURL(),
		"GITHUB_SERVER_URL=" + cmp.Or(e.serverURL, "https://github.com"), "GITHUB_WORKSPACE=" + e.workspace, "GITHUB_RUN_ID=9",
		"GITHUB_WORKFLOW_REF=octo/app/.github/workflows/review-loop.yml@refs/heads/main",
		"GITHUB_OUTPUT=" + outPath, "GITHUB_STEP_SUMMARY=" + sumPath, "RUNNER_TEMP=" + dir,
		"GITHUB_ENV=" + envPath, "GITHUB_PATH=" + pathPath, "GITHUB_STATE=" + statePath,
		"INPUT_GITHUB-TOKEN=" + e2eToken, "INPUT_TEST-COMMAND=true",
	}
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	for k, v := range e.env {
		cmd.Env = append(cmd.Env, k+"="+v) // the last value of a name wins
	}
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool {
		return slices.ContainsFunc(e.unset, func(k string) bool { return strings.HasPrefix(kv, k+"=") })
	})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	e.t.Logf("%s cycle: %v", event, time.Since(began).Round(time.Millisecond))
	res := runResult{stdout: stdout.String(), stderr: stderr.String(), outputs: map[string]string{}}
	if cmd.ProcessState != nil {
		res.maxRSS = maxRSSKB(cmd.ProcessState)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		res.code = exit.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	res.outputs = parseOutputs(e.t, outPath)
	b, _ := os.ReadFile(sumPath)
	res.summary = string(b)
	// The runner hides a masked value everywhere; the mask command itself
	// is the one place the value may appear.
	var shown []string
	for _, l := range strings.Split(res.stdout+res.stderr+res.summary, "\n") {
		if !strings.HasPrefix(l, "::add-mask::") {
			shown = append(shown, l)
		}
	}
	if strings.Contains(strings.Join(shown, "\n"), e2eToken) {
		e.t.Errorf("the token was printed:\n%s\n%s", res.stdout, res.stderr)
	}
	return res
}

// parseOutputs reads a GITHUB_OUTPUT file (name<<DELIM ... DELIM entries).
func parseOutputs(t testing.TB, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func dispatch(pr string) map[string]any {
	return map[string]any{"inputs": map[string]any{"pr": pr}, "ref": "refs/heads/main", "repository": repo, "sender": map[string]any{"login": "maintainer"}}
}

func comment(login, association, body string, id int64) map[string]any {
	return map[string]any{
		"action":     "created",
		"issue":      map[string]any{"number": 1, "pull_request": map[string]any{"url": "https://api.github.com/repos/octo/app/pulls/1"}},
		"comment":    map[string]any{"id": id, "body": body, "author_association": association, "user": map[string]any{"login": login, "type": "User"}},
		"repository": repo, "sender": map[string]any{"login": login, "type": "User"},
	}
}

func (e *e2e) writes() int {
	n := 0
	for _, r := range e.fake.Requests() {
		if r.Method != "GET" && r.Operation != "query" {
			n++
		}
	}
	return n
}

func TestE2E_EachEventKind(t *testing.T) {
	t.Parallel()
	e := newE2E(t)

	// workflow_dispatch with pr: the first, trigger-only cycle.
	r := e.run("workflow_dispatch", dispatch("1"), map[string]string{"engines": "copilot,bugbot"})
	if r.code != 0 {
		t.Fatalf("dispatch exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r.outputs["phase"] != "trigger" || r.outputs["verdict"] == "" || r.outputs["report-json"] == "" {
		t.Errorf("outputs = %v", r.outputs)
	}
	if !strings.Contains(r.summary, "copilot") {
		t.Errorf("job summary lacks the engines:\n%s", r.summary)
	}

	// pull_request_review submitted by Copilot with a suggestion: fixed and pushed.
	rid, _ := e.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated 1 comment.", CommitSHA: e.head})
	if _, _, err := e.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: e.head, Body: "Subtracts.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.SetCheckRun("octo", "app", 1, ghfake.CheckRunOptions{Name: "Cursor Bugbot", AppSlug: "cursor", Status: "COMPLETED", Conclusion: "SUCCESS"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "cursor", Body: "✅ Bugbot reviewed your changes and found no new issues!", CommitSHA: e.head}); err != nil {
		t.Fatal(err)
	}
	review := map[string]any{"action": "submitted", "repository": repo,
		"review":       map[string]any{"id": rid, "user": map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}, "commit_id": e.head, "state": "commented"},
		"pull_request": map[string]any{"number": 1, "head": map[string]any{"sha": e.head, "ref": "feature"}},
		"sender":       map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}}
	r = e.run("pull_request_review", review, map[string]string{"engines": "copilot,bugbot"})
	if r.code != 0 {
		t.Fatalf("review exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := e.fake.HeadSHA("octo", "app", 1); got == e.head {
		t.Fatalf("no fix commit was pushed\n%s\n%s", r.stdout, r.stderr)
	}
	if r.outputs["commits"] != "1" {
		t.Errorf("outputs = %v", r.outputs)
	}

	// check_run completed by an app we watch, with the PR in the payload.
	newHead := e.fake.HeadSHA("octo", "app", 1)
	check := map[string]any{"action": "completed", "repository": repo, "sender": map[string]any{"login": "cursor[bot]"},
		"check_run": map[string]any{"id": 5, "name": "Cursor Bugbot", "head_sha": newHead, "status": "completed", "conclusion": "success",
			"app": map[string]any{"slug": "cursor", "name": "Cursor"}, "pull_requests": []any{map[string]any{"number": 1}}}}
	if r = e.run("check_run", check, nil); r.code != 0 {
		t.Fatalf("check_run exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// A check run of an app we do not watch: ignored with no request at all.
	e.fake.ResetRequests()
	other := map[string]any{"action": "completed", "repository": repo, "sender": map[string]any{"login": "ci[bot]"},
		"check_run": map[string]any{"id": 6, "name": "lint", "head_sha": newHead, "status": "completed", "conclusion": "success",
			"app": map[string]any{"slug": "some-ci", "name": "Some CI"}, "pull_requests": []any{map[string]any{"number": 1}}}}
	if r = e.run("check_run", other, nil); r.code != 0 || len(e.fake.Requests()) != 0 {
		t.Errorf("an unwatched check run made %d requests (exit %d)", len(e.fake.Requests()), r.code)
	}

	// issue_comment @review-loop status from a collaborator: acknowledged.
	before := len(e.fake.Reactions())
	cid, err := e.fake.AddIssueComment("octo", "app", 1, "maintainer", "COLLABORATOR", "@review-loop status")
	if err != nil {
		t.Fatal(err)
	}
	if r = e.run("issue_comment", comment("maintainer", "COLLABORATOR", "@review-loop status", cid), nil); r.code != 0 {
		t.Fatalf("status exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// 👀 when it is read, 👍 when it is carried out.
	if got := e.fake.Reactions()[before:]; len(got) != 2 || got[0].Content != "eyes" || got[1].Content != "+1" {
		t.Errorf("the command was not acknowledged with 👀 then 👍: %+v", got)
	}

	// ... and from a stranger: nothing changes.
	e.fake.ResetRequests()
	if r = e.run("issue_comment", comment("stranger", "NONE", "@review-loop stop", 2), nil); r.code != 0 {
		t.Fatalf("stranger exit %d", r.code)
	}
	if e.writes() != 0 {
		t.Errorf("a stranger's command wrote: %+v", e.fake.Requests())
	}

	// pull_request closed: the loop ends.
	closed := map[string]any{"action": "closed", "number": 1, "repository": repo, "sender": map[string]any{"login": "maintainer"},
		"pull_request": map[string]any{"number": 1, "state": "closed", "head": map[string]any{"sha": newHead, "ref": "feature"}}}
	if err := e.fake.SetPRState("octo", "app", 1, "CLOSED", false); err != nil {
		t.Fatal(err)
	}
	if r = e.run("pull_request", closed, nil); r.code != 0 {
		t.Fatalf("closed exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// schedule: a sweep of open PRs finds none open now.
	if r = e.run("schedule", map[string]any{"schedule": "*/30 * * * *", "repository": repo}, nil); r.code != 0 {
		t.Fatalf("schedule exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// Any other event: exit 0 with a notice, touching nothing.
	e.fake.ResetRequests()
	if r = e.run("deployment", map[string]any{"action": "created"}, nil); r.code != 0 || !strings.Contains(r.stdout, "::notice") || len(e.fake.Requests()) != 0 {
		t.Errorf("unsupported event: exit %d, %d requests\n%s", r.code, len(e.fake.Requests()), r.stdout)
	}
}

func TestE2E_BadInputFailsWithAnErrorAnnotationAndWritesNothing(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	cases := []struct {
		name    string
		event   string
		payload any
		inputs  map[string]string
		want    string
	}{
		{"missing token", "workflow_dispatch", dispatch("1"), map[string]string{"github-token": ""}, "github-token"},
		{"unknown engine", "workflow_dispatch", dispatch("1"), map[string]string{"engines": "copilot,hal"}, "known engines"},
		{"non-numeric pr", "workflow_dispatch", dispatch("abc"), nil, `"abc"`},
		{"negative bound", "workflow_dispatch", dispatch("1"), map[string]string{"max-commits": "-2"}, "max-commits"},
		{"payload not JSON", "issue_comment", "{nope", nil, "issue_comment"},
	}
	for _, tc := range cases {
		e.fake.ResetRequests()
		r := e.run(tc.event, tc.payload, tc.inputs)
		if r.code == 0 || !strings.Contains(r.stdout, "::error") || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: exit %d, want non-zero with an ::error naming %q\nstdout: %s\nstderr: %s", tc.name, r.code, tc.want, r.stdout, r.stderr)
		}
		if e.writes() != 0 {
			t.Errorf("%s: wrote %+v", tc.name, e.fake.Requests())
		}
	}
}

// scripts/test builds review-loop once and names it in
// REVIEW_LOOP_TEST_BINARY: the cycles run that file, not one of their own
// build. The file here is a wrapper that notes its runs and then runs the
// real binary.
func TestE2E_RunsTheBinaryTheEnvironmentNames(t *testing.T) {
	real := binary(t)
	dir := t.TempDir()
	wrapper, marker := filepath.Join(dir, "review-loop"), filepath.Join(dir, "ran")
	script := fmt.Sprintf("#!/bin/sh\necho \"$0 $1\" >>'%s'\nexec '%s' \"$@\"\n", marker, real)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(testBinaryEnv, wrapper)
	e := newE2E(t)
	r := e.run("issue_comment", "{nope", nil)
	if r.code == 0 || !strings.Contains(r.stdout, "::error") {
		t.Errorf("exit %d, want the real binary's error annotation\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	ran, err := os.ReadFile(marker)
	if err != nil || string(ran) != wrapper+" cycle\n" {
		t.Fatalf("the cycle did not run %s (%v): %q", wrapper, err, ran)
	}
}

func TestE2E_VersionStartsFast(t *testing.T) {
	t.Parallel()
	start := time.Now()
	out, err := exec.Command(binary(t), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "review-loop ") {
		t.Fatalf("version: %v %s", err, out)
	}
	t.Logf("review-loop version took %v", time.Since(start))
}
