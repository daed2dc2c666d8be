package config

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/judge"
)

func TestAgentFixer_InputsAreValidatedAndOnlyTheChosenAgentGetsItsKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixer, key, value, wantErr, wantKey string
	}{
		{"claude-code", "", "", "input anthropic-api-key: required when fixer is claude-code", ""},
		{"codex", "", "", "input openai-api-key: required when fixer is codex", ""},
		{"claude-code", "INPUT_ANTHROPIC-API-KEY", "sk-ant-key-1", "", "sk-ant-key-1"},
		{"codex", "INPUT_OPENAI-API-KEY", "sk-oai-key-1", "", "sk-oai-key-1"},
		{"aider", "", "", `input fixer: "aider" is not suggestions, command, claude-code or codex`, ""},
	} {
		e := baseEnv()
		e["INPUT_FIXER"] = tc.fixer
		if tc.key != "" {
			e[tc.key] = tc.value
		}
		// The other agent's key is set too and must not be handed over.
		if tc.fixer == "claude-code" {
			e["INPUT_OPENAI-API-KEY"] = "sk-other"
		} else {
			e["INPUT_ANTHROPIC-API-KEY"] = "sk-other"
		}
		c, err := Load(env(e))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.fixer, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.fixer, err)
		}
		if a := c.Agent(); a.APIKey != tc.wantKey || a.MaxTurns != 40 {
			t.Errorf("%s: agent config %+v", tc.fixer, a)
		}
		if !strings.Contains(strings.Join(c.Secrets(), " "), tc.value) {
			t.Errorf("%s: the key is not masked", tc.fixer)
		}
	}
}

func TestAgentFixer_TheAnthropicJudgeIsPickedWhenTheKeyIsSet(t *testing.T) {
	t.Parallel()
	e := baseEnv()
	e["INPUT_FIXER"] = "claude-code"
	e["INPUT_ANTHROPIC-API-KEY"] = "sk-ant-key-1"
	c, err := Load(env(e))
	if err != nil {
		t.Fatal(err)
	}
	j, err := Judge(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.(*judge.Anthropic); !ok {
		t.Fatalf("judge %T, want the Anthropic judge", j)
	}
}

// The judge is chosen the same way with or without a base URL for the
// built-in one: judge-command first, then anthropic-api-key, else none.
func TestAgentFixer_TheJudgeCommandComesBeforeTheKeyWhateverTheBaseURL(t *testing.T) {
	t.Parallel()
	for _, baseURL := range []string{"", "http://127.0.0.1:1"} {
		e := baseEnv()
		e["INPUT_ANTHROPIC-API-KEY"] = "sk-ant-key-1"
		e["INPUT_JUDGE-COMMAND"] = "./judge --strict"
		c, err := Load(env(e))
		if err != nil {
			t.Fatal(err)
		}
		j, err := Judge(c, baseURL)
		if err != nil {
			t.Fatal(err)
		}
		if jc, ok := j.(*judge.Command); !ok || jc.Path != "./judge" || len(jc.Args) != 1 || jc.Args[0] != "--strict" {
			t.Errorf("base URL %q: judge %#v, want the judge command", baseURL, j)
		}
		e = baseEnv()
		if c, err = Load(env(e)); err != nil {
			t.Fatal(err)
		}
		if j, err := Judge(c, baseURL); err != nil || j != nil {
			t.Errorf("base URL %q: no command, no key: judge %v, %v; want none", baseURL, j, err)
		}
		// Load refuses such a command first; Judge does not rely on it.
		c.JudgeCommand = "'./judge"
		if _, err := Judge(c, baseURL); err == nil || !strings.Contains(err.Error(), "input judge-command") {
			t.Errorf("base URL %q: an unclosed quote in the judge command: %v", baseURL, err)
		}
	}
}
