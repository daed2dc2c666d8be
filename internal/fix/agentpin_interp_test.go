package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// fakeNode is a stand-in for node: it runs the script it is given with sh,
// so a CLI written as `#!/usr/bin/env node` runs as the npm CLIs do.
const fakeNode = "#!/bin/sh\nexec /bin/sh \"$@\"\n"

// interpAgent writes a claude CLI whose first line is shebang and a node
// that runs it, each in its own directory; it returns both directories
// and the CLI's record file (written when the CLI runs).
func interpAgent(t *testing.T, shebang func(nodeDir string) string) (cliDir, nodeDir, record string) {
	t.Helper()
	cliDir, nodeDir = t.TempDir(), t.TempDir()
	record = filepath.Join(cliDir, "record")
	if err := os.WriteFile(filepath.Join(nodeDir, "node"), []byte(fakeNode), 0o755); err != nil {
		t.Fatal(err)
	}
	body := shebang(nodeDir) + "\n" +
		"echo ran > '" + record + "'\n" +
		`echo '{"type":"result","subtype":"success","is_error":false,"result":"{\"fixed\":[],\"outdated\":[],\"disagreed\":[{\"id\":\"copilot-1\",\"reply\":\"no\"}],\"error\":null}"}'` + "\n"
	if err := os.WriteFile(filepath.Join(cliDir, "claude"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return cliDir, nodeDir, record
}

func envShebang(string) string         { return "#!/usr/bin/env node" }
func absShebang(nodeDir string) string { return "#!" + filepath.Join(nodeDir, "node") }

// TB11: the npm claude and codex CLIs are `#!/usr/bin/env node` scripts,
// so the node PATH finds runs with the API key. A node swapped after
// review-loop recorded the CLI — its bytes replaced in place, or another
// one put earlier on PATH — never runs: the cycle is refused with an error
// naming the interpreter file.
func TestRule_TB11_ASwappedInterpreterIsRefused(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"env node in place", "env node earlier on PATH", "absolute node in place"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			_, cfg := setup(t)
			shebang := envShebang
			if strings.HasPrefix(how, "absolute") {
				shebang = absShebang
			}
			cli, node, record := interpAgent(t, shebang)
			before := t.TempDir()
			cfg.Env = agentEnv(strings.Join([]string{before, cli, node}, string(os.PathListSeparator)))
			pin := PinAgent("claude", cfg.Env, "")
			if pin.Err != nil {
				t.Fatal(pin.Err)
			}
			leak := filepath.Join(t.TempDir(), "LEAK")
			evil := []byte("#!/bin/sh\nenv > '" + leak + "'\n")
			swapped := filepath.Join(node, "node")
			if strings.Contains(how, "earlier on PATH") {
				swapped = filepath.Join(before, "node")
			}
			if err := os.WriteFile(swapped, evil, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg.Agent = Agent{APIKey: "sk-ant-pinned-secret", Pin: pin}
			_, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: []loop.Finding{commandFinding("Name it.")}})
			if err == nil || !strings.Contains(err.Error(), "TB11") || !strings.Contains(err.Error(), swapped) {
				t.Fatalf("RunCycle: %v, want a TB11 refusal naming %s", err, swapped)
			}
			if _, err := os.Stat(leak); err == nil {
				t.Fatal("the swapped node ran with the API key")
			}
			if _, err := os.Stat(record); err == nil {
				t.Fatal("the CLI ran under the swapped node")
			}
		})
	}
}

// TB11: a CLI run by the interpreter recorded with it runs, through env or
// by absolute path, and the pin names that interpreter.
func TestRule_TB11_ThePinnedInterpreterRuns(t *testing.T) {
	t.Parallel()
	for name, shebang := range map[string]func(string) string{"env": envShebang, "absolute": absShebang} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, cfg := setup(t)
			cli, node, record := interpAgent(t, shebang)
			cfg.Env = agentEnv(cli + string(os.PathListSeparator) + node)
			pin := PinAgent("claude", cfg.Env, "")
			if pin.Err != nil {
				t.Fatal(pin.Err)
			}
			cfg.Agent = Agent{APIKey: "sk-ant-pinned-secret", Pin: pin}
			if _, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: []loop.Finding{commandFinding("Name it.")}}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(record); err != nil {
				t.Fatal("the pinned CLI did not run")
			}
		})
	}
}

// TB11: the env shebangs the pin follows, and those it refuses rather
// than guess which program env would run.
func TestRule_TB11_EnvShebangs(t *testing.T) {
	t.Parallel()
	for arg, want := range map[string]string{
		"node":                          "node",
		"-S node --no-warnings":         "node",
		"-S  node":                      "node",
		"/opt/node/bin/node":            "/opt/node/bin/node",
		"":                              "error",
		"-S":                            "error",
		"-i node":                       "error",
		"-S PATH=/tmp/x node":           "error",
		"NODE_OPTIONS=--require=x node": "error",
		"node --no-warnings":            "error",
		"bin/node":                      "error",
	} {
		got, err := envProgram(arg)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("envProgram(%q) = %q (%v), want %q", arg, got, err, want)
		}
	}
}

// TB11: a relative or empty PATH entry searched before the interpreter is
// found makes it depend on the agent's working directory (the checkout):
// nothing is pinned and the agent does not run.
func TestRule_TB11_ARelativePATHEntryBeforeTheInterpreterIsRefused(t *testing.T) {
	t.Parallel()
	cli, node, _ := interpAgent(t, envShebang)
	for _, path := range []string{cli + ":node_modules/.bin:" + node, cli + "::" + node} {
		pin := PinAgent("claude", []string{"PATH=" + path}, "")
		if pin.Err == nil || !strings.Contains(pin.Err.Error(), "relative") {
			t.Errorf("PATH %s: pin error %v, want the relative entry refused", path, pin.Err)
		}
	}
	if pin := PinAgent("claude", []string{"PATH=" + cli + ":" + node + ":relative"}, ""); pin.Err != nil {
		t.Errorf("a relative entry after the interpreter is refused: %v", pin.Err)
	}
}

// FuzzReadShebang: any first line is read without a panic, and an
// interpreter it returns is non-empty.
func FuzzReadShebang(f *testing.F) {
	for _, s := range []string{"#!/usr/bin/env node\n", "#!/bin/sh", "#!\n", "#! /usr/bin/env -S node -x\r\n", "\x7fELF", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		interp, arg, ok, err := readShebang(p)
		if ok && (err != nil || interp == "") {
			t.Fatalf("ok with interp %q err %v", interp, err)
		}
		if ok {
			_, _ = envProgram(arg)
		}
	})
}
