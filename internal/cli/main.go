// Package cli is review-loop's command line: the subcommands (cycle,
// publish, status, doctor, plan, report, demo, version), their flags, the help
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
	"time"

	"github.com/review-loop/review-loop/internal/github"
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
	ExitUsage     ExitCode = 3 // unknown command or flag, a missing or extra argument
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

	// Now is the clock of the commands that need one (report's --since);
	// nil is time.Now.
	Now func() time.Time
}

// commands are review-loop's subcommands, in the order the help lists
// them; each is a spec of the one grammar (grammar.go) and a run function.
func commands() []command {
	return []command{
		{cycleSpec, runCycleCommand},
		{publishSpec, runPublishCommand},
		{statusSpec, runStatusCommand},
		{doctorSpec, runDoctorCommand},
		{planSpec, runPlanCommand},
		{reportSpec, runReportCommand},

		{watchSpec, runWatchCommand},
		{demoSpec, runDemoCommand},
		{versionSpec, runVersionCommand},
	}
}

// command is a spec and what runs it.
type command struct {
	spec *spec
	run  func(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error
}

// usage is `review-loop --help`'s list of commands and the grammar they share.
func usage() string {
	var b strings.Builder
	b.WriteString("review-loop drives a bounded review → fix → re-review loop on one pull request.\n\nUSAGE\n  review-loop <command> [flags] [arguments]\n\nCOMMANDS\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", c.spec.name, c.spec.short)
	}
	b.WriteString(`
ARGUMENTS
  a pull request    owner/repo#N, or its URL: https://github.com/owner/repo/pull/N
  a repository      owner/repo
  Flags go before or after the arguments; -- ends the flags.

Run 'review-loop <command> --help' for a command's flags and an example.
`)
	return b.String()
}

// Main runs one subcommand and returns its exit code; only the caller exits.
func Main(ctx context.Context, args []string, env Env) ExitCode {
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: logLevel(env.Getenv)}))
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage())
		return ExitUsage
	}
	switch args[0] {
	case "--version", "-v":
		args = []string{"version"}
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" {
			if c, ok := lookup(args[1]); ok && len(args) == 2 {
				c.spec.writeHelp(env.Stdout)
				return ExitOK
			}
			fmt.Fprintf(env.Stderr, "review-loop: help: unknown command %q; see `review-loop --help`\n", strings.Join(args[1:], " "))
			return ExitUsage
		}
		fmt.Fprint(env.Stdout, usage())
		writeInputsHelp(env.Stdout)
		return ExitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(env.Stderr, "review-loop: unknown command %q; see `review-loop --help`\n", args[0])
		return ExitUsage
	}
	inv, err := c.spec.parse(args[1:], env.Getenv("GITHUB_SERVER_URL"))
	if errors.Is(err, flag.ErrHelp) {
		c.spec.writeHelp(env.Stdout)
		return ExitOK
	}
	if err == nil {
		err = c.run(ctx, inv, env, logger)
	}
	return exitFor(ctx, err, env.Stderr)
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.spec.name == name {
			return c, true
		}
	}
	return command{}, false
}

func exitFor(ctx context.Context, err error, stderr io.Writer) ExitCode {
	switch {
	case err == nil:
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

// reportedError is an error the command has told the user about already.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

// fail prints err as one line (a network failure named as such, never
// blamed on the token) and returns it as told.
func fail(env Env, err error) error {
	fmt.Fprintf(env.Stderr, "review-loop: %s\n", describe(err))
	return &reportedError{err}
}

// describe is an error in the words the user needs: GitHub not reached
// is the network's fault, a 401 the token's, the rest as they are.
func describe(err error) string {
	if ne, ok := github.AsNetwork(err); ok {
		return ne.Error() + " — check the network, a proxy, or GITHUB_API_URL; the token was not checked"
	}
	if github.IsUnauthorized(err) {
		return err.Error() + " — GitHub does not accept the token (unknown, expired or revoked): set a valid one in GH_TOKEN or GITHUB_TOKEN"
	}
	return err.Error()
}

func logLevel(getenv func(string) string) slog.Level {
	if strings.EqualFold(getenv("RUNNER_DEBUG"), "1") || strings.EqualFold(getenv("REVIEW_LOOP_DEBUG"), "1") {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}
