package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/judge"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/secret"
	"github.com/review-loop/review-loop/internal/state"
	"github.com/review-loop/review-loop/internal/triage"
	"github.com/sethvargo/go-githubactions"
)

// This file is a run: the inputs and the event judged before any
// request (C2), the clients, the pull requests the wake concerns, and one
// cycle each.

// Deps are a cycle's collaborators, built by the top layer or a test. Only
// Config and Getenv are required; the rest take working defaults.
type Deps struct {
	Config config.Config
	// Getenv reads the environment (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY...).
	Getenv func(string) string
	// Out receives workflow commands (stdout on a runner).
	Out io.Writer
	Log *slog.Logger
	// Now is the clock; Sleep waits (in-job waits and the T6 retry delay).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// HTTPClient is the base transport for GitHub requests.
	HTTPClient *http.Client
	// ClientOptions adjust the GitHub clients (timeouts, retries).
	ClientOptions github.Options
	// TriggerRetryDelay is T6's delay before retrying a failed trigger.
	TriggerRetryDelay time.Duration
	// Judge overrides the judge built from the inputs.
	Judge judge.Judge
	// AnthropicBaseURL, when set, is the Messages API endpoint of the
	// built-in judge (a local fake in the demo and tests).
	AnthropicBaseURL string
	// ChildPath, when set, is put first on the PATH of the fix pipeline's
	// children (the demo's simulated agent CLI lives there).
	ChildPath string
	// CrashAfterPush, when it returns true, ends the cycle right after the
	// push and before the state is saved: a test seam for a run killed
	// between push and save (E5).
	CrashAfterPush func() bool
	// OnEffect, when set, is told of each effect as the executor starts
	// it: the terminal driver's live status shows the current effect.
	OnEffect func(pr int, e loop.Effect)
	// Driver names the driver that is not the Action: "watch" for
	// `review-loop watch`, whose new status comment says so (LW1).
	Driver string
}

// ErrCrashed is returned by a cycle ended by Deps.CrashAfterPush.
var ErrCrashed = errors.New("run killed after the push, before the state was saved")

// Result is what one run did, per pull request.
type Result struct {
	Wake event.Wake
	PRs  []PRResult
	// Publish is, in hardened mode's prepare job, whether the publish job
	// has anything to write (C3): false only when every PR's cycle was
	// proven to write nothing (an ignored event, no loop, an idle wake).
	Publish bool
}

// PRResult is one pull request's cycle.
type PRResult struct {
	PR int
	// CheckedOut is set when the cycle made the checkout itself: the run
	// started with none, and this cycle needed the tree.
	CheckedOut bool
	Plan       loop.Plan
	State      state.State
	// LoopBefore is the loop's status as the cycle found it: "" when the
	// PR had no loop (`review-loop plan` says what starts one).
	LoopBefore state.Status
	Outputs    map[string]string
	// Skipped says why the cycle stopped without acting (another run won,
	// the loop is finished...).
	Skipped string
	// Unchanged is true when the cycle wrote nothing because the status
	// comment already said what it would write (C2: an idle wake).
	Unchanged bool
	// Quiet is true when the cycle was proven to have nothing to write
	// (C2, C3): an idle wake, or a wake on a PR with no loop that starts
	// none. In hardened mode, a prepare job whose cycles are all quiet
	// starts no publish job.
	Quiet bool
	// Pushed is the SHA of the fix commit pushed this cycle.
	Pushed string
	// Dispatched is true when the cycle re-dispatched its workflow (W5).
	Dispatched bool
	// CIDispatched are the CI workflows dispatched on the head (CI1).
	CIDispatched []string
	// Tests are the targeted test commands the fix cycle ran; Resolved
	// counts the review threads it resolved.
	Tests    []string
	Resolved int
	// TestFindings[i] is the finding Tests[i] ran for; TestPassed[i]
	// whether it passed.
	TestFindings []string
	TestPassed   []bool
	// DryRun is a dry run's plan in the words of the job summary.
	DryRun string
	// Effects are the effects the cycle carried out, in order: the
	// command's, the decision's (loop.PlanCycle), those that followed a
	// fix (loop.AfterFix) and the closing writes (loop.Closing). In a dry
	// run, the effects it would carry out.
	Effects []loop.Effect
}

