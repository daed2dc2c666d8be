package config

import (
	"errors"
	"fmt"
	"os"

	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/judge"
)

// This file builds, from the inputs, the agent fixer's set-up and the
// judge of prose verdicts.

// Agent is the agent fixer's set-up: the key of the chosen agent only,
// so the other agent's key never reaches a child.
func (c Config) Agent() fix.Agent {
	a := fix.Agent{Model: c.FixerModel, MaxTurns: c.FixerMaxTurns}
	switch c.Fixer {
	case fix.ProviderClaudeCode:
		a.APIKey = c.AnthropicAPIKey
	case fix.ProviderCodex:
		a.APIKey = c.OpenAIAPIKey
	}
	return a
}

// AgentCLI is the name of the agent fixer's CLI, pinned before any
// command runs (TB11); "" when the fixer is no agent.
func (c Config) AgentCLI() string {
	switch c.Fixer {
	case fix.ProviderClaudeCode:
		return "claude"
	case fix.ProviderCodex:
		return "codex"
	}
	return ""
}

// Judge is the judge the inputs name: judge-command first, then the
// built-in judge when anthropic-api-key is set (pointed at baseURL when
// that is set); nil for none.
func Judge(c Config, baseURL string) (judge.Judge, error) {
	switch {
	case c.JudgeCommand != "":
		argv, err := fix.SplitCommand(c.JudgeCommand)
		if err == nil && len(argv) == 0 {
			err = errors.New("empty command")
		}
		if err != nil {
			return nil, fmt.Errorf("input judge-command: %w", err)
		}
		return &judge.Command{Path: argv[0], Args: argv[1:], Dir: c.Workspace, Stderr: os.Stderr}, nil
	case c.AnthropicAPIKey != "" && baseURL != "":
		return judge.NewAnthropic(c.AnthropicAPIKey, c.JudgeModel, option.WithBaseURL(baseURL), option.WithMaxRetries(0)), nil
	case c.AnthropicAPIKey != "":
		return judge.NewAnthropic(c.AnthropicAPIKey, c.JudgeModel), nil
	}
	return nil, nil
}
