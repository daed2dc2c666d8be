package action_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/prepared"
)

// The attacks of rules TB7, TB8 and TB11, each made by a test command of
// the repository under review, against the built binary run as Actions
// runs it (the runner's RUNNER_TEMP layout with _runner_file_commands, a
// HOME the command can write, the origin on the fake GitHub's HTTPS-like
// server), in single-job mode and in hardened mode (prepare runs the
// command, publish pushes), each with and without a checkout step.

// attackModes are the ways a workflow runs review-loop.
var attackModes = []string{"single", "single, no checkout", "hardened", "hardened, no checkout"}

const attackReadToken = "ghs_tb_attack_read_only_token_5e1"

// rig is one workflow's jobs on one machine: the runs share HOME and
// RUNNER_TEMP, as jobs on a self-hosted runner do (on GitHub-hosted
// runners each job has a fresh machine, which only makes the attack
// harder).
type rig struct {
	e        *e2e
	mode     string
	prepare  string // the prepare job's workspace (hardened)
	publish  string // the publish job's workspace (hardened)
	artifact string
	home     string
	// mayFail lets a job end with an error (a refused cycle).
	mayFail bool
	// afterCommands, when set, runs right after the job that ran the
	// repository's commands, before any other job.
	afterCommands func()
}

func newRig(t *testing.T, mode string) *rig {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the attacks read /proc")
	}
	e := newE2E(t)
	e.fake.AddToken(attackReadToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true, ReadOnly: true})
	g := &rig{e: e, mode: mode, artifact: t.TempDir(), home: t.TempDir()}
	e.serverURL = e.fake.URL()
	e.runnerTemp = t.TempDir()
	e.env = map[string]string{"HOME": g.home}
	checkout := func() string {
		if strings.Contains(mode, "no checkout") {
			return t.TempDir()
		}
		dir := t.TempDir()
		run(t, "", "git", "clone", "--quiet", "--branch", "feature", e.fake.CloneURL("octo", "app"), dir)
		run(t, dir, "git", "remote", "set-url", "origin", e.fake.HTTPCloneURL("octo", "app"))
		return dir
	}
	e.workspace = checkout()
	if strings.HasPrefix(mode, "hardened") {
		g.prepare, g.publish = e.workspace, checkout()
	}
	return g
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// cycle runs one event: one job in single mode; prepare (read-only token,
// the repository's commands) then publish (the write token) in hardened
// mode. It returns the job that ran the commands and the one that pushed.
func (g *rig) cycle(t *testing.T, event string, payload any, inputs map[string]string) (commands, pusher runResult) {
	t.Helper()
	if !strings.HasPrefix(g.mode, "hardened") {
		r := g.e.run(event, payload, inputs)
		if r.code != 0 && !g.mayFail {
			t.Fatalf("%s exit %d\n%s\n%s", event, r.code, r.stdout, r.stderr)
		}
		if g.afterCommands != nil {
			g.afterCommands()
		}
		return r, r
	}
	in := maps.Clone(inputs)
	in["mode"], in["artifact-dir"], in["github-token"] = "prepare", g.artifact, attackReadToken
	g.e.workspace = g.prepare
	prep := g.e.run(event, payload, in)
	if prep.code != 0 && !g.mayFail {
		t.Fatalf("prepare %s exit %d\n%s\n%s", event, prep.code, prep.stdout, prep.stderr)
	}
	handOver := prep.outputs["prepared"]
	if g.afterCommands != nil {
		g.afterCommands()
		// What the prepare job hands over is whatever its directory holds
		// when it ends: a test that tampers with it forges the hand-over.
		if _, err := os.Stat(g.artifact); err == nil {
			var err error
			if handOver, err = prepared.Pack(g.artifact); err != nil {
				t.Fatal(err)
			}
		}
	}
	in = maps.Clone(inputs)
	// The hand-over is the prepare job's output `prepared`, passed on as
	// a job output (TB16); the publish job has a directory of its own.
	in["mode"], in["prepared"], in["artifact-dir"] = "publish", handOver, filepath.Join(t.TempDir(), "unused")
	for _, k := range []string{"test-command", "setup-command", "lint-command", "fixer", "anthropic-api-key"} {
		delete(in, k) // the publish job runs no repository code
	}
	g.e.workspace = g.publish
	pub := g.e.run(event, payload, in)
	if pub.code != 0 && !g.mayFail {
		t.Fatalf("publish %s exit %d\n%s\n%s", event, pub.code, pub.stdout, pub.stderr)
	}
	return prep, pub
}