func (d *Deps) defaults() {
	if d.Out == nil {
		d.Out = io.Discard
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Sleep == nil {
		d.Sleep = Sleep
	}
	if d.TriggerRetryDelay == 0 {
		d.TriggerRetryDelay = 30 * time.Second
	}
}

// runner holds what every PR of one run shares.
type runner struct {
	Deps
	cfg     config.Config
	gha     *githubactions.Action
	gh      *github.Client
	trigger *github.Client // built with trigger-token, nil without one
	// permissions caches each commenter's repository permission (TB3).
	permissions observe.Permissions
	registry    *engines.Registry
	repoCfg     config.Repo
	loopCfg     loop.Config
	judge       judge.Judge
	// treeless is set when the workspace held no checkout at the start:
	// cycles check out on demand (tree.go).
	treeless bool
	// agentPin is the agent fixer's CLI as recorded before any command
	// ran (TB11); nil when the fixer is no agent.
	agentPin *fix.AgentPin
	// setup is the configuration as judged so far (config.NewSetup, then
	// WithRepo); registry, repoCfg and loopCfg are its parts.
	setup config.Setup
	// configDeferred: no checkout, so the config file is read with the
	// first observation (adoptObservedConfig), not in a request of its own.
	configDeferred bool
	// secrets are every secret input: nothing that holds one is written
	// (TB14); the GitHub clients hold the same set.
	secrets *secret.Set
}

// useRepoConfig adopts the repository's config file (config.WithRepo).
func (r *runner) useRepoConfig(rc config.Repo) error {
	s, err := r.setup.WithRepo(rc)
	if err != nil {
		return err
	}
	r.setup, r.repoCfg, r.registry, r.loopCfg = s, s.Repo, s.Registry, s.Loop
	return nil
}

// adoptObservedConfig reads the config file the observation carried, when
// the run has no checkout (C2), and judges the event again with the
// engines it defines; it returns why the event does not concern the
// loop after all, or "".
func (r *runner) adoptObservedConfig(obs *github.Observation) (string, error) {
	if !r.configDeferred {
		return "", nil
	}
	r.configDeferred = false
	var raw []byte
	if obs.Config != nil {
		raw = []byte(obs.Config.Text)
	}
	rc, err := observe.DefaultBranchConfig(raw, obs.Config != nil, r.cfg.ConfigFile, r.Log)
	if err != nil {
		return "", err
	}
	if err := r.useRepoConfig(rc); err != nil {
		return "", err
	}
	w, err := r.setup.Wake(false)
	if err != nil {
		return "", err
	}
	if w.Kind == event.KindIgnore {
		return w.Reason, nil
	}
	return "", nil
}

// Run runs one cycle: it reads what woke it, then advances the loop of each
// pull request concerned. It is the whole of `review-loop cycle`.
func Run(ctx context.Context, d Deps) (res Result, err error) {
	d.defaults()
	cfg := d.Config
	gha := githubactions.New(githubactions.WithWriter(d.Out), githubactions.WithGetenv(d.Getenv))
	for _, s := range cfg.Secrets() {
		gha.AddMask(s)
	}
	switch {
	case cfg.Mode == config.ModePrepare:
		defer func() { err = errors.Join(err, handOver(gha, d.Getenv, cfg.ArtifactDir)) }()
	case cfg.Mode == config.ModePublish && cfg.Prepared != "":
		if cfg.ArtifactDir, err = takeOver(cfg.Prepared, d.Getenv("RUNNER_TEMP")); err != nil {
			return Result{}, err
		}
	}
	r := &runner{Deps: d, cfg: cfg, gha: gha, treeless: treeless(cfg), secrets: cfg.SecretSet()}
	for _, name := range cfg.UnprotectedSecrets() {
		gha.Warningf("review-loop: the secret %s is shorter than %d characters: too short to tell from ordinary text, so what review-loop writes cannot be checked for it (TB14)", name, secret.MinRaw)
	}
	r.pinAgent()

	// C2: the inputs, the event and the engine names are judged before the
	// first request; an event that does not concern review-loop costs none.
	// Judged with the built-in engines and every check run watched, an
	// ignored event is ignored whatever the config file adds.
	if r.setup, err = config.NewSetup(cfg, d.Getenv); err != nil {
		return Result{}, err
	}
	pre, err := r.setup.Wake(true)
	if err != nil {
		return Result{}, err
	}
	if pre.Kind == event.KindIgnore {
		writeReport(gha, d.Getenv, report.Ignored(pre.Reason), 0)
		res := Result{Wake: pre}
		r.setPublish(&res)
		return res, nil
	}

	// Without a checkout the config file comes with the first observation,
	// in its own query (C2: an idle wake is one read); only an engine name
	// that needs its definitions reads it first.
	r.configDeferred = r.setup.DefersRepo(r.treeless)
	rc := config.Repo{Catalogue: triage.Builtin()}
	if !r.configDeferred {
		if rc, err = r.repoConfig(ctx); err != nil {
			return Result{}, r.setup.RepoUnreadable(err)
		}
	}
	if err := r.useRepoConfig(rc); err != nil {
		return Result{}, err
	}
	r.judge = d.Judge
	if r.judge == nil {
		if r.judge, err = config.Judge(cfg, d.AnthropicBaseURL); err != nil {
			return Result{}, err
		}
	}

	// Until the config file is read, every engine's check run may be one
	// the file defines: the event is judged again once it is (cycle).
	wake, err := r.setup.Wake(r.configDeferred)
	if err != nil {
		return Result{}, err
	}
	res = Result{Wake: wake}
	if cfg.Mode == config.ModePrepare {
		// The artifact always exists, so the upload and the publish job's
		// download work even when this run prepares nothing.
		if err := prepared.Mark(cfg.ArtifactDir, cfg.Repository, cfg.RunID); err != nil {
			return res, err
		}
	}
	if wake.Kind == event.KindIgnore {
		writeReport(gha, d.Getenv, report.Ignored(wake.Reason), 0)
		r.setPublish(&res)
		return res, nil
	}
	if wake.Owner == "" {
		wake.Owner, wake.Repo = cfg.Owner, cfg.Repo
	}

	if r.gh == nil {
		if r.gh, err = r.client(cfg.GitHubToken); err != nil {
			return res, err
		}
	}
	if cfg.TriggerToken != "" {
		if r.trigger, err = r.client(cfg.TriggerToken); err != nil {
			return res, err
		}
	}

	var prs []int
	if wake.Kind == event.KindSweep {
		// The scheduled sweep fans out: one run per live loop.
		prs, res.PRs, err = r.sweep(ctx, wake)
	} else {
		prs, err = observe.PRsOf(ctx, r.gh, wake, cfg.PR)
	}
	if err != nil {
		return res, err
	}
	if len(prs) == 0 && wake.RunNamesNoPR() {
		// A comment-triggered run (Claude after "@claude review once")
		// names no PR and its head is the default branch's: visit the
		// live loops as the sweep does; each claims the run only if it
		// matches its own trigger (readWorkflowRuns).
		wake.Kind = event.KindSweep
		live, _, err := observe.LivePRs(ctx, r.gh, wake.Owner, wake.Repo)
		if err != nil {
			return res, err
		}
		prs = r.inlineCap(live)
	}
	var errs []error
	for _, n := range prs {
		pr, err := r.cycle(ctx, wake, n)
		res.PRs = append(res.PRs, pr)
		if err != nil {
			errs = append(errs, prError(n, err))
		}
	}
	if len(errs) == 0 && !slices.ContainsFunc(res.PRs, func(p PRResult) bool { return p.Outputs != nil }) {
		// H9: a run that cycled no loop still sets every output.
		visited := make([]report.Skip, len(res.PRs))
		for i, p := range res.PRs {
			visited[i] = report.Skip{PR: p.PR, Why: p.Skipped}
		}
		writeReport(gha, d.Getenv, report.NoneCycled(visited), 0)
	}
	n := r.gh.Requests()
	r.Log.Info("api requests this run", "total", n.Total, "reads", n.Reads, "writes", n.Writes)
	if len(errs) == 0 {
		r.setPublish(&res)
	}
	return res, errors.Join(errs...)
}

// setPublish sets, in the prepare job, the `publish` output the hardened
// workflow's publish job runs on (C3): "true" unless every PR's cycle
// was proven quiet. A run that fails sets none: its job fails, and the
// publish job, which needs it, does not run.
func (r *runner) setPublish(res *Result) {
	if r.cfg.Mode != config.ModePrepare {
		return
	}
	res.Publish = slices.ContainsFunc(res.PRs, func(p PRResult) bool { return !p.Quiet })
	if r.Getenv("GITHUB_OUTPUT") != "" {
		r.gha.SetOutput(report.OutputPublish, strconv.FormatBool(res.Publish))
	}
	if !res.Publish {
		r.gha.Noticef("review-loop: nothing to publish: no PR's cycle has anything to write; the publish job does not start")
	}
}

// prError names the PR an error is about, unless the error names it
// already: each context is named once.
func prError(n int, err error) error {
	if strings.Contains(err.Error(), fmt.Sprintf("#%d:", n)) || strings.Contains(err.Error(), fmt.Sprintf("#%d ", n)) {
		return err
	}
	return fmt.Errorf("PR #%d: %w", n, err)
}

func (r *runner) client(token string) (*github.Client, error) {
	o := r.cfg.ClientOptions(r.ClientOptions, token)
	if o.HTTPClient == nil {
		o.HTTPClient = r.HTTPClient
	}
	if o.Logger == nil {
		o.Logger = r.Log
	}
	return github.New(o)
}

// sweepBudget bounds how many PRs a scheduled sweep visits in one run.
const sweepBudget = 10

// Sleep waits for dur or until ctx is done, whichever comes first: the
// real clock's wait, for the drivers (the Action and watch).
func Sleep(ctx context.Context, dur time.Duration) error {
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
