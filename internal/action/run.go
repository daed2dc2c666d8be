package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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
	"github.com/review-loop/review-loop/internal/state"
	"github.com/review-loop/review-loop/internal/triage"
	"github.com/sethvargo/go-githubactions"
)

// This file is a run: the inputs and the event judged before any
// request (C2), the clients, the pull requests the wake concerns, and one
// cycle each.

// errNoEventPath: inside Actions the runner always sets GITHUB_EVENT_PATH;
// without it the run cannot know what woke it, and guessing would act on
// the wrong thing.
var errNoEventName = errors.New("GITHUB_EVENT_NAME is not set: review-loop runs as a step of a workflow, where the runner sets it to the name of the event that started the run")

var errNoEventPath = errors.New("GITHUB_EVENT_PATH is not set: inside GitHub Actions the runner sets it to the event payload; do not override it in the workflow's env")

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
}

// ErrCrashed is returned by a cycle ended by Deps.CrashAfterPush.
var ErrCrashed = errors.New("run killed after the push, before the state was saved")

// Result is what one run did, per pull request.
type Result struct {
	Wake event.Wake
	PRs  []PRResult
}

// PRResult is one pull request's cycle.
type PRResult struct {
	PR int
	// CheckedOut is set when the cycle made the checkout itself: the run
	// started with none, and this cycle needed the tree.
	CheckedOut bool
	Plan       loop.Plan
	State      state.State
	Outputs    map[string]string
	// Skipped says why the cycle stopped without acting (another run won,
	// the loop is finished...).
	Skipped string
	// Unchanged is true when the cycle wrote nothing because the status
	// comment already said what it would write (C2: an idle wake).
	Unchanged bool
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
	// TestFindings[i] is the finding Tests[i] ran for.
	TestFindings []string
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
		d.Sleep = func(ctx context.Context, dur time.Duration) error {
			t := time.NewTimer(dur)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		}
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
	permissions map[string]github.Permission
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
	// notBuiltin are the `engines` names no built-in engine has (preCheck).
	notBuiltin []string
	// configDeferred: no checkout, so the config file is read with the
	// first observation (adoptObservedConfig), not in a request of its own.
	configDeferred bool
	// payload is the event's payload, judged again once the config is read.
	payload []byte
}

