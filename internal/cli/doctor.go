package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/doctor"
	"github.com/review-loop/review-loop/internal/github"
)

// This file wires `review-loop doctor [<owner/repo>] [--config-file PATH]` and `mode: doctor` to
// the checklist (doctor.Doctor): tokens, clients and where it is printed.

var doctorSpec = &spec{
	name:  "doctor",
	short: "check a repository's set-up, or a config file, read-only",
	long: `Check what a repository needs before its first loop, with the tokens the
workflow would have: the workflow on the default branch and its permissions,
the push and trigger tokens, the secrets, the engines seen, branch protection
and rulesets on PR branches, the merge gate and the config file, each miss
with its fix. It only reads, and exits 1 when something is missing.

The repository defaults to GITHUB_REPOSITORY; the token comes from GH_TOKEN
or GITHUB_TOKEN, the push and trigger tokens from REVIEW_LOOP_PUSH_TOKEN and
REVIEW_LOOP_TRIGGER_TOKEN. --config-file checks a file of this machine
instead of the repository's .github/review-loop.yml: every key at every
depth, every value, the engines its prices name. Given alone, it checks
only the file, offline and with no token.`,
	args: []positional{{name: "<owner/repo>", kind: argRepo, optional: true}},
	example: []string{
		"review-loop doctor octo/app",
		"review-loop doctor --config-file .github/review-loop.yml",
		"review-loop doctor octo/app --config-file ./review-loop.yml",
	},
	flags: func(fs *flag.FlagSet) {
		fs.String("config-file", "", "check the config file at `PATH` on this machine instead of the repository's")
	},
}

// runDoctorCommand is `review-loop doctor [<owner/repo>] [--config-file
// PATH]`. Exit status 1 when something is missing.
func runDoctorCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	var local *doctor.LocalFile
	if p := inv.string("config-file"); p != "" {
		raw, err := os.ReadFile(p)
		if err != nil {
			return fail(env, fmt.Errorf("--config-file: %w", err))
		}
		local = &doctor.LocalFile{Path: p, Raw: raw}
	}
	repo := inv.repo
	if repo == nil && env.Getenv("GITHUB_REPOSITORY") != "" {
		r, err := ParseRepo(env.Getenv("GITHUB_REPOSITORY"))
		if err != nil {
			return fail(env, fmt.Errorf("GITHUB_REPOSITORY: %w", err))
		}
		repo = &r
	}
	if repo == nil {
		if local == nil {
			return inv.spec.usageErr("missing <owner/repo> (or GITHUB_REPOSITORY, or --config-file PATH to check only a file)")
		}
		if !doctor.WriteDoctor(env.Stdout, local.Path, []doctor.DoctorCheck{doctor.CheckLocalConfig(*local)}) {
			return errDoctorMissing
		}
		return nil
	}
	token, err := tokenFrom(env, "doctor")
	if err != nil {
		return err
	}
	in := doctor.DoctorInput{Owner: repo.Owner, Repo: repo.Repo, GitHubToken: token, ConfigFile: ".github/review-loop.yml", LocalConfig: local,
		ServerURL: env.Getenv("GITHUB_SERVER_URL"),
		PushToken: env.Getenv("REVIEW_LOOP_PUSH_TOKEN"), TriggerToken: env.Getenv("REVIEW_LOOP_TRIGGER_TOKEN"),
		Client: func(t string) (*github.Client, error) {
			return github.New(github.Options{Token: t, APIURL: env.Getenv("GITHUB_API_URL"), GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"), Logger: logger})
		}}
	ok := doctor.WriteDoctor(env.Stdout, repo.String(), doctor.Doctor(ctx, in))
	// EQ2: the repository's last 30 days, when it has loops.
	if gh, err := in.Client(token); err == nil {
		if sc := recentScorecard(ctx, gh, repo.Owner, repo.Repo, env.now()); sc != "" {
			fmt.Fprint(env.Stdout, "\n"+sc)
		}
	}
	if !ok {
		return errDoctorMissing
	}
	return nil
}

var errDoctorMissing = errors.New("doctor: a prerequisite is missing")

// doctorMode is `mode: doctor`: the checklist for the workflow's own
// repository and tokens, in the log and the job summary. A secret the
// workflow passes as an input is present when the input is not empty.
func doctorMode(ctx context.Context, cfg config.Config, env Env, logger *slog.Logger) error {
	in := doctor.DoctorInput{Owner: cfg.Owner, Repo: cfg.Repo, GitHubToken: cfg.GitHubToken, TriggerToken: cfg.TriggerToken, ConfigFile: cfg.ConfigFile, ServerURL: cfg.ServerURL,
		Secrets: map[string]bool{
			"REVIEW_LOOP_PUSH_TOKEN":    cfg.PushToken != "" && cfg.PushToken != cfg.GitHubToken,
			"REVIEW_LOOP_TRIGGER_TOKEN": cfg.TriggerToken != "",
			"ANTHROPIC_API_KEY":         cfg.AnthropicAPIKey != "",
		},
		Client: func(t string) (*github.Client, error) {
			return github.New(github.Options{Token: t, APIURL: cfg.APIURL, GraphQLURL: cfg.GraphQLURL, Logger: logger})
		}}
	if cfg.PushToken != cfg.GitHubToken {
		in.PushToken = cfg.PushToken
	}
	var b strings.Builder
	ok := doctor.WriteDoctor(&b, cfg.Repository, doctor.Doctor(ctx, in))
	// EQ2: the repository's last 30 days, when it has loops.
	if gh, err := in.Client(cfg.GitHubToken); err == nil {
		if sc := recentScorecard(ctx, gh, cfg.Owner, cfg.Repo, env.now()); sc != "" {
			b.WriteString("\n" + sc)
		}
	}
	fmt.Fprint(env.Stdout, b.String())
	if env.Getenv("GITHUB_STEP_SUMMARY") != "" {
		githubactions.New(githubactions.WithWriter(env.Stdout), githubactions.WithGetenv(env.Getenv)).AddStepSummary("```\n" + b.String() + "```\n")
	}
	if !ok {
		return errDoctorMissing
	}
	return nil
}
