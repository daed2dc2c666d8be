package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func baseEnv() map[string]string {
	return map[string]string{
		"INPUT_GITHUB-TOKEN": "ghs_secret",
		"GITHUB_REPOSITORY":  "octo/app",
		"GITHUB_EVENT_NAME":  "workflow_dispatch",
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	t.Run("defaults follow the documented inputs", func(t *testing.T) {
		t.Parallel()
		c, err := Load(env(baseEnv()))
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxCommits != 20 || c.MaxActiveMinutes != 240 || c.MaxIdleMinutes != 45 {
			t.Errorf("bounds = %d/%d/%d, want 20/240/45", c.MaxCommits, c.MaxActiveMinutes, c.MaxIdleMinutes)
		}
		if c.PushToken != "ghs_secret" {
			t.Errorf("push token does not fall back to github-token")
		}
		if c.TriggerPhrase != "@review-loop" || c.Fixer != "suggestions" || c.FixerTimeout != 15*time.Minute {
			t.Errorf("unexpected defaults: %+v", c)
		}
		if got := strings.Join(c.AllowedAssociations, ","); got != "OWNER,MEMBER,COLLABORATOR" {
			t.Errorf("associations = %s", got)
		}
		if c.Owner != "octo" || c.Repo != "app" {
			t.Errorf("repo = %s/%s", c.Owner, c.Repo)
		}
	})
	t.Run("every problem is reported at once and names its input", func(t *testing.T) {
		t.Parallel()
		m := baseEnv()
		delete(m, "INPUT_GITHUB-TOKEN")
		m["INPUT_PR"] = "abc"
		m["INPUT_MAX-COMMITS"] = "-1"
		m["INPUT_COPILOT-ONLY"] = "maybe"
		m["INPUT_FIXER"] = "magic"
		m["INPUT_FIXER-TIMEOUT"] = "soon"
		_, err := Load(env(m))
		if err == nil {
			t.Fatal("want an error")
		}
		for _, want := range []string{"github-token", `input pr: "abc"`, "max-commits: -1", "copilot-only", "input fixer:", "fixer-timeout"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	})
	t.Run("the GITHUB_TOKEN environment variable is the token fallback", func(t *testing.T) {
		t.Parallel()
		m := baseEnv()
		delete(m, "INPUT_GITHUB-TOKEN")
		m["GITHUB_TOKEN"] = "ghs_env"
		c, err := Load(env(m))
		if err != nil {
			t.Fatal(err)
		}
		if c.GitHubToken != "ghs_env" {
			t.Errorf("token = %q", c.GitHubToken)
		}
	})
	t.Run("secrets lists every token for masking", func(t *testing.T) {
		t.Parallel()
		m := baseEnv()
		m["INPUT_TRIGGER-TOKEN"] = "ghp_user"
		m["INPUT_ANTHROPIC-API-KEY"] = "sk-ant-key-1"
		c, err := Load(env(m))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(c.Secrets(), " ")
		for _, s := range []string{"ghs_secret", "ghp_user", "sk-ant-key-1"} {
			if !strings.Contains(got, s) {
				t.Errorf("secrets %q miss %q", got, s)
			}
		}
	})
}

// TB14: the set of secrets nothing may write holds every secret input by
// its name and every other secret variable of the environment by its
// variable; a value an input holds too is named by the input.
func TestRule_TB14_TheSecretSetNamesEverySecretReviewLoopHolds(t *testing.T) {
	t.Parallel()
	c := Config{GitHubToken: "ghs_github_token_value_1", AnthropicAPIKey: "sk-ant-key-value-2",
		EnvSecrets: map[string]string{"ACTIONS_RUNTIME_TOKEN": "runtime-token-value-3", "INPUT_ANTHROPIC-API-KEY": "sk-ant-key-value-2"}}
	s := c.SecretSet()
	for value, want := range map[string]string{
		"ghs_github_token_value_1": "github-token",
		"sk-ant-key-value-2":       "anthropic-api-key",
		"runtime-token-value-3":    "ACTIONS_RUNTIME_TOKEN",
	} {
		if got := s.FindString("x " + value + " y"); got != want {
			t.Errorf("%s: found %q, want %q", value, got, want)
		}
	}
}

// TB14: an API key input shorter than secret.MinLen is refused at start:
// no real key is that short, and what review-loop writes could not be
// checked for every form of it. The error names the input and its
// length, never the value.
func TestRule_TB14_AnAPIKeyTooShortToCheckIsRefused(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"ANTHROPIC-API-KEY", "OPENAI-API-KEY"} {
		m := baseEnv()
		m["INPUT_"+in] = "sk-7x1"
		_, err := Load(env(m))
		if err == nil {
			t.Fatalf("%s of 6 characters accepted", in)
		}
		if msg := err.Error(); !strings.Contains(msg, "input "+strings.ToLower(in)) || !strings.Contains(msg, "6 characters") || strings.Contains(msg, "sk-7x1") {
			t.Errorf("error %q: want the input and the length named, never the value", msg)
		}
	}
	m := baseEnv()
	m["INPUT_ANTHROPIC-API-KEY"] = "sk-ant-8"
	if _, err := Load(env(m)); err != nil {
		t.Errorf("a key of 8 characters refused: %v", err)
	}
}

// TB14: a secret variable of fewer than secret.MinRaw characters cannot
// be kept out of what review-loop writes; it is named (never shown) so
// the run can warn, while longer ones are not.
func TestRule_TB14_ASecretTooShortToProtectIsNamed(t *testing.T) {
	t.Parallel()
	c := Config{GitHubToken: "ghs_github_token_value_1", EnvSecrets: map[string]string{"PIN": "123", "DEPLOY_PIN": "h7Qz2", "EMPTY": ""}}
	if got := c.UnprotectedSecrets(); len(got) != 1 || got[0] != "PIN" {
		t.Errorf("unprotected %v, want [PIN]", got)
	}
}