// useRepoConfig adopts the repository's config: its engine definitions,
// patterns and prices, checked against the inputs.
func (r *runner) useRepoConfig(rc config.Repo) error {
	cfg := r.cfg
	reg, err := config.BuildRegistry(cfg, rc)
	if err != nil {
		return err
	}
	if err := config.CheckPriceEngines(rc.Prices, reg); err != nil {
		return fmt.Errorf("%s: %w", cfg.ConfigFile, err)
	}
	if len(cfg.Engines) > 0 {
		if _, err := reg.ParseNames(strings.Join(cfg.Engines, ",")); err != nil {
			return fmt.Errorf("input engines: %w", err)
		}
	}
	r.repoCfg, r.registry = rc, reg
	// CV6: the input's globs and the config file's.
	r.loopCfg.PathsIgnore = append(slices.Clone(cfg.PathsIgnore), rc.PathsIgnore...)
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
	w, err := event.Parse(r.cfg.EventName, r.payload, r.eventConfig())
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
func Run(ctx context.Context, d Deps) (Result, error) {
	d.defaults()
	cfg := d.Config
	gha := githubactions.New(githubactions.WithWriter(d.Out), githubactions.WithGetenv(d.Getenv))
	for _, s := range cfg.Secrets() {
		gha.AddMask(s)
	}
	r := &runner{Deps: d, cfg: cfg, gha: gha, treeless: treeless(cfg)}
	r.pinAgent()

	// C2: the inputs, the event and the engine names are judged before the
	// first request; an event that does not concern review-loop costs none.
	pre, payload, err := r.preCheck()
	if err != nil {
		return Result{}, err
	}
	if pre.Kind == event.KindIgnore {
		gha.Noticef("review-loop: nothing to do: %s", pre.Reason)
		noLoopOutputs(gha, d.Getenv, "nothing to do", pre.Reason)
		return Result{Wake: pre}, nil
	}

	// Without a checkout the config file comes with the first observation,
	// in its own query (C2: an idle wake is one read); only an engine name
	// that needs its definitions reads it first.
	r.configDeferred = observe.ConfigOnDefaultBranch(r.treeless, cfg.ConfigFile) && len(r.notBuiltin) == 0
	rc := config.Repo{Catalogue: triage.Builtin()}
	if !r.configDeferred {
		if rc, err = r.repoConfig(ctx); err != nil {
			if len(r.notBuiltin) > 0 {
				return Result{}, fmt.Errorf("input engines: %s is no built-in engine, and the config file that could define it could not be read: %w",
					strings.Join(r.notBuiltin, ", "), err)
			}
			return Result{}, err
		}
	}
	if r.loopCfg, err = config.Loop(cfg); err != nil {
		return Result{}, err
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

	ec := r.eventConfig()
	// Until the config file is read, every engine's check run may be one
	// the file defines: the event is judged again once it is (cycle).
	ec.WatchAll = r.configDeferred
	r.payload = payload
	wake, err := event.Parse(cfg.EventName, payload, ec)
	if err != nil {
		return Result{}, err
	}
	res := Result{Wake: wake}
	if cfg.Mode == config.ModePrepare {
		// The artifact always exists, so the upload and the publish job's
		// download work even when this run prepares nothing.
		if err := markPrepared(cfg); err != nil {
			return res, err
		}
	}
	if wake.Kind == event.KindIgnore {
		gha.Noticef("review-loop: nothing to do: %s", wake.Reason)
		noLoopOutputs(gha, d.Getenv, "nothing to do", wake.Reason)
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
		prs, err = r.prsOf(ctx, wake)
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
		if prs, err = r.prsOf(ctx, wake); err != nil {
			return res, err
		}
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
		why := "no pull request's loop needed a cycle in this run"
		if len(res.PRs) > 0 {
			lines := make([]string, 0, len(res.PRs))
			for _, p := range res.PRs {
				lines = append(lines, fmt.Sprintf("- PR #%d: %s", p.PR, cmp.Or(p.Skipped, "not cycled in this job")))
			}
			why = strings.Join(lines, "\n")
		}
		noLoopOutputs(gha, d.Getenv, "no loop cycled", why)
	}
	n := r.gh.Requests()
	r.Log.Info("api requests this run", "total", n.Total, "reads", n.Reads, "writes", n.Writes)
	return res, errors.Join(errs...)
}

func (r *runner) client(token string) (*github.Client, error) {
	o := r.ClientOptions
	o.Token, o.APIURL, o.GraphQLURL = token, r.cfg.APIURL, r.cfg.GraphQLURL
	if f := r.cfg.ConfigFile; f != "" && !filepath.IsAbs(f) {
		o.ConfigFile = filepath.ToSlash(filepath.Clean(f))
	}
	if o.HTTPClient == nil {
		o.HTTPClient = r.HTTPClient
	}
	if o.Logger == nil {
		o.Logger = r.Log
	}
	return github.New(o)
}

func readPayload(path string) ([]byte, error) {
	if path == "" {
		return []byte("{}"), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	return b, nil
}

// preCheck judges what needs no request (C2): the event name and payload,
// the bounds and the engine names as far as the built-in engines know
// them. It returns the event as the built-in engines see it with every
// check run and suite watched: ignored there, it is ignored whatever the
// repository's config file adds (engine definitions only add watched
// check runs and apps).
func (r *runner) preCheck() (event.Wake, []byte, error) {
	cfg := r.cfg
	if cfg.EventName == "" {
		return event.Wake{}, nil, errNoEventName
	}
	if cfg.EventPath == "" && r.Getenv("GITHUB_ACTIONS") == "true" {
		return event.Wake{}, nil, errNoEventPath
	}
	if _, err := config.Loop(cfg); err != nil {
		return event.Wake{}, nil, err
	}
	payload, err := readPayload(cfg.EventPath)
	if err != nil {
		return event.Wake{}, nil, err
	}
	base, err := config.BuildRegistry(cfg, config.Repo{})
	if err != nil {
		return event.Wake{}, nil, err
	}
	// A name no built-in engine has can only be defined by the config file:
	// it is checked once that is read.
	r.notBuiltin = nil
	for _, n := range cfg.Engines {
		if _, ok := base.Lookup(strings.TrimSpace(n)); !ok && strings.TrimSpace(n) != "" {
			r.notBuiltin = append(r.notBuiltin, strings.TrimSpace(n))
		}
	}
	r.registry = base
	ec := r.eventConfig()
	ec.WatchAll = true
	r.registry = nil
	w, err := event.Parse(cfg.EventName, payload, ec)
	return w, payload, err
}

// eventConfig tells the event parser which signals wake the loop: the
// check runs and apps of every known engine.
func (r *runner) eventConfig() event.Config {
	ec := event.Config{
		TriggerPhrase:       r.cfg.TriggerPhrase,
		AllowedAssociations: r.cfg.AllowedAssociations,
		SelfWorkflow:        r.Getenv("GITHUB_WORKFLOW"),
	}
	if r.cfg.PR > 0 {
		ec.PR = fmt.Sprint(r.cfg.PR)
	}
	for _, n := range r.registry.Names() {
		e, _ := r.registry.Lookup(n)
		c := e.Capabilities()
		if c.CheckRunName != "" {
			ec.WatchedCheckRuns = append(ec.WatchedCheckRuns, c.CheckRunName)
		}
		if c.CheckRunApp != "" && c.CheckRunApp != "github-actions" {
			ec.WatchedApps = append(ec.WatchedApps, c.CheckRunApp)
		}
	}
	ec.WatchedWorkflows = append(ec.WatchedWorkflows, "Claude Code Review", "Claude Code", "claude-code-review")
	return ec
}

// sweepBudget bounds how many PRs a scheduled sweep visits in one run.
const sweepBudget = 10

// prsOf returns the PRs a wake concerns, looking them up when the payload
// did not list them.
func (r *runner) prsOf(ctx context.Context, w event.Wake) ([]int, error) {
	switch {
	case w.Kind == event.KindSweep:
		// Only the live loops, found by their label: the sweep's cost is
		// flat in the number of open PRs.
		prs, _, err := observe.LivePRs(ctx, r.gh, w.Owner, w.Repo)
		if err != nil {
			return nil, err
		}
		return r.inlineCap(prs), nil
	case len(w.PRs) > 0:
		return w.PRs, nil
	case w.NeedsLookup():
		prs, err := r.gh.PullRequestsForCommit(ctx, w.Owner, w.Repo, w.HeadSHA)
		if err != nil {
			return nil, fmt.Errorf("finding the pull requests of %s: %w", w.HeadSHA, err)
		}
		return prs, nil
	case r.cfg.PR > 0:
		return []int{r.cfg.PR}, nil
	}
	return nil, errors.New("no pull request: this event names none; set the `pr` input (IN1)")
}
