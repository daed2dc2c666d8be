package cli

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"github.com/review-loop/review-loop/internal/watch"
)

// This file is `review-loop watch <owner/repo#N | PR URL>`: the loop on a
// real pull request from a terminal (internal/watch). It parses, finds
// the token and the clone, and hands over; the cycle is the Action's.

var watchSpec = &spec{
	name:  "watch",
	short: "run the loop on a pull request from a terminal, at the engines' pace",
	long: `Run the review loop on a pull request from a terminal: the same cycle, plan,
effects and status comment as the GitHub Action, so the Action can take over
a loop started here and the other way round. Between cycles watch polls the
pull request with conditional requests (an unchanged answer, 304, costs no
rate limit): every poll-interval while an engine is at work, backing off to
5 minutes when none is, and a full cycle at least every 15 minutes for the
time-based bounds. Fixes run in a worktree of your clone (the current
directory, or --repo-dir) with the configured fixer, and are pushed through
the Action's push path with your token.

The token comes from GH_TOKEN, else ` + "`gh auth token`" + `; it never reaches a
command watch runs. Inputs are read as the Action's, from INPUT_<NAME>
variables (INPUT_ENGINES=copilot, INPUT_FIXER=claude-code). A pull request
from a fork, or by an author who may not write to the repository, runs no
command on this machine unless you pass --trust. Ctrl-C stops between
cycles: a cycle that started (a commit and its push included) finishes
and saves the state comment first.`,
	args: []positional{{name: "<owner/repo#N | PR URL>", kind: argPR}},
	example: []string{"review-loop watch octo/app#42", "review-loop watch --once --json https://github.com/octo/app/pull/42",
		"review-loop watch octo/app#42 --dry-run"},
	flags: func(fs *flag.FlagSet) {
		fs.Bool("once", false, "run one cycle and exit with the Action's exit code")
		fs.Bool("dry-run", false, "observe, decide and print the plan; write nothing")
		fs.Bool("json", false, "stream one event per line (the event log's schema) instead of the live status")
		fs.Bool("trust", false, "run the fixer and the repository's commands on a PR from a fork or by an author without write permission")
		fs.String("repo-dir", "", "your clone of the repository, in `DIR` (default: the current directory)")
	},
}

// runWatchCommand is `review-loop watch`.
func runWatchCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	pr := *inv.pr
	getenv := endpointsFor(env.Getenv, pr.Host)
	token, _, err := watch.Token(ctx, getenv, pr.Host)
	if err != nil {
		return fail(env, err)
	}
	dir := inv.string("repo-dir")
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return fail(env, err)
		}
	}
	// The live status is what the user reads: the cycle's diagnostics
	// (each effect, each request count) go to stderr only when asked
	// for (REVIEW_LOOP_DEBUG=1); warnings always.
	if logLevel(env.Getenv) > slog.LevelDebug {
		logger = slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	api := cmpOr(getenv("GITHUB_API_URL"), "https://api.github.com")
	o := watch.Options{
		Owner: pr.Owner, Repo: pr.Repo, Number: pr.Number, Token: token,
		APIURL: api, GraphQLURL: cmpOr(getenv("GITHUB_GRAPHQL_URL"), "https://api.github.com/graphql"),
		ServerURL: cmpOr(getenv("GITHUB_SERVER_URL"), "https://github.com"),
		Getenv:    getenv, Environ: os.Environ(), RepoDir: dir,
		Trust: inv.bool("trust"), Once: inv.bool("once"), DryRun: inv.bool("dry-run"), JSON: inv.bool("json"),
		Out: env.Stdout, TTY: isTerminal(env.Stdout) && getenv("CI") == "", Log: logger,
	}
	res, err := watch.Run(ctx, o)
	switch {
	case res.Interrupted:
		return context.Canceled
	case err != nil:
		return fail(env, err)
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device), where
// the status is redrawn in place; a pipe or a file gets plain lines.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
