package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
)

// This file holds the subcommands that run a cycle or read a loop:
// `cycle`, `status`, `demo`, and their flags.

// runCycleCommand is `review-loop cycle [--dry-run]`.
func runCycleCommand(ctx context.Context, args []string, env Env, logger *slog.Logger) error {
	fs := flag.NewFlagSet("cycle", flag.ContinueOnError)
	dry := fs.Bool("dry-run", false, "observe, decide and print the plan; write nothing")
	prepareDir := fs.String("prepare", "", "hardened mode's first job: run the commands and the fixer, write nothing to GitHub, and leave the decisions and the patch in `DIR` for `review-loop publish`")
	if err := parseFlags(fs, args, cycleUsage(fs, env.Stdout)); err != nil {
		return err
	}
	gha := githubactions.New(githubactions.WithWriter(env.Stdout), githubactions.WithGetenv(env.Getenv))
	cfg, err := config.Load(env.Getenv)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			gha.Errorf("review-loop: %s", line)
		}
		action.FailOutputs(gha, env.Getenv, err)
		return err
	}
	if cfg.Mode == config.ModeDoctor {
		return doctorMode(ctx, cfg, env, logger)
	}
	cfg.DryRun = cfg.DryRun || *dry
	cfg.EnvSecrets = env.Secrets
	if *prepareDir != "" {
		cfg.Mode, cfg.ArtifactDir = config.ModePrepare, *prepareDir
	}
	res, err := action.Run(ctx, action.Deps{Config: cfg, Getenv: env.Getenv, Out: env.Stdout, Log: logger})
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			gha.Errorf("review-loop: %s", line)
		}
		if !slices.ContainsFunc(res.PRs, func(p action.PRResult) bool { return p.Outputs != nil }) {
			action.FailOutputs(gha, env.Getenv, err)
		}
		return err
	}
	if cfg.DryRun {
		for _, pr := range res.PRs {
			fmt.Fprintf(env.Stdout, "PR #%d: plan %s — %s\n", pr.PR, pr.Plan.Action, pr.Plan.Why)
			for _, t := range pr.Plan.Triggers {
				fmt.Fprintf(env.Stdout, "  would trigger %s for %s\n", t.Engine, shortSHA(t.SHA))
			}
			for _, f := range pr.Plan.Triage {
				fmt.Fprintf(env.Stdout, "  would triage %s (%s:%d)\n", f.ID, f.Path, f.Line)
			}
			for i, e := range pr.Effects {
				fmt.Fprintf(env.Stdout, "  %d. %s\n", i+1, e)
			}
		}
	}
	return nil
}

// runStatusCommand is `review-loop status --repo O/R --pr N`: it prints
// the loop's status, per engine the two lines of S4, the triage table and
// the event log, without writing anything.
func runStatusCommand(ctx context.Context, args []string, env Env, logger *slog.Logger) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	repo := fs.String("repo", env.Getenv("GITHUB_REPOSITORY"), "repository as owner/name")
	pr := fs.Int("pr", 0, "pull request number")
	if err := parseFlags(fs, args, func() {
		fmt.Fprint(env.Stdout, "usage: review-loop status --repo owner/name --pr N\n\nflags:\n")
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
	}); err != nil {
		return err
	}
	owner, name, ok := strings.Cut(*repo, "/")
	if !ok || owner == "" || name == "" || *pr <= 0 {
		return &usageError{msg: "status needs --repo owner/name and --pr N"}
	}
	token := env.Getenv("GH_TOKEN")
	if token == "" {
		token = env.Getenv("GITHUB_TOKEN")
	}
	if token == "" {
		fmt.Fprintln(env.Stderr, "review-loop: status needs a token in GH_TOKEN or GITHUB_TOKEN")
		return errors.New("no token")
	}
	api := env.Getenv("GITHUB_API_URL")
	gh, err := github.New(github.Options{Token: token, APIURL: api, GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"), Logger: logger})
	if err != nil {
		return err
	}
	obs, err := gh.Observe(ctx, owner, name, *pr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "review-loop: %v\n", err)
		return err
	}
	text, err := statusText(obs, *repo, *pr, env.Getenv("GITHUB_SERVER_URL"))
	if err != nil {
		fmt.Fprintf(env.Stderr, "review-loop: %v\n", err)
		return err
	}
	_, err = io.WriteString(env.Stdout, text)
	return err
}

// statusText renders the saved state of a PR for a terminal.
func statusText(obs *github.Observation, repo string, pr int, server string) (string, error) {
	for _, ic := range obs.IssueComments {
		st, found, err := state.Decode(ic.Body)
		if !found {
			continue
		}
		if obs.ViewerLogin != "" && !sameLogin(ic.Author.Login, obs.ViewerLogin) && !strings.HasPrefix(strings.ToLower(ic.Author.Login), "github-actions") {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("status comment %d: %w", ic.DatabaseID, err)
		}
		return report.StatusText(report.Input{State: st, PRURL: obs.URL, ServerURL: server, Repo: repo, Number: pr, LastCommit: obs.HeadSHA}), nil
	}
	return fmt.Sprintf("PR #%d: no review-loop status comment yet\n", pr), nil
}

// runDemoCommand is `review-loop demo`; main injects the demo (it lives in
// a package that imports this one) through Env.Demo.
func runDemoCommand(ctx context.Context, args []string, env Env, logger *slog.Logger) error {
	if env.Demo == nil {
		return errors.New("this build has no demo")
	}
	return env.Demo(ctx, args, env, logger)
}

// DemoFunc runs the demo subcommand.
type DemoFunc func(ctx context.Context, args []string, env Env, logger *slog.Logger) error

// parseFlags parses a command's flags (C2: fail fast). A mistake is one
// line naming it and the command's --help, not the help itself; --help
// prints the help.
func parseFlags(fs *flag.FlagSet, args []string, help func()) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		help()
		return err
	}
	return &usageError{msg: fmt.Sprintf("%v; see `review-loop %s --help`", err, fs.Name())}
}

// shortSHA is a commit's first seven characters, as the cycle prints it.
func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// sameLogin compares two logins as the cycle does when it finds its own
// status comment: case aside, an app's [bot] suffix aside.
func sameLogin(a, b string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), "[bot]") }
	return a != "" && norm(a) == norm(b)
}
