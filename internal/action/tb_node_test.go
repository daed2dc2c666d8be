package action_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TB11 for the node the agent CLI runs under, with the built binary, as
// TestRule_TB11_ASwappedAgentCLIGetsNoKey does for the CLI itself: the CLI
// is an npm-style `#!/usr/bin/env node` script whose digest the install
// step recorded; the test command of one fix cycle replaces the node PATH
// finds (the runner's tool cache is writable by the job's user) with a
// program that dumps its environment. The next cycle's agent run must be
// refused naming node, and the API key must reach nothing.
//
// It fails today in every mode ("the swapped node got the API key"): the
// node is pinned when each run starts (fix.PinAgent) but checked against
// no digest the install step recorded, so a node swapped by an earlier
// run's command on the same machine (a self-hosted runner) is pinned as
// found. It is skipped until the install step records the interpreter's
// digest too; remove the skip to see it red.
func TestRule_TB11_ASwappedNodeGetsNoKey(t *testing.T) {
	t.Parallel()
	t.Skip("open (TB11): the node an agent CLI runs under is not checked against an install-time digest; see the comment above")
	const apiKey = "sk-ant-tb11-built-node-secret-5e2"
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			bin := t.TempDir()
			node := filepath.Join(bin, "node")
			if err := os.WriteFile(node, []byte("#!/bin/sh\nexec /bin/sh \"$@\"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cli := []byte(`#!/usr/bin/env node
id=$(grep -o '"id": "[^"]*"' "$REVIEW_LOOP_FINDINGS" | head -n 1 | cut -d '"' -f 4)
sed -i 's/a - b/a + b/' calc/calc.go
echo "// reviewed" >> calc/calc.go
echo "{\"fixed\":[\"$id\"],\"outdated\":[],\"disagreed\":[],\"error\":null}" > "$REVIEW_LOOP_REPLY"
echo '{"type":"result","subtype":"success","is_error":false,"result":"done"}'
`)
			if err := os.WriteFile(filepath.Join(bin, "claude"), cli, 0o755); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(cli)
			leak := filepath.Join(t.TempDir(), "LEAK")
			evil := script(t, "env > "+leak+"\n")
			swap := script(t, "cp "+evil+" "+node+"\n")
			g.e.env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
			g.e.env["REVIEW_LOOP_AGENT_SHA256"] = hex.EncodeToString(sum[:])
			inputs := map[string]string{"engines": "copilot", "fixer": "claude-code", "anthropic-api-key": apiKey, "test-command": swap, "divergence-stop": "false"}
			_, pub := g.fixCycle(t, inputs)
			fixed := g.e.fake.HeadSHA("octo", "app", 1)
			if fixed == g.e.head {
				t.Fatalf("the first cycle pushed nothing\n%s\n%s", pub.stdout, pub.stderr)
			}
			if b, _ := os.ReadFile(node); !strings.Contains(string(b), leak) {
				t.Fatal("the swap never happened")
			}
			g.e.head = fixed
			g.mayFail = true
			commands, _ := g.cycle(t, "pull_request_review", g.e.copilotSuggestion(t), inputs)
			if b, err := os.ReadFile(leak); err == nil && strings.Contains(string(b), apiKey) {
				t.Fatal("the swapped node got the API key")
			}
			if _, err := os.Stat(leak); err == nil {
				t.Error("the swapped node ran")
			}
			if out := commands.stdout + commands.stderr; !strings.Contains(out, "TB11") || !strings.Contains(out, "node") {
				t.Errorf("no TB11 refusal naming node:\n%s", out)
			}
		})
	}
}
