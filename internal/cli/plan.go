package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/config"
)

// This file is `review-loop plan OWNER/REPO#N`: the next cycle's plan on
// a real pull request, as a dry run that writes nothing.

var prRefRE = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)#([0-9]+)$`)

// runPlanCommand is `review-loop plan OWNER/REPO#N`: the next cycle's
// decision on a real pull request, as a dry run (H9) that writes nothing
// to GitHub: no comment, label, reaction, check run, dispatch or push.
// The token comes from GH_TOKEN or GITHUB_TOKEN (read access is enough);
// inputs may be given as INPUT_<NAME> variables, as the action gets them.
func runPlanCommand(ctx context.Context, args []string, env Env, logger *slog.Logger) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{msg: err.Error()}
	}
	m := prRefRE.FindStringSubmatch(fs.Arg(0))
	if m == nil || fs.NArg() != 1 {
		return &usageError{msg: "plan needs one pull request as owner/repo#N"}
	}
	n, _ := strconv.Atoi(m[3])
	token := cmp.Or(env.Getenv("GH_TOKEN"), env.Getenv("GITHUB_TOKEN"))
	if token == "" {
		return &usageError{msg: "plan needs a token in GH_TOKEN or GITHUB_TOKEN"}
	}
	tmp, err := os.MkdirTemp("", "review-loop-plan-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	payload, _ := json.Marshal(map[string]any{"inputs": map[string]any{"pr": strconv.Itoa(n)}})
	eventPath := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(eventPath, payload, 0o600); err != nil {
		return err
	}
	workspace := filepath.Join(tmp, "workspace")
	if err := os.Mkdir(workspace, 0o700); err != nil {
		return err
	}
	// The environment of a workflow_dispatch for the PR, in dry-run mode,
	// with an empty workspace: the config is read from the default branch
	// and the PR head cloned only if the plan needs the tree.
	over := map[string]string{
		"INPUT_GITHUB-TOKEN": token, "INPUT_DRY-RUN": "true", "INPUT_PR": strconv.Itoa(n),
		"GITHUB_REPOSITORY": m[1] + "/" + m[2], "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_WORKSPACE": workspace, "RUNNER_TEMP": tmp, "GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "",
		"GITHUB_OUTPUT": "", "GITHUB_STATE": "", "GITHUB_ENV": "", "GITHUB_PATH": "",
	}
	getenv := func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		return env.Getenv(k)
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "review-loop: %v\n", err)
		return err
	}
	cfg.Mode = config.ModeSingle
	cfg.EnvSecrets = env.Secrets
	var log strings.Builder
	res, err := action.Run(ctx, action.Deps{Config: cfg, Getenv: getenv, Out: &log, Log: logger})
	if err != nil {
		fmt.Fprintf(env.Stderr, "review-loop: %v\n", err)
		return err
	}
	for _, pr := range res.PRs {
		fmt.Fprintf(env.Stdout, "%s/%s#%d: the next cycle would %s\n", m[1], m[2], pr.PR, pr.Plan.Action)
		if pr.Skipped != "" {
			fmt.Fprintf(env.Stdout, "  %s\n", pr.Skipped)
		}
		if pr.DryRun != "" {
			fmt.Fprint(env.Stdout, pr.DryRun)
		}
	}
	return nil
}