// fixCycle runs the loop's first cycle and then the fix cycle of one
// Copilot suggestion, whose test command is command.
func (g *rig) fixCycle(t *testing.T, inputs map[string]string) (commands, pusher runResult) {
	t.Helper()
	first := maps.Clone(inputs)
	delete(first, "test-command")
	g.cycle(t, "workflow_dispatch", dispatch("1"), first)
	return g.cycle(t, "pull_request_review", g.e.copilotSuggestion(t), inputs)
}

// tokenForms are the shapes the push token takes: itself and the Basic
// credential git builds from it.
func tokenForms(token string) []string {
	return []string{token, base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))}
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "attack.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func leaked(t *testing.T, file string, token string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	for _, f := range tokenForms(token) {
		if strings.Contains(string(b), f) {
			return true
		}
	}
	return false
}

// TB7: the test command writes ~/.gitconfig with a pushInsteadOf that
// sends the repository's URL to a local decoy and a receivepack that dumps
// its environment. The fix push still goes to the GitHub server, the decoy
// gets nothing and the dump holds no token.
func TestRule_TB7_AGlobalGitconfigRedirectDoesNotTakeThePush(t *testing.T) {
	t.Parallel()
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			evil := t.TempDir()
			decoy, leak := filepath.Join(evil, "decoy.git"), filepath.Join(evil, "LEAK")
			run(t, "", "git", "init", "--quiet", "--bare", decoy)
			url := g.e.fake.HTTPCloneURL("octo", "app")
			cmd := script(t, fmt.Sprintf(`cat > "$HOME/.gitconfig" <<'EOF'
[url "%[1]s"]
	pushInsteadOf = %[2]s
	insteadOf = %[2]s
[remote "origin"]
	receivepack = "env > %[3]s; git-receive-pack"
[remote "%[1]s"]
	receivepack = "env > %[3]s; git-receive-pack"
EOF
`, decoy, url, leak))
			head := g.e.head
			_, pub := g.fixCycle(t, map[string]string{"engines": "copilot", "test-command": cmd})
			if _, err := os.Stat(filepath.Join(g.home, ".gitconfig")); err != nil {
				t.Fatalf("the attack never ran: %v", err)
			}
			if leaked(t, leak, e2eToken) {
				t.Errorf("the decoy's receivepack got the push token")
			}
			if out := run(t, "", "git", "--git-dir", decoy, "for-each-ref"); out != "" {
				t.Errorf("the push went to the decoy: %s", out)
			}
			if got := g.e.fake.HeadSHA("octo", "app", 1); got == head {
				t.Errorf("the fix did not reach the GitHub server\n%s\n%s", pub.stdout, pub.stderr)
			}
		})
	}
}

