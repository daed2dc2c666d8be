// Package cli is review-loop's command line: the subcommands (cycle,
// publish, status, doctor, plan, demo, version), their flags, the help
// and the exit codes. It reads the configuration (internal/config) and
// hands each cycle to the shell that runs it (internal/action).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// This file is the command line's entry point: subcommands, exit codes
// and the log level.

// ExitCode is the process exit status of review-loop.
type ExitCode int

// Exit codes: the documented table users can rely on in workflows.
const (
	ExitOK        ExitCode = 0 // the cycle ran (whatever the verdict)
	ExitError     ExitCode = 1 // bad input, API failure or a failed cycle
	ExitCancelled ExitCode = 2 // interrupted (SIGINT/SIGTERM, job cancelled)
	ExitUsage     ExitCode = 3 // unknown subcommand or flag
)

// Env is what the top layer hands down: the process environment and streams.
type Env struct {
	Getenv  func(string) string
	Stdout  io.Writer
	Stderr  io.Writer
	Version string
	// Demo runs `review-loop demo`; nil in builds without it.
	Demo DemoFunc
	// Secrets are the environment's secret variables by name (procenv):
	// nothing review-loop writes to GitHub may hold one (TB14).
	Secrets map[string]string
}

const usage = `usage: review-loop <command> [flags]

commands:
  cycle     run one loop cycle (the GitHub Action entry point);
            --prepare DIR runs hardened mode's first job
  publish   hardened mode's second job: publish the cycle prepared in DIR
  status    print a PR's loop status without writing anything
  doctor    check a repository's set-up: review-loop doctor OWNER/REPO
  plan      what the next cycle would do on a PR, read-only: review-loop plan OWNER/REPO#N
  demo      run the whole loop against a built-in fake GitHub
  version   print the version
`

// Main runs one subcommand and returns its exit code; only the caller exits.
func Main(ctx context.Context, args []string, env Env) ExitCode {
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: logLevel(env.Getenv)}))
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	var err error
	switch args[0] {
	case "version", "--version", "-v":
		fmt.Fprintf(env.Stdout, "review-loop %s\n", env.Version)
		return ExitOK
	case "cycle":
		err = runCycleCommand(ctx, args[1:], env, logger)
	case "publish":
		err = runPublishCommand(ctx, args[1:], env, logger)
	case "status":
		err = runStatusCommand(ctx, args[1:], env, logger)
	case "demo":
		err = runDemoCommand(ctx, args[1:], env, logger)
	case "doctor":
		err = runDoctorCommand(ctx, args[1:], env, logger)
	case "plan":
		err = runPlanCommand(ctx, args[1:], env, logger)
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
		writeInputsHelp(env.Stdout)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "review-loop: unknown command %q\n%s", args[0], usage)
		return ExitUsage
	}
	return exitFor(ctx, err, env.Stderr)
}

func exitFor(ctx context.Context, err error, stderr io.Writer) ExitCode {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, new(*usageError)):
		fmt.Fprintf(stderr, "review-loop: %v\n", err)
		return ExitUsage
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "review-loop: cancelled")
		return ExitCancelled
	default:
		return ExitError
	}
}

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func logLevel(getenv func(string) string) slog.Level {
	if strings.EqualFold(getenv("RUNNER_DEBUG"), "1") || strings.EqualFold(getenv("REVIEW_LOOP_DEBUG"), "1") {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}
