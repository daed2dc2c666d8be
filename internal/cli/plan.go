package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file is `review-loop plan <owner/repo#N | PR URL>`: the next cycle's plan on
// a real pull request, as a dry run that writes nothing.

var planSpec = &spec{
	name:  "plan",
	short: "what the next cycle would do on a pull request, read-only",
	long: `Print what the next cycle would do on a pull request and why, as a dry run
that writes nothing to GitHub: no comment, label, reaction, check run,
dispatch or push. It plans as a workflow_dispatch for the PR would (which
starts or resumes a loop), and says what the configured start policy
(start-on) makes of the other wakes: under start-on: command, a PR with no
loop gets none until a maintainer asks.

The token comes from GH_TOKEN or GITHUB_TOKEN (read access is enough); the
action's inputs may be given as INPUT_<NAME> variables (INPUT_START-ON=auto,
INPUT_ENGINES=copilot), as the action gets them.`,
	args:    []positional{{name: "<owner/repo#N | PR URL>", kind: argPR}},
	example: []string{"review-loop plan octo/app#42", "INPUT_START-ON=auto review-loop plan https://github.com/octo/app/pull/42"},
}

// runPlanCommand is `review-loop plan <owner/repo#N | PR URL>`: the next
// cycle's decision on a real pull request, as a dry run (H9) that writes
// nothing to GitHub.
func runPlanCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	pr := *inv.pr
	n := pr.Number
	base := endpointsFor(env.Getenv, pr.Host)
	token, err := tokenFrom(env, "plan")
	if err != nil {
		return err
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
		"GITHUB_REPOSITORY": pr.Owner + "/" + pr.Repo, "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_WORKSPACE": workspace, "RUNNER_TEMP": tmp, "GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "",
		"GITHUB_OUTPUT": "", "GITHUB_STATE": "", "GITHUB_ENV": "", "GITHUB_PATH": "",
	}
	getenv := func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		return base(k)
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return fail(env, err)
	}
	cfg.Mode = config.ModeSingle
	cfg.EnvSecrets = env.Secrets
	var log strings.Builder
	res, err := action.Run(ctx, action.Deps{Config: cfg, Getenv: getenv, Out: &log, Log: logger})
	if err != nil {
		return fail(env, err)
	}
	for _, r := range res.PRs {
		fmt.Fprintf(env.Stdout, "%s/%s#%d: the next cycle would %s\n", pr.Owner, pr.Repo, r.PR, r.Plan.Action)
		for _, l := range planAssumptions(r, cfg, env.Getenv("INPUT_START-ON") != "") {
			fmt.Fprintf(env.Stdout, "  %s\n", l)
		}
		if r.Skipped != "" {
			fmt.Fprintf(env.Stdout, "  %s\n", r.Skipped)
		}
		if r.DryRun != "" {
			fmt.Fprint(env.Stdout, r.DryRun)
		}
	}
	// EQ2: the repository's last 30 days, when it has loops.
	if gh, err := github.New(github.Options{Token: token, APIURL: getenv("GITHUB_API_URL"), GraphQLURL: getenv("GITHUB_GRAPHQL_URL"), Logger: logger}); err == nil {
		fmt.Fprint(env.Stdout, recentScorecard(ctx, gh, pr.Owner, pr.Repo, env.now()))
	}
	return nil
}

// planAssumptions are the two lines that say what the plan assumes (a
// dispatch for the PR, which asks for a loop) and what the configured
// start policy makes of a wake that does not ask (an engine's review, a
// push): the same rule the cycle applies (loop.Admit).
func planAssumptions(r action.PRResult, cfg config.Config, configured bool) []string {
	policy := loop.StartPolicy(cfg.StartOn)
	src := "the default; INPUT_START-ON sets it as the workflow's start-on input does"
	if configured {
		src = "from INPUT_START-ON"
	}
	assumes := fmt.Sprintf("assumes: a workflow_dispatch for PR #%d by a maintainer, which starts a loop or resumes one whatever start-on says", r.PR)
	skip, _ := loop.Admit(state.State{Status: r.LoopBefore}, loop.WakeFacts{Policy: policy, Phrase: cfg.TriggerPhrase}, loop.Facts{})
	var under string
	switch {
	case r.LoopBefore == state.StatusDone || r.LoopBefore == state.StatusStopped:
		under = fmt.Sprintf("the loop on this PR has ended: only `%s start` restarts it (H8)", cfg.TriggerPhrase)
	case skip != "":
		under = fmt.Sprintf("no loop runs on this PR, so nothing starts: an engine's review or a push does nothing until a maintainer comments `%s start`, adds the `%s` label or dispatches the workflow with pr: %d",
			cfg.TriggerPhrase, event.StartLabel, r.PR)
	case r.LoopBefore == "":
		under = "no loop runs on this PR yet: its next wake of any kind (an engine's review, a push) starts one and does the above"
	default:
		under = "a loop runs on this PR: its next wake of any kind (an engine's review, a push, the sweep) does the above"
	}
	return []string{assumes, fmt.Sprintf("under start-on: %s (%s): %s", policy, src, under)}
}