// TB8: the test command starts a poller in a session of its own that reads
// every git process's environment and command line for the token, and
// exits 0. The poller is dead before the push, and it found nothing.
func TestRule_TB8_ADetachedPollerIsDeadBeforeThePush(t *testing.T) {
	t.Parallel()
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			dir := t.TempDir()
			tokens, found, pidFile := filepath.Join(dir, "tokens"), filepath.Join(dir, "FOUND"), filepath.Join(dir, "pid")
			if err := os.WriteFile(tokens, []byte(strings.Join(tokenForms(e2eToken), "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// POSIX sh only: read(1) is a builtin, so the poller forks only
			// for processes named git* or sh, two greps each.
			cmd := script(t, fmt.Sprintf(`setsid sh -c '
echo $$ > %[1]s
while :; do
  for p in /proc/[0-9]*; do
    c=""; read -r c < "$p/comm" 2>/dev/null
    case "$c" in git*|sh)
      # The CGI processes of the fake GitHub (of any test) are the server
      # side of the wire: they receive the header by design. grep -z reads
      # the environment a variable a line; -a reads NUL-separated text.
      grep -a -z -q "^GATEWAY_INTERFACE=" "$p/environ" 2>/dev/null && continue
      hits="$(grep -a -l -s -F -f %[2]s "$p/environ" "$p/cmdline" 2>/dev/null)"
      [ -n "$hits" ] && echo "$hits $c" >> %[3]s;;
    esac
  done
  sleep 0.01
done' >/dev/null 2>&1 </dev/null &
sleep 0.2
exit 0
`, pidFile, tokens, found))
			t.Cleanup(func() {
				if pid := readPid(pidFile); pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			var mu sync.Mutex
			var atPush []string
			g.e.fake.OnPush(func(ghfake.PushEvent) {
				pid := readPid(pidFile)
				alive := pid > 0 && syscall.Kill(pid, 0) == nil
				mu.Lock()
				atPush = append(atPush, fmt.Sprintf("pid %d alive=%v", pid, alive))
				mu.Unlock()
			})
			head := g.e.head
			_, pub := g.fixCycle(t, map[string]string{"engines": "copilot", "test-command": cmd})
			if readPid(pidFile) == 0 {
				t.Fatal("the poller never started")
			}
			if got := g.e.fake.HeadSHA("octo", "app", 1); got == head {
				t.Fatalf("nothing was pushed\n%s\n%s", pub.stdout, pub.stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(atPush) == 0 || strings.Contains(strings.Join(atPush, " "), "alive=true") {
				t.Errorf("the poller was alive at the push: %v", atPush)
			}
			if b, err := os.ReadFile(found); err == nil {
				t.Errorf("the poller found the token in:\n%s", b)
			}
		})
	}
}

func readPid(file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// TB11: a test command that knows the runner's layout appends NODE_OPTIONS
// and BASH_ENV to every file-command file in RUNNER_TEMP (GITHUB_ENV would
// hand them to every later step) and notes the temporary directory it was
// given. The files are as review-loop left them, the command saw no
// RUNNER_TEMP, and its TMPDIR was outside it.
func TestRule_TB11_ACommandCannotInjectIntoTheRunnersFileCommands(t *testing.T) {
	t.Parallel()
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			seen := filepath.Join(t.TempDir(), "seen")
			cmd := script(t, fmt.Sprintf(`for f in %[1]s/_runner_file_commands/*; do
  printf 'NODE_OPTIONS=--require=/tmp/evil.js\nBASH_ENV=/tmp/evil.sh\n/tmp/evil-bin\n' >> "$f"
done
printf 'RUNNER_TEMP=%%s\nTMPDIR=%%s\n' "$RUNNER_TEMP" "$TMPDIR" > %[2]s
`, g.e.runnerTemp, seen))
			fc := filepath.Join(g.e.runnerTemp, "_runner_file_commands")
			checked := 0
			g.afterCommands = func() {
				// What the runner reads when the step that ran the
				// command ends.
				entries, _ := os.ReadDir(fc)
				for _, en := range entries {
					checked++
					c, _ := os.ReadFile(filepath.Join(fc, en.Name()))
					if strings.Contains(string(c), "evil") {
						t.Errorf("%s holds what the command injected:\n%s", en.Name(), c)
					}
				}
			}
			commands, _ := g.fixCycle(t, map[string]string{"engines": "copilot", "test-command": cmd})
			b, err := os.ReadFile(seen)
			if err != nil {
				t.Fatalf("the attack never ran: %v\n%s", err, commands.stderr)
			}
			if checked < 5 {
				t.Fatalf("checked %d file-command files, want the step's five", checked)
			}
			got := string(b)
			if strings.Contains(got, "RUNNER_TEMP="+g.e.runnerTemp) {
				t.Errorf("the command got RUNNER_TEMP:\n%s", got)
			}
			_, tmp, _ := strings.Cut(got, "TMPDIR=")
			tmp = strings.TrimSpace(tmp)
			if tmp == "" || strings.HasPrefix(tmp, g.e.runnerTemp) {
				t.Errorf("the command's TMPDIR %q is not a directory of its own outside RUNNER_TEMP", tmp)
			}
			// The refused fix says why on the PR, not only "reverted".
			if status := g.e.statusComment(t); !strings.Contains(status, "file-command files") || !strings.Contains(status, "TB11") {
				t.Errorf("the status comment does not name why the fix was reverted:\n%s", status)
			}
		})
	}
}

// TB11: the test command of one fix cycle replaces the claude CLI on PATH
// with a program that dumps its environment. The next cycle's agent run is
// refused with an error naming the swap, and the API key reaches nothing.
func TestRule_TB11_ASwappedAgentCLIGetsNoKey(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-ant-tb11-swapped-cli-secret-9c2"
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			bin := t.TempDir()
			claude := filepath.Join(bin, "claude")
			stub := []byte(`#!/bin/sh
id=$(grep -o '"id": "[^"]*"' "$REVIEW_LOOP_FINDINGS" | head -n 1 | cut -d '"' -f 4)
sed -i 's/a - b/a + b/' calc/calc.go
echo "// reviewed" >> calc/calc.go
echo "{\"fixed\":[\"$id\"],\"outdated\":[],\"disagreed\":[],\"error\":null}" > "$REVIEW_LOOP_REPLY"
echo '{"type":"result","subtype":"success","is_error":false,"result":"done"}'
`)
			if err := os.WriteFile(claude, stub, 0o755); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(stub)
			leak := filepath.Join(t.TempDir(), "LEAK")
			evil := script(t, "env > "+leak+"\n")
			swap := script(t, "cp "+evil+" "+claude+"\n")
			g.e.env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
			// What the action's install step recorded.
			g.e.env["REVIEW_LOOP_AGENT_SHA256"] = hex.EncodeToString(sum[:])
			// The next review raises a finding on the lines the first fix
			// changed; the divergence stop (CV2) would hand back before the
			// agent is asked again, so it is off: this test is about the
			// agent run.
			inputs := map[string]string{"engines": "copilot", "fixer": "claude-code", "anthropic-api-key": apiKey, "test-command": swap, "divergence-stop": "false"}
			_, pub := g.fixCycle(t, inputs)
			fixed := g.e.fake.HeadSHA("octo", "app", 1)
			if fixed == g.e.head {
				t.Fatalf("the first cycle pushed nothing\n%s\n%s", pub.stdout, pub.stderr)
			}
			if b, _ := os.ReadFile(claude); string(b) == string(stub) {
				t.Fatal("the swap never happened")
			}
			// The next review, on the pushed fix: the agent is asked again.
			g.e.head = fixed
			g.mayFail = true
			commands, _ := g.cycle(t, "pull_request_review", g.e.copilotSuggestion(t), inputs)
			if b, err := os.ReadFile(leak); err == nil && strings.Contains(string(b), apiKey) {
				t.Fatal("the swapped CLI got the API key")
			}
			if _, err := os.Stat(leak); err == nil {
				t.Error("the swapped CLI ran")
			}
			if out := commands.stdout + commands.stderr; !strings.Contains(out, "TB11") || !strings.Contains(out, "claude") {
				t.Errorf("no TB11 refusal naming claude:\n%s", out)
			}
		})
	}
}
