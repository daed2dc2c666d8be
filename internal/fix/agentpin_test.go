package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// TB11: a claude CLI replaced after review-loop recorded it — its bytes
// swapped in place, or another one put first on PATH — never runs with the
// API key: the cycle is refused with an error that says why.
func TestRule_TB11_ASwappedAgentCLIIsRefused(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"in place", "earlier on PATH", "install-time digest"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			_, cfg := setup(t)
			stub, record := stubAgent(t, "claude", `echo '{"type":"result","subtype":"success","is_error":false,"result":"{\"fixed\":[],\"outdated\":[],\"disagreed\":[],\"error\":null}"}'`)
			before := t.TempDir()
			cfg.Env = agentEnv(before + string(os.PathListSeparator) + stub)
			want := ""
			if how == "install-time digest" {
				want = strings.Repeat("0", 64)
			}
			pin := PinAgent("claude", cfg.Env, want)
			leak := filepath.Join(t.TempDir(), "LEAK")
			evil := []byte("#!/bin/sh\nenv > '" + leak + "'\n")
			switch how {
			case "in place":
				if err := os.WriteFile(filepath.Join(stub, "claude"), evil, 0o755); err != nil {
					t.Fatal(err)
				}
			case "earlier on PATH":
				if err := os.WriteFile(filepath.Join(before, "claude"), evil, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cfg.Agent = Agent{APIKey: "sk-ant-pinned-secret", Pin: pin}
			_, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: []loop.Finding{commandFinding("Name it.")}})
			if err == nil || !strings.Contains(err.Error(), "TB11") || !strings.Contains(err.Error(), "claude") {
				t.Fatalf("RunCycle: %v, want a TB11 refusal naming claude", err)
			}
			if _, err := os.Stat(leak); err == nil {
				t.Fatal("the swapped CLI ran")
			}
			if _, err := os.Stat(record + ".args"); err == nil {
				t.Fatal("the CLI ran although its digest is not the install-time one")
			}
		})
	}
}

// TB11: the CLI as recorded runs.
func TestRule_TB11_ThePinnedAgentCLIRuns(t *testing.T) {
	t.Parallel()
	_, cfg := setup(t)
	stub, record := stubAgent(t, "claude", `echo '{"type":"result","subtype":"success","is_error":false,"result":"{\"fixed\":[],\"outdated\":[],\"disagreed\":[{\"id\":\"copilot-1\",\"reply\":\"no\"}],\"error\":null}"}'`)
	cfg.Env = agentEnv(stub)
	pin := PinAgent("claude", cfg.Env, "")
	if again := PinAgent("claude", cfg.Env, pin.SHA256); again.Err != nil {
		t.Fatalf("the recorded digest is refused: %v", again.Err)
	}
	cfg.Agent = Agent{APIKey: "sk-ant-pinned-secret", Pin: pin}
	if _, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: []loop.Finding{commandFinding("Name it.")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(record + ".args"); err != nil {
		t.Fatal("the pinned CLI did not run")
	}
}
