// Package watch is `review-loop watch`, the loop's second driver: the
// same cycle as the Action (internal/action: observe, decide, plan,
// execute, save) on a real pull request from a terminal. What differs is
// only how a wake happens (a poll of conditional requests instead of an
// Actions event), where credentials come from (the user's token and
// clone), and how progress is shown (a live status instead of a job
// summary). It decides nothing itself: the pace is loop.WatchPace, every
// effect is the Action's executor's.
package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// Options are a watch's inputs, read once by the command line.
type Options struct {
	Owner, Repo string
	Number      int
	// Token is the user's token (Token); it is sent to GitHub's API and,
	// on a pipe, to the push's git, never to a child's environment or
	// arguments.
	Token string
	// APIURL, GraphQLURL and ServerURL are the GitHub server's.
	APIURL, GraphQLURL, ServerURL string
	// Getenv reads the environment: the action's inputs as INPUT_<NAME>
	// variables, as `plan` reads them. Environ is the environment the
	// user's git runs with (through procenv's allow-list).
	Getenv  func(string) string
	Environ []string
	// RepoDir is where to find the user's clone ("" for the current
	// directory).
	RepoDir string
	// Trust lets repository commands (fixer, tests, setup, judge) run on
	// a PR from a fork or by an author without write permission.
	Trust bool
	// Once runs one cycle; DryRun one cycle that writes nothing and
	// prints the plan; JSON streams events instead of the live status.
	Once, DryRun, JSON bool
	// Out is where the status or the events go; TTY redraws in place.
	Out io.Writer
	TTY bool
	Log *slog.Logger
	// Now and Sleep are the clock (a fake one in tests and the demo).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// HTTPClient, ClientOptions, ChildPath and AnthropicBaseURL are
	// passed to the cycle (action.Deps).
	HTTPClient       *http.Client
	ClientOptions    github.Options
	ChildPath        string
	AnthropicBaseURL string
	// OnEffect, when set, is told of each effect as it starts, and
	// AfterCycle after each cycle (the demo's world and tests).
	OnEffect   func(e loop.Effect)
	AfterCycle func(n int)
	// MaxCycles bounds the cycles of one watch (0: no bound but the
	// loop's own).
	MaxCycles int
}

// Result is what a watch did.
type Result struct {
	Cycles int
	// Polls counts the polls; Counted the poll answers GitHub counts
	// against the rate limit, NotModified the 304s it does not.
	Polls, Counted, NotModified int
	// Last is the last cycle's result.
	Last action.PRResult
	// Interrupted is set when Ctrl-C ended the watch; Kept says what the
	// worktree still holds that GitHub does not ("" when nothing).
	Interrupted bool
	Kept        string
}

// ErrRefused is a PR watch will not run repository commands on without
// --trust.
var ErrRefused = errors.New("refused")

// watcher is one watch in progress.
type watcher struct {
	o      Options
	p      *poller
	tree   *worktree
	tmp    string
	status *status
	res    Result
	// lastCycle is when the last cycle ran; unchanged counts the polls in
	// a row that saw nothing new.
	lastCycle time.Time
	unchanged int
	pushed    string
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = action.Sleep
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
}

