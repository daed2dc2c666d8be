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

var cycleSpec = &spec{
	name:  "cycle",
	short: "run one loop cycle (the GitHub Action's entry point)",
	long: `Run one loop cycle for the event that started the workflow run: observe the
pull request, decide, act, save. The inputs come as INPUT_<NAME> variables,
as action.yml passes them; --prepare runs hardened mode's first job.`,
	example: []string{"review-loop cycle --dry-run", "review-loop cycle --prepare \"$RUNNER_TEMP/prepared\""},
	flags: func(fs *flag.FlagSet) {
		fs.Bool("dry-run", false, "observe, decide and print the plan; write nothing")
		fs.String("prepare", "", "hardened mode's first job: run the commands and the fixer, write nothing to GitHub, and leave the decisions and the patch in `DIR` for `review-loop publish`")
	},
	more: writeInputsHelp,
}

// runCycleCommand is `review-loop cycle [--dry-run] [--prepare DIR]`.
func runCycleCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	return runCycle(ctx, inv.bool("dry-run"), inv.string("prepare"), env, logger)
}

// runCycle is one cycle with the inputs of env.
func runCycle(ctx context.Context, dryRun bool, prepareDir string, env Env, logger *slog.Logger) error {
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
	cfg.DryRun = cfg.DryRun || dryRun
	cfg.EnvSecrets = env.Secrets
	if prepareDir != "" {
		cfg.Mode, cfg.ArtifactDir = config.ModePrepare, prepareDir
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
			fmt.Fprintf(env.Stdout, "PR #%d: plan %s — %s\n", pr.PR, pr.Plan.Action, report.WhySentence(pr.Plan.Why))
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

var statusSpec = &spec{
	name:  "status",
	short: "print a pull request's loop status, read-only",
	long: `Print a pull request's loop status as its status comment holds it: per engine
its review state and active findings, the triage table and the event log.
It writes nothing. The token comes from GH_TOKEN or GITHUB_TOKEN.`,
	args:    []positional{{name: "<owner/repo#N | PR URL>", kind: argPR, or: []string{"repo", "pr"}}},
	example: []string{"review-loop status octo/app#42", "review-loop status https://github.com/octo/app/pull/42"},
	flags: func(fs *flag.FlagSet) {
		fs.String("repo", "", "deprecated: the repository, with --pr")
		fs.Int("pr", 0, "deprecated: the pull request number, with --repo")
	},
	deprecated: map[string]string{"repo": "name the pull request as owner/repo#N", "pr": "name the pull request as owner/repo#N"},
}

// runStatusCommand is `review-loop status <owner/repo#N | PR URL>`: it
// prints the loop's status, per engine the two lines of S4, the triage
// table and the event log, without writing anything. `--repo R --pr N`
// is the older spelling of the same.
func runStatusCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	pr, err := statusTarget(inv, env)
	if err != nil {
		return err
	}
	inv.warn(env.Stderr)
	getenv := endpointsFor(env.Getenv, pr.Host)
	token, err := tokenFrom(env, "status")
	if err != nil {
		return err
	}
	gh, err := github.New(github.Options{Token: token, APIURL: getenv("GITHUB_API_URL"), GraphQLURL: getenv("GITHUB_GRAPHQL_URL"), Logger: logger})
	if err != nil {
		return fail(env, err)
	}
	obs, err := gh.Observe(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		return fail(env, err)
	}
	text, err := statusText(obs, pr.Owner+"/"+pr.Repo, pr.Number, getenv("GITHUB_SERVER_URL"))
	if err != nil {
		return fail(env, err)
	}
	_, err = io.WriteString(env.Stdout, text)
	return err
}

// statusTarget is the PR status names: the argument, or the deprecated
// --repo (default GITHUB_REPOSITORY) and --pr; never both.
func statusTarget(inv *invocation, env Env) (PRRef, error) {
	old := inv.set["repo"] || inv.set["pr"]
	switch {
	case inv.pr != nil && old:
		return PRRef{}, inv.spec.usageErr("name the pull request once: owner/repo#N, or the deprecated --repo and --pr")
	case inv.pr != nil:
		return *inv.pr, nil
	}
	r, err := ParseRepo(cmpOr(inv.string("repo"), env.Getenv("GITHUB_REPOSITORY")))
	if err != nil || inv.int("pr") <= 0 {
		return PRRef{}, inv.spec.usageErr("--repo owner/repo and --pr N name a pull request together")
	}
	return PRRef{Owner: r.Owner, Repo: r.Repo, Number: inv.int("pr")}, nil
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

var demoSpec = &spec{
	name:  "demo",
	short: "run the whole loop against a built-in fake GitHub",
	long: `Play the whole loop on an in-process fake GitHub with simulated Bugbot,
Copilot and Claude: no network, no token. Each cycle says what it decided
and why; a fix cycle shows its commit and each targeted test with its
result; the end is the hand-back report. It fails when the outcome differs
from the scenario's expectation.`,
	example: []string{"review-loop demo", "review-loop demo --watch", "review-loop demo --scenario testdata/scenarios/t4-stalled-past-three-times-latency-hung.yaml --verbose"},
	flags: func(fs *flag.FlagSet) {
		fs.String("scenario", "", "play the scenario in `FILE` instead of the built-in demo")
		fs.Bool("verbose", false, "also print each cycle's plan: its effects in order, each with its rule")
		fs.Bool("v", false, "also print the action's diagnostics")
		fs.Bool("watch", false, "play it through `review-loop watch`: polls on a fake clock, a worktree of a clone, the live status")
	},
}

// DemoOptions are the demo's flags.
type DemoOptions struct {
	// Scenario is a scenario file to play; "" plays the built-in demo.
	Scenario string
	// Verbose prints each cycle's plan; Diagnostics the action's log.
	Verbose, Diagnostics bool
	// Watch plays it through the watch driver (LW1) instead of the
	// Action's events; TTY redraws its status in place.
	Watch, TTY bool
}

// runDemoCommand is `review-loop demo`; main injects the demo (it lives in
// a package that imports this one) through Env.Demo.
func runDemoCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	if env.Demo == nil {
		return fail(env, errors.New("this build has no demo"))
	}
	return env.Demo(ctx, DemoOptions{Scenario: inv.string("scenario"), Verbose: inv.bool("verbose"), Diagnostics: inv.bool("v"),
		Watch: inv.bool("watch"), TTY: isTerminal(env.Stdout) && env.Getenv("CI") == ""}, env, logger)
}

// DemoFunc runs the demo subcommand.
type DemoFunc func(ctx context.Context, opts DemoOptions, env Env, logger *slog.Logger) error

var versionSpec = &spec{
	name:    "version",
	short:   "print the version",
	long:    "Print review-loop's version.",
	example: []string{"review-loop version"},
}

func runVersionCommand(_ context.Context, _ *invocation, env Env, _ *slog.Logger) error {
	_, err := fmt.Fprintf(env.Stdout, "review-loop %s\n", env.Version)
	return err
}

// tokenFrom is the user's token: GH_TOKEN, else GITHUB_TOKEN.
func tokenFrom(env Env, cmd string) (string, error) {
	if t := cmpOr(env.Getenv("GH_TOKEN"), env.Getenv("GITHUB_TOKEN")); t != "" {
		return t, nil
	}
	return "", fail(env, fmt.Errorf("%s needs a token in GH_TOKEN or GITHUB_TOKEN (read access is enough; `gh auth token` prints yours)", cmd))
}

// bool, string and int are the values of the invocation's flags.
func (inv *invocation) bool(name string) bool {
	v, _ := inv.fs.Lookup(name).Value.(flag.Getter).Get().(bool)
	return v
}

func (inv *invocation) string(name string) string {
	return inv.fs.Lookup(name).Value.String()
}

func (inv *invocation) int(name string) int {
	v, _ := inv.fs.Lookup(name).Value.(flag.Getter).Get().(int)
	return v
}

// endpointsFor is getenv with the API endpoints of the GitHub Enterprise
// Server a PR URL names (https://HOST/api/v3 and /api/graphql), when the
// user set no server of their own; github.com and owner/repo#N keep
// getenv's.
func endpointsFor(getenv func(string) string, host string) func(string) string {
	if host == "" || host == "github.com" || getenv("GITHUB_SERVER_URL") != "" {
		return getenv
	}
	over := map[string]string{"GITHUB_SERVER_URL": "https://" + host}
	if getenv("GITHUB_API_URL") == "" {
		over["GITHUB_API_URL"] = "https://" + host + "/api/v3"
		over["GITHUB_GRAPHQL_URL"] = "https://" + host + "/api/graphql"
	}
	return func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		return getenv(k)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
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
