package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/doctor"
	"github.com/review-loop/review-loop/internal/github"
)

// This file wires `review-loop doctor OWNER/REPO` and `mode: doctor` to
// the checklist (doctor.Doctor): tokens, clients and where it is printed.

// runDoctorCommand is `review-loop doctor OWNER/REPO`: the token from
// GH_TOKEN or GITHUB_TOKEN, the push and trigger tokens from
// REVIEW_LOOP_PUSH_TOKEN and REVIEW_LOOP_TRIGGER_TOKEN when set (the
// quick start's secret names). Exit status 1 when something is missing.
func runDoctorCommand(ctx context.Context, args []string, env Env, logger *slog.Logger) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	configFile := fs.String("config-file", ".github/review-loop.yml", "the repository config file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{msg: err.Error()}
	}
	repo := fs.Arg(0)
	if repo == "" {
		repo = env.Getenv("GITHUB_REPOSITORY")
	}
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || fs.NArg() > 1 {
		return &usageError{msg: "doctor needs one repository as owner/name"}
	}
	token := cmp.Or(env.Getenv("GH_TOKEN"), env.Getenv("GITHUB_TOKEN"))
	if token == "" {
		return &usageError{msg: "doctor needs a token in GH_TOKEN or GITHUB_TOKEN"}
	}
	in := doctor.DoctorInput{Owner: owner, Repo: name, GitHubToken: token, ConfigFile: *configFile, ServerURL: env.Getenv("GITHUB_SERVER_URL"),
		PushToken: env.Getenv("REVIEW_LOOP_PUSH_TOKEN"), TriggerToken: env.Getenv("REVIEW_LOOP_TRIGGER_TOKEN"),
		Client: func(t string) (*github.Client, error) {
			return github.New(github.Options{Token: t, APIURL: env.Getenv("GITHUB_API_URL"), GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"), Logger: logger})
		}}
	if !doctor.WriteDoctor(env.Stdout, repo, doctor.Doctor(ctx, in)) {
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
	fmt.Fprint(env.Stdout, b.String())
	if env.Getenv("GITHUB_STEP_SUMMARY") != "" {
		githubactions.New(githubactions.WithWriter(env.Stdout), githubactions.WithGetenv(env.Getenv)).AddStepSummary("```\n" + b.String() + "```\n")
	}
	if !ok {
		return errDoctorMissing
	}
	return nil
}