// Run watches the PR until its loop ends, Ctrl-C (ctx) or, with Once or
// DryRun, one cycle. A cycle that has started always finishes, so the
// state comment and the PR agree when watch stops: Ctrl-C is honoured
// between cycles, never between a commit and its push.
func Run(ctx context.Context, o Options) (Result, error) {
	o.defaults()
	w := &watcher{o: o, status: newStatus(o)}
	w.p = &poller{http: o.HTTPClient, api: o.APIURL, token: o.Token, owner: o.Owner, repo: o.Repo, number: o.Number}
	defer w.status.close()
	var err error
	if w.tmp, err = os.MkdirTemp("", "review-loop-watch-"); err != nil {
		return w.res, err
	}
	defer func() {
		w.res.Kept = w.tree.remove(context.WithoutCancel(ctx), w.pushed)
		if w.res.Kept != "" {
			w.status.note(w.res.Kept)
		}
		_ = os.RemoveAll(w.tmp)
	}()
	w.status.event(state.Event{Time: o.Now(), Name: "watch-start", Detail: fmt.Sprintf("%s/%s#%d", o.Owner, o.Repo, o.Number)})
	if _, err := w.poll(ctx); err != nil {
		return w.res, err
	}
	if err := w.admit(ctx); err != nil {
		return w.res, err
	}
	if !o.DryRun {
		if w.tree, err = addWorktree(ctx, o.Environ, cmpOr(o.RepoDir, "."), o.Owner, o.Repo, o.Number, w.p.head, w.tmp); err != nil {
			return w.res, err
		}
	}
	for {
		if err := w.cycle(ctx); err != nil || o.Once || o.DryRun {
			return w.res, err
		}
		if ctx.Err() != nil {
			return w.interrupted()
		}
		if loop.WatchEnded(w.res.Last.State) {
			w.status.event(state.Event{Time: o.Now(), Name: "watch-end", Reason: w.res.Last.State.EndReason, Detail: "the loop handed back; only a command restarts it"})
			return w.res, nil
		}
		if o.MaxCycles > 0 && w.res.Cycles >= o.MaxCycles {
			return w.res, fmt.Errorf("watch stopped after %d cycles, its bound", o.MaxCycles)
		}
		if err := w.waitForChange(ctx); err != nil {
			if ctx.Err() != nil {
				return w.interrupted()
			}
			return w.res, err
		}
	}
}

// interrupted ends a watch on Ctrl-C, between cycles.
func (w *watcher) interrupted() (Result, error) {
	w.res.Interrupted = true
	w.status.event(state.Event{Time: w.o.Now(), Name: "watch-interrupted",
		Detail: "stopped between cycles: the state comment holds the last cycle; the next watch or Action run goes on from it"})
	return w.res, context.Canceled
}

// waitForChange sleeps at the pace loop.WatchPace gives and polls, until
// a poll sees a change or a full cycle falls due (loop.WatchDue).
func (w *watcher) waitForChange(ctx context.Context) error {
	for {
		tick := w.tick()
		d := loop.WatchPace(tick)
		w.status.waiting(w.res.Last, d)
		if err := w.o.Sleep(ctx, d); err != nil {
			return err
		}
		changed, err := w.poll(ctx)
		if err != nil {
			// A failed poll is not a failed loop: the next one may pass.
			w.o.Log.Warn("poll failed", "err", err)
			w.status.note("poll failed: " + err.Error())
		}
		now := w.o.Now()
		if changed {
			w.unchanged = 0
			return nil
		}
		w.unchanged++
		if !now.Before(loop.WatchDue(w.tick())) {
			return nil
		}
	}
}

func (w *watcher) tick() loop.WatchTick {
	return loop.WatchTick{Now: w.o.Now(), LastCycle: w.lastCycle, Unchanged: w.unchanged, PollInterval: w.pollInterval(),
		Plan: w.res.Last.Plan, State: w.res.Last.State, MaxIdle: time.Duration(w.num("max-idle-minutes", 45)) * time.Minute}
}

// poll runs one conditional poll and records its cost; after says it
// follows a cycle, whose own writes it takes in.
func (w *watcher) poll(ctx context.Context, after ...bool) (bool, error) {
	c0, f0 := w.p.counted, w.p.free
	changed, err := w.p.poll(ctx)
	w.res.Polls++
	w.res.Counted += w.p.counted - c0
	w.res.NotModified += w.p.free - f0
	what := "unchanged"
	switch {
	case len(after) > 0:
		what = "after-cycle"
	case changed:
		what = "changed"
	}
	w.status.event(state.Event{Time: w.o.Now(), Name: "watch-poll", SHA: w.p.head.SHA, Reason: what,
		Detail: fmt.Sprintf("%d counted, %d not modified (304)", w.p.counted-c0, w.p.free-f0)})
	return changed, err
}

