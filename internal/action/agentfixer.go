package action

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/judge"
)

// This file builds the agent fixer and the judge from the inputs, and
// pins the agent CLI before any command runs (TB11).

// buildJudgeAt is buildJudge with the built-in judge pointed at baseURL
// when it is set; the judge is chosen the same way (judge-command first,
// then anthropic-api-key).
func buildJudgeAt(c config.Config, baseURL string) (judge.Judge, error) {
	if baseURL == "" || c.JudgeCommand != "" || c.AnthropicAPIKey == "" {
		return buildJudge(c)
	}
	return judge.NewAnthropic(c.AnthropicAPIKey, c.JudgeModel, option.WithBaseURL(baseURL), option.WithMaxRetries(0)), nil
}

// agentConfig is the agent fixer's set-up: the key of the chosen agent
// only, so the other agent's key never reaches a child.
func agentConfig(c config.Config) fix.Agent {
	a := fix.Agent{Model: c.FixerModel, MaxTurns: c.FixerMaxTurns}
	switch c.Fixer {
	case fix.ProviderClaudeCode:
		a.APIKey = c.AnthropicAPIKey
	case fix.ProviderCodex:
		a.APIKey = c.OpenAIAPIKey
	}
	return a
}

// agent is the agent fixer's configuration with the CLI recorded at the
// start of the run.
func (c *prCycle) agent() fix.Agent {
	a := agentConfig(c.cfg)
	a.Pin = c.agentPin
	return a
}

// pinAgent records the agent fixer's CLI before any command runs (TB11):
// the file the child PATH finds, checked against the digest the action's
// install step recorded (REVIEW_LOOP_AGENT_SHA256) when there is one.
func (r *runner) pinAgent() {
	name := ""
	switch r.cfg.Fixer {
	case fix.ProviderClaudeCode:
		name = "claude"
	case fix.ProviderCodex:
		name = "codex"
	default:
		return
	}
	c := &prCycle{runner: r}
	r.agentPin = fix.PinAgent(name, c.childEnv(), r.Getenv("REVIEW_LOOP_AGENT_SHA256"))
}

// childEnv is the base environment of the fix pipeline's children: this
// process's, tokens stripped, with Deps.ChildPath first on PATH.
func (c *prCycle) childEnv() []string {
	env := fix.StripTokens(os.Environ())
	if c.ChildPath == "" {
		return env
	}
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + c.ChildPath + string(os.PathListSeparator) + v
			return env
		}
	}
	return append(env, "PATH="+c.ChildPath)
}

// buildJudge is the judge the inputs name: judge-command first, then the
// built-in judge when anthropic-api-key is set; nil for none.
func buildJudge(c config.Config) (judge.Judge, error) {
	switch {
	case c.JudgeCommand != "":
		argv, err := splitArgv(c.JudgeCommand)
		if err != nil {
			return nil, fmt.Errorf("input judge-command: %w", err)
		}
		return &judge.Command{Path: argv[0], Args: argv[1:], Dir: c.Workspace, Stderr: os.Stderr}, nil
	case c.AnthropicAPIKey != "":
		return judge.NewAnthropic(c.AnthropicAPIKey, c.JudgeModel), nil
	}
	return nil, nil
}

// splitArgv splits a command input into argv without a shell.
func splitArgv(s string) ([]string, error) {
	argv, err := fix.SplitCommand(s)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	return argv, nil
}
