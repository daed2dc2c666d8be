package action

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/judge"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// baseEnv is the least a run needs: a token, a repository and an event.
func baseEnv() map[string]string {
	return map[string]string{
		"INPUT_GITHUB-TOKEN": "ghs_secret",
		"GITHUB_REPOSITORY":  "octo/app",
		"GITHUB_EVENT_NAME":  "workflow_dispatch",
	}
}

func TestAgentFixer_InputsAreValidatedAndOnlyTheChosenAgentGetsItsKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixer, key, value, wantErr, wantKey string
	}{
		{"claude-code", "", "", "input anthropic-api-key: required when fixer is claude-code", ""},
		{"codex", "", "", "input openai-api-key: required when fixer is codex", ""},
		{"claude-code", "INPUT_ANTHROPIC-API-KEY", "sk-ant", "", "sk-ant"},
		{"codex", "INPUT_OPENAI-API-KEY", "sk-oai", "", "sk-oai"},
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
		c, err := config.Load(env(e))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.fixer, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.fixer, err)
		}
		if a := agentConfig(c); a.APIKey != tc.wantKey || a.MaxTurns != 40 {
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
	e["INPUT_ANTHROPIC-API-KEY"] = "sk-ant"
	c, err := config.Load(env(e))
	if err != nil {
		t.Fatal(err)
	}
	j, err := buildJudge(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.(*judge.Anthropic); !ok {
		t.Fatalf("judge %T, want the Anthropic judge", j)
	}
}