// admit refuses a PR whose code watch would run without --trust: a fork,
// or an author without write permission. A dry run runs no repository
// command that needs it (its judge and triage read files only).
func (w *watcher) admit(ctx context.Context) error {
	h := w.p.head
	if w.o.Trust || w.o.DryRun {
		return nil
	}
	if h.Fork {
		return fmt.Errorf("%w: %s/%s#%d comes from a fork: its code would run on this machine (fixer, tests, setup); pass --trust if you have read it, or --dry-run to see the plan", ErrRefused, w.o.Owner, w.o.Repo, w.o.Number)
	}
	gh, err := w.client()
	if err != nil {
		return err
	}
	if h.AuthorBot {
		return nil
	}
	p, err := gh.CollaboratorPermission(ctx, w.o.Owner, w.o.Repo, h.Author)
	if err != nil && !github.IsNotFound(err) {
		return err
	}
	if p.Permission != "admin" && p.Permission != "write" {
		return fmt.Errorf("%w: %s/%s#%d is by @%s, who may not write to the repository: its code would run on this machine (fixer, tests, setup); pass --trust if you have read it, or --dry-run to see the plan", ErrRefused, w.o.Owner, w.o.Repo, w.o.Number, h.Author)
	}
	return nil
}

func (w *watcher) client() (*github.Client, error) {
	o := w.o.ClientOptions
	o.Token, o.APIURL, o.GraphQLURL, o.HTTPClient, o.Logger = w.o.Token, w.o.APIURL, w.o.GraphQLURL, w.o.HTTPClient, w.o.Log
	return github.New(o)
}

