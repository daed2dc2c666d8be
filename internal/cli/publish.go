package cli

import (
	"context"
	"log/slog"
	"strings"

	"github.com/review-loop/review-loop/internal/config"
)

// This file is `review-loop publish DIR`: hardened mode's second job
// (TB1) as a command.

// runPublishCommand is `review-loop publish DIR`: hardened mode's second
// job, a cycle that publishes what `review-loop cycle --prepare DIR` left.
func runPublishCommand(ctx context.Context, args []string, env Env, logger *slog.Logger) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return &usageError{msg: "usage: review-loop publish DIR (the directory `review-loop cycle --prepare DIR` wrote)"}
	}
	dir := args[0]
	getenv := func(k string) string {
		switch k {
		case "INPUT_MODE":
			return config.ModePublish
		case "INPUT_ARTIFACT-DIR":
			return dir
		}
		return env.Getenv(k)
	}
	return runCycleCommand(ctx, nil, Env{Getenv: getenv, Stdout: env.Stdout, Stderr: env.Stderr, Version: env.Version, Demo: env.Demo}, logger)
}
