// Command review-loop drives a bounded review → fix → re-review loop on one
// pull request across several AI review engines. One invocation of `cycle`
// is one loop cycle; see README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/review-loop/review-loop/internal/cli"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/procenv"
	"github.com/review-loop/review-loop/internal/reap"
	"github.com/review-loop/review-loop/internal/scenario"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// The demo's scripted fixer and judge run as child processes of this
	// same binary.
	if ran, err := scenario.Helper(os.Args[1:], os.Stdout); ran {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(int(cli.ExitError))
		}
		os.Exit(int(cli.ExitOK))
	}
	// Before anything runs a child: drop the secrets from this process's
	// environment (TB1; see internal/procenv).
	sealed, err := procenv.Seal()
	if err != nil {
		fmt.Fprintln(os.Stderr, "review-loop:", err)
		os.Exit(int(cli.ExitError))
	}
	// Nothing a command starts outlives it (TB8), and no command changes
	// the runner's file-command files or gets RUNNER_TEMP (TB11).
	if err := reap.Enable(); err != nil {
		fmt.Fprintln(os.Stderr, "review-loop: warning:", err)
	}
	reap.Protect([]string{sealed.Getenv("GITHUB_ENV"), sealed.Getenv("GITHUB_PATH"), sealed.Getenv("GITHUB_OUTPUT"),
		sealed.Getenv("GITHUB_STATE"), sealed.Getenv("GITHUB_STEP_SUMMARY")}, sealed.Getenv("RUNNER_TEMP"))
	// The git every git child runs is resolved now, before any
	// repository command could plant one (TB13); a failure is reported
	// where git is first needed.
	_, _ = git.SystemGit()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{
		Getenv:  sealed.Getenv,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Version: version,
		Demo:    scenario.Demo,
		Secrets: sealed.Secrets(),
	})
	stop()
	os.Exit(int(code))
}