// cycle runs one Action cycle for the PR, as a workflow_dispatch for it
// would (what `plan` assumes), in the worktree. It runs to its end
// whatever ctx says: Ctrl-C is honoured once the state is saved.
func (w *watcher) cycle(ctx context.Context) error {
	if err := w.syncTree(ctx); err != nil {
		return err
	}
	getenv, err := w.cycleEnv()
	if err != nil {
		return err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	cfg.Mode = config.ModeSingle
	cfg.DryRun = cfg.DryRun || w.o.DryRun
	w.res.Cycles++
	w.status.cycleStart(w.res.Cycles)
	var log strings.Builder
	deps := action.Deps{Config: cfg, Getenv: getenv, Out: &log, Log: w.o.Log, Now: w.o.Now, Sleep: w.o.Sleep,
		Driver: "watch", HTTPClient: w.o.HTTPClient, ClientOptions: w.o.ClientOptions, ChildPath: w.o.ChildPath, AnthropicBaseURL: w.o.AnthropicBaseURL,
		OnEffect: func(_ int, e loop.Effect) {
			w.status.effect(e, ctx.Err() != nil)
			if w.o.OnEffect != nil {
				w.o.OnEffect(e)
			}
		}}
	// The cycle finishes what it started: its context is not the one
	// Ctrl-C cancels.
	res, err := action.Run(context.WithoutCancel(ctx), deps)
	w.lastCycle = w.o.Now()
	w.unchanged = 0
	if len(res.PRs) > 0 {
		w.res.Last = res.PRs[0]
		if p := res.PRs[0].Pushed; p != "" {
			w.pushed = p
		}
	}
	w.status.cycleEnd(w.res.Last, err, ctx.Err() != nil)
	if w.o.AfterCycle != nil {
		w.o.AfterCycle(w.res.Cycles)
	}
	if err != nil {
		return err
	}
	if w.o.DryRun {
		w.status.dryRun(w.res.Last)
	}
	// The cycle's own writes (the status comment, a trigger) change
	// what the poll reads: take them in now, so the next poll sees only
	// what others did.
	if _, err := w.poll(ctx, true); err != nil {
		w.o.Log.Warn("poll failed", "err", err)
	}
	return nil
}

// syncTree moves the worktree to the PR head when the head moved by
// another push than the loop's own.
func (w *watcher) syncTree(ctx context.Context) error {
	if w.tree == nil || w.p.head.SHA == "" {
		return nil
	}
	cur, _ := gitIn(ctx, w.tree.env, w.tree.dir, "rev-parse", "HEAD")
	if cur == w.p.head.SHA {
		return nil
	}
	if _, err := gitIn(ctx, w.tree.env, w.tree.dir, "cat-file", "-e", w.p.head.SHA+"^{commit}"); err != nil {
		_, remote, ferr := findClone(ctx, w.tree.env, w.tree.top, w.o.Owner, w.o.Repo)
		if ferr != nil {
			return ferr
		}
		if _, err := gitIn(ctx, w.tree.env, w.tree.top, "fetch", "--quiet", "--no-tags", remote, headRef(w.p.head, w.o.Number)); err != nil {
			return fmt.Errorf("fetching the new PR head: %w", err)
		}
	}
	if _, err := gitIn(ctx, w.tree.env, w.tree.dir, "checkout", "--quiet", "--detach", w.p.head.SHA); err != nil {
		return fmt.Errorf("moving the worktree to the PR head %s: %w", short(w.p.head.SHA), err)
	}
	return nil
}

// cycleEnv is the environment of one cycle: a workflow_dispatch for the
// PR (as `plan` builds it), the user's INPUT_ variables, the worktree as
// the workspace; no in-job wait (watch's polls are the wait).
func (w *watcher) cycleEnv() (func(string) string, error) {
	dir := filepath.Join(w.tmp, fmt.Sprintf("cycle-%d", w.res.Cycles+1))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	payload, _ := json.Marshal(map[string]any{"inputs": map[string]any{"pr": strconv.Itoa(w.o.Number)}})
	eventPath := filepath.Join(dir, "event.json")
	if err := os.WriteFile(eventPath, payload, 0o600); err != nil {
		return nil, err
	}
	workspace := filepath.Join(dir, "workspace")
	if w.tree != nil {
		workspace = w.tree.dir
	} else if err := os.Mkdir(workspace, 0o700); err != nil {
		return nil, err
	}
	over := map[string]string{
		"INPUT_GITHUB-TOKEN": w.o.Token, "INPUT_PR": strconv.Itoa(w.o.Number), "INPUT_WAIT-SECONDS": "0",
		"GITHUB_REPOSITORY": w.o.Owner + "/" + w.o.Repo, "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_WORKSPACE": workspace, "RUNNER_TEMP": dir, "GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "",
		"GITHUB_OUTPUT": "", "GITHUB_STATE": "", "GITHUB_ENV": "", "GITHUB_PATH": "", "GITHUB_RUN_ID": "", "GITHUB_WORKFLOW_REF": "",
		"GITHUB_API_URL": w.o.APIURL, "GITHUB_GRAPHQL_URL": w.o.GraphQLURL, "GITHUB_SERVER_URL": w.o.ServerURL,
	}
	if w.o.DryRun {
		over["INPUT_DRY-RUN"] = "true"
	}
	// A push made with the user's token starts the repository's
	// workflows itself: CI1's dispatch is for GITHUB_TOKEN's pushes.
	over["INPUT_CI-WORKFLOWS"] = ""
	base := w.o.Getenv
	return func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		return base(k)
	}, nil
}

// num reads a numeric input as the cycle does.
func (w *watcher) num(name string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(w.o.Getenv("INPUT_" + strings.ToUpper(name)))); err == nil && n > 0 {
		return n
	}
	return def
}

func (w *watcher) pollInterval() time.Duration {
	return time.Duration(w.num("poll-interval", 30)) * time.Second
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
