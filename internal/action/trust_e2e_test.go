package action_test

import (
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// The secrets of one trust-boundary run: every token input gets its own
// value so a leak names which one escaped.
var tbSecrets = map[string]string{
	"github-token":      "ghs_tb1_github_token_secret_7a0",
	"push-token":        "ghp_tb1_push_token_secret_7a1",
	"trigger-token":     "ghp_tb1_trigger_token_secret_7a2",
	"anthropic-api-key": "sk-ant-tb1-anthropic-secret-7a3",
}

// hunterScript is a test command as an attacker would write it: it looks
// for every token value in the environment of every process it can read
// (its ancestors included), in its own environment and in the checkout's
// git config and hooks, and records what it found.
const hunterScript = `#!/bin/sh
# usage: hunter TOKENS FOUND
tokens="$1"; found="$2"
echo ran >> "$found.ran"
[ -e .git/config ] || echo "no .git/config in $PWD" >> "$found.nogit"
# One grep over every file (-a: NUL-separated text; -l: the file names it
# found a token in), where a tr and a grep per file took 1,200 processes.
hits="$(grep -a -l -s -F -f "$tokens" /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null)"
if [ -n "$hits" ]; then printf '%s\n' "$hits" >> "$found"; fi
if env | grep -F -f "$tokens" >/dev/null 2>&1; then echo "own environment" >> "$found"; fi
if grep -r -F -f "$tokens" .git/config .git/hooks >/dev/null 2>&1; then echo ".git" >> "$found"; fi
exit 0
`

// writeHunter writes the hunter script and its token list; the test
// command input that runs it is returned with the paths of its reports.
func writeHunter(t *testing.T, tokens []string) (command, found string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "hunter.sh")
	list := filepath.Join(dir, "tokens")
	found = filepath.Join(dir, "found")
	if err := os.WriteFile(script, []byte(hunterScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte(strings.Join(tokens, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %s %s", script, list, found), found
}

// copilotSuggestion posts a Copilot review with one suggestion on the head
// and returns the pull_request_review payload that announces it.
func (e *e2e) copilotSuggestion(t *testing.T) map[string]any {
	t.Helper()
	rid, _ := e.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated 1 comment.", CommitSHA: e.head})
	if _, _, err := e.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: e.head, Body: "Subtracts.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"action": "submitted", "repository": repo,
		"review":       map[string]any{"id": rid, "user": map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}, "commit_id": e.head, "state": "commented"},
		"pull_request": map[string]any{"number": 1, "head": map[string]any{"sha": e.head, "ref": "feature"}},
		"sender":       map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}}
}

// TB1: a test command that hunts for tokens finds none — not in its own
// environment, not in /proc/<pid>/environ of any process it can read (the
// review-loop binary that started it included), not in .git.
func TestRule_TB1_TestCommandFindsNoTokenAnywhere(t *testing.T) {
	t.Parallel()
	huntTokens(t, newE2E(t))
}

// TB1 with no checkout step: review-loop's own clone, made for the fix
// cycle, leaves no token in its .git and none in any process either.
func TestRule_TB1_WithNoCheckoutStepTheTestCommandFindsNoTokenAnywhere(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.workspace, e.serverURL = t.TempDir(), e.fake.URL()
	huntTokens(t, e)
}

// huntTokens runs a fix cycle whose test command searches every process's
// environment, its own and the checkout's .git for the run's tokens.
func huntTokens(t *testing.T, e *e2e) {
	t.Helper()
	// Values no other run uses: the hunter reads every process on the
	// machine, other tests' binaries start with e2eToken, and a review-loop
	// binary holds its inputs in its environment until it has dropped them.
	// Another hunt at the same time (the other TB1 test, or this test in
	// another test process) has its own values, so what this hunter finds
	// can only come from this run.
	secrets := map[string]string{}
	run := fmt.Sprintf("_%d_%x", os.Getpid(), crc32.ChecksumIEEE([]byte(t.Name())))
	for k, v := range tbSecrets {
		secrets[k] = v + run
	}
	e.fake.AddToken(secrets["github-token"], ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	e.fake.AddToken(secrets["push-token"], ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	e.fake.AddToken(secrets["trigger-token"], ghfake.Identity{Login: "maintainer", ID: 1001})
	var tokens []string
	for _, v := range secrets {
		tokens = append(tokens, v)
	}
	command, found := writeHunter(t, tokens)
	inputs := map[string]string{"engines": "copilot", "test-command": command}
	for k, v := range secrets {
		inputs[k] = v
	}
	if r := e.run("workflow_dispatch", dispatch("1"), inputs); r.code != 0 {
		t.Fatalf("dispatch exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := e.run("pull_request_review", e.copilotSuggestion(t), inputs)
	if r.code != 0 {
		t.Fatalf("review exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(found + ".ran"); err != nil {
		t.Fatalf("the test command never ran: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(found + ".nogit"); err == nil {
		t.Fatalf("the test command ran outside a checkout, so its .git search proves nothing: %s", b)
	}
	if b, err := os.ReadFile(found); err == nil {
		t.Errorf("the test command found tokens in:\n%s", b)
	}
	if got := e.fake.HeadSHA("octo", "app", 1); got == e.head {
		t.Errorf("the fix was not pushed\n%s\n%s", r.stdout, r.stderr)
	}
}

// TB2: a test command that adds an insteadOf line to the checkout's git
// config (to send the push and its credential elsewhere) gets the push
// refused; the branch on GitHub does not move.
func TestRule_TB2_ACommandPlantingInsteadOfGetsThePushRefused(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere.git")
	if out, err := exec.Command("git", "init", "--quiet", "--bare", elsewhere).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	script := filepath.Join(dir, "plant.sh")
	body := "#!/bin/sh\ngit config url.file://" + elsewhere + ".insteadOf " + e.fake.CloneURL("octo", "app") + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{"engines": "copilot", "test-command": script}
	if r := e.run("workflow_dispatch", dispatch("1"), inputs); r.code != 0 {
		t.Fatalf("dispatch exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := e.run("pull_request_review", e.copilotSuggestion(t), inputs)
	if got := e.fake.HeadSHA("octo", "app", 1); got != e.head {
		t.Fatalf("the fix was pushed despite the planted insteadOf\n%s\n%s", r.stdout, r.stderr)
	}
	if out, _ := exec.Command("git", "--git-dir", elsewhere, "for-each-ref").CombinedOutput(); len(out) != 0 {
		t.Fatalf("the push went elsewhere: %s", out)
	}
	if !strings.Contains(r.stdout+r.stderr, "TB2") || !strings.Contains(strings.ToLower(r.stdout+r.stderr), "insteadof") {
		t.Errorf("no TB2 refusal naming insteadOf:\n%s\n%s", r.stdout, r.stderr)
	}
}

// TB1: a checkout that persisted its credential (actions/checkout without
// persist-credentials: false writes an http extraheader into .git/config)
// has it removed before any command runs: the hunter finds nothing in .git.
func TestRule_TB1_APersistedCheckoutCredentialIsDroppedBeforeAnyCommand(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	const persisted = "ghs_tb1_persisted_checkout_secret_7a4"
	if out, err := exec.Command("git", "-C", e.workspace, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic "+persisted).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	command, found := writeHunter(t, []string{persisted})
	inputs := map[string]string{"engines": "copilot", "test-command": command}
	if r := e.run("workflow_dispatch", dispatch("1"), inputs); r.code != 0 {
		t.Fatalf("dispatch exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := e.run("pull_request_review", e.copilotSuggestion(t), inputs)
	if _, err := os.Stat(found + ".ran"); err != nil {
		t.Fatalf("the test command never ran: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(found); err == nil {
		t.Errorf("the test command found the token in:\n%s", b)
	}
	if got := e.fake.HeadSHA("octo", "app", 1); got == e.head {
		t.Errorf("the fix was not pushed\n%s\n%s", r.stdout, r.stderr)
	}
}

// The hunter TB1 relies on finds what it hunts: a token in another
// process's environment and one on another process's command line, each
// named by its /proc file, and nothing where no token is.
func TestRule_TB1_TheHunterFindsAPlantedToken(t *testing.T) {
	t.Parallel()
	env, arg := "tb1_hunter_planted_env_5f1", "tb1_hunter_planted_arg_5f2"
	command, found := writeHunter(t, []string{env, arg})
	start := func(c *exec.Cmd) *exec.Cmd {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	byEnv := exec.Command("sleep", "60")
	byEnv.Env = append(os.Environ(), "PLANTED="+env)
	start(byEnv)
	byArg := start(exec.Command("sh", "-c", "sleep 60; :", "sh", arg))
	clean := start(exec.Command("sleep", "60"))
	checkout := t.TempDir()
	if err := os.MkdirAll(filepath.Join(checkout, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hunt := exec.Command("sh", "-c", command)
	hunt.Dir = checkout
	if out, err := hunt.CombinedOutput(); err != nil {
		t.Fatalf("hunter: %v\n%s", err, out)
	}
	b, err := os.ReadFile(found)
	if err != nil {
		t.Fatalf("the hunter found nothing: %v", err)
	}
	got := strings.Fields(string(b))
	for _, want := range []string{
		fmt.Sprintf("/proc/%d/environ", byEnv.Process.Pid),
		fmt.Sprintf("/proc/%d/cmdline", byArg.Process.Pid),
	} {
		if !slices.Contains(got, want) {
			t.Errorf("the hunter did not find %s; it found %q", want, got)
		}
	}
	for _, f := range []string{"environ", "cmdline"} {
		if p := fmt.Sprintf("/proc/%d/%s", clean.Process.Pid, f); slices.Contains(got, p) {
			t.Errorf("the hunter found a token in %s, which holds none", p)
		}
	}
}
