package cli

import (
	"context"
	"log/slog"

	"github.com/review-loop/review-loop/internal/config"
)

// This file is `review-loop publish DIR`: hardened mode's second job
// (TB1) as a command.

var publishSpec = &spec{
	name:  "publish",
	short: "hardened mode's second job: publish the cycle prepared in DIR",
	long: `Publish the cycle that ` + "`review-loop cycle --prepare DIR`" + ` left in DIR: check the
patch (only the claimed files, never .github/workflows, .git or a symlink,
size limits), commit, push, resolve threads, trigger the engines and save
the state. It runs no repository code.`,
	args:    []positional{{name: "<DIR>", kind: argPath}},
	example: []string{"review-loop publish \"$RUNNER_TEMP/prepared\""},
}

// runPublishCommand is `review-loop publish DIR`: hardened mode's second
// job, a cycle that publishes what `review-loop cycle --prepare DIR` left.
func runPublishCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	dir := inv.path
	getenv := func(k string) string {
		switch k {
		case "INPUT_MODE":
			return config.ModePublish
		case "INPUT_ARTIFACT-DIR":
			return dir
		}
		return env.Getenv(k)
	}
	return runCycle(ctx, false, "", Env{Getenv: getenv, Stdout: env.Stdout, Stderr: env.Stderr, Version: env.Version, Demo: env.Demo}, logger)
}
