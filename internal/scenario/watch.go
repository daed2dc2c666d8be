package scenario

import (
	"context"
	"errors"
	"fmt"
	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/state"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/sim"
	"github.com/review-loop/review-loop/internal/watch"
)

// This file plays a scenario through `review-loop watch` instead of the
// Action: the same world, engines and fixer, but the loop wakes by
// polling the fake GitHub with conditional requests on the world's
// virtual clock, runs in a worktree of a user's clone, and shows the
// terminal's live status. `review-loop demo --watch` and the LW1 tests
// run on it.

// Watch tokens: the user's token watch holds, and a different one the
// user's own git holds in the clone's credential helper (the user's own
// git credentials), both the maintainer's.
const (
	WatchToken   = "ghp_sim_watch_user"
	UserGitToken = "ghp_sim_user_git"
)

// WatchOptions configure a scenario played through watch.
type WatchOptions struct {
	Options
	// Out receives watch's status (or events); TTY redraws in place.
	Out  io.Writer
	TTY  bool
	JSON bool
	// Once, DryRun and Trust are watch's flags.
	Once, DryRun, Trust bool
	// Before runs once the world is set up, before watch starts (a test
	// changes the world); OnEffect is told of each effect.
	Before   func(w *sim.World, clone string)
	OnEffect func(e loopEffect)
	// Ctx, when set, is the context watch runs with (Ctrl-C in tests).
	Ctx context.Context
	// MaxCycles bounds the watch (default: the scenario's step cap).
	MaxCycles int
	// AfterCycle is called after each of watch's cycles.
	AfterCycle func(n int)
	// OnSleep is called after each sleep, with the world (cost tests).
	OnSleep func(w *sim.World)
	// Pace is real time spent per sleep, so that a terminal shows each
	// step of the virtual clock (the demo on a TTY); 0 spends none.
	Pace time.Duration
}

// WatchResult is what a watch run did.
type WatchResult struct {
	Watch watch.Result
	Err   error
	// Outcome and Problems are the scenario's check, as for Run.
	Outcome  sim.Outcome
	Problems []string
	// Counted are the requests of the watch's token that GitHub counts,
	// NotModified its 304s.
	Counted, NotModified int
	World                *sim.World
}

// RunWatch plays sc through the watch driver.
func RunWatch(ctx context.Context, sc sim.Scenario, opts WatchOptions) (WatchResult, error) {
	s, err := NewSession(sc, opts.Options)
	if err != nil {
		return WatchResult{}, err
	}
	defer s.Close()
	if opts.Before != nil {
		opts.Before(s.r.w, s.clone)
	}
	return s.Watch(ctx, opts)
}

// Session is one scenario world on which watch runs and Action cycles
// take turns: a loop handed from one driver to the other (LW1).
type Session struct {
	r     *run
	clone string
	world *sim.World
}

// NewSession sets sc's world up for watch: the user's token and clone,
// and the user's write permission (the user maintains the repository).
func NewSession(sc sim.Scenario, opts Options) (*Session, error) {
	// watch fixes in a worktree of the user's clone: no cycle clones
	// the PR, whatever the scenario expects of the Action.
	sc.Expect.Checkouts = nil
	w, err := sim.NewWorld(sc)
	if err != nil {
		return nil, fmt.Errorf("setting up %s: %w", sc.Name, err)
	}
	r := &run{w: w, sc: sc, opts: opts, watching: true}
	if err := r.setup(); err != nil {
		w.Close()
		return nil, err
	}
	s := &Session{r: r, world: w}
	r.w.Fake.AddToken(WatchToken, ghfake.Identity{Login: sim.TriggerLogin, Association: "MEMBER"})
	if err := r.w.Fake.SetPermission(r.w.Owner, r.w.Repo, sim.TriggerLogin, "write"); err != nil {
		s.Close()
		return nil, err
	}
	// watch pushes with the user's token: its pushes start workflows (the
	// Claude review workflow's among them), as a user's do.
	r.w.Tokens.Push = WatchToken
	if s.clone, err = UserClone(r.w, r.dir); err != nil {
		s.Close()
		return nil, err
	}
	if err := r.w.ApplyEvents(0); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// World is the session's world.
func (s *Session) World() *sim.World { return s.world }

// Close removes the session's files and stops its fake GitHub.
func (s *Session) Close() {
	s.r.cleanup()
	s.world.Close()
}

// ActionCycles runs up to n Action cycles, as GitHub would start them: a
// maintainer's workflow_dispatch first, then the engines' events and the
// action's own re-dispatches, the clock moving while nothing happens. It
// stops early when the loop hands back.
func (s *Session) ActionCycles(ctx context.Context, n int) ([]action.Result, error) {
	r := s.r
	r.w.Drain()
	queue := []sim.Event{r.dispatchEvent("maintainer")}
	r.seenDisp = len(r.w.Fake.Dispatches())
	var out []action.Result
	for i := 0; i < n; i++ {
		if len(queue) == 0 {
			if queue = r.wait(); len(queue) == 0 {
				break
			}
		}
		ev := queue[0]
		queue = queue[1:]
		res, err := r.cycle(ctx, ev)
		out = append(out, res)
		if err != nil {
			return out, err
		}
		if len(res.PRs) > 0 {
			r.lastPlan = res.PRs[0].Plan
		}
		r.w.ReactToRequests()
		queue = append(queue, r.newDispatches()...)
		queue = append(queue, r.w.Drain()...)
		if st, ok := r.state(); ok && st.Status != state.StatusActive && st.Status != "" {
			break
		}
	}
	return out, nil
}

// Watch runs the watch driver on the session's world.
func (s *Session) Watch(ctx context.Context, opts WatchOptions) (WatchResult, error) {
	r := s.r
	env := r.watchEnv()
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Ctx != nil {
		ctx = opts.Ctx
	}
	maxCycles := opts.MaxCycles
	if maxCycles == 0 {
		maxCycles = r.sc.MaxSteps
	}
	cycles0 := r.cycles
	wo := watch.Options{
		Owner: r.w.Owner, Repo: r.w.Repo, Number: r.w.Number, Token: WatchToken,
		APIURL: r.w.Fake.URL(), GraphQLURL: r.w.Fake.GraphQLURL(), ServerURL: r.w.Fake.URL(),
		Getenv: func(k string) string { return env[k] }, Environ: os.Environ(), RepoDir: s.clone,
		Trust: opts.Trust, Once: opts.Once, DryRun: opts.DryRun, JSON: opts.JSON, Out: opts.Out, TTY: opts.TTY, Log: log,
		Now: r.w.Now,
		// The engines work while watch sleeps: virtual time moves and
		// the bots react; their webhooks go nowhere (watch polls).
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if opts.Pace > 0 {
				time.Sleep(opts.Pace)
			}
			r.w.Advance(d)
			r.w.Drain()
			if opts.OnSleep != nil {
				opts.OnSleep(r.w)
			}
			return nil
		},
		ClientOptions: github.Options{RetryBackoff: time.Millisecond, MaxRateLimitWait: 2 * time.Second, Timeout: 20 * time.Second},
		ChildPath:     r.agentDir, MaxCycles: maxCycles,
		AfterCycle: func(n int) {
			r.cycles = cycles0 + n
			_ = r.w.ApplyEvents(r.cycles)
			r.w.ReactToRequests()
			if opts.AfterCycle != nil {
				opts.AfterCycle(n)
			}
		},
	}
	if opts.OnEffect != nil {
		wo.OnEffect = func(e loop.Effect) { opts.OnEffect(loopEffect{Kind: string(e.Kind), Text: e.String()}) }
	}
	if r.judgeSrv != nil {
		wo.AnthropicBaseURL = r.judgeSrv.URL
	}
	c0, n0 := r.w.Fake.Counted(sim.TriggerLogin)
	res, werr := watch.Run(ctx, wo)
	c1, n1 := r.w.Fake.Counted(sim.TriggerLogin)
	if res.Cycles > 0 {
		r.lastPlan = res.Last.Plan
	}
	out := WatchResult{Watch: res, Err: werr, Counted: c1 - c0, NotModified: n1 - n0, World: r.w}
	if werr != nil && !errors.Is(werr, context.Canceled) {
		r.errs = append(r.errs, werr.Error())
	}
	result := r.result()
	out.Outcome, out.Problems = result.Outcome, result.Problems
	return out, nil
}

// loopEffect is an effect's text and kind, for tests.
type loopEffect struct {
	Kind, Text string
}

// WatchEnv is the user's environment a scenario's watch runs with: the
// scenario's inputs as INPUT_ variables, without any token.
func (r *run) watchEnv() map[string]string {
	env := map[string]string{}
	for k, v := range r.inputs() {
		if strings.Contains(k, "token") {
			continue
		}
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	return env
}

// UserClone clones the scenario's repository as a user would, with the
// user's own git credential in the clone's config.
func UserClone(w *sim.World, dir string) (string, error) {
	w.Fake.AddToken(UserGitToken, ghfake.Identity{Login: sim.TriggerLogin, Association: "MEMBER"})
	clone := filepath.Join(dir, "user-clone")
	helper := "!f() { echo username=x-access-token; echo password=" + UserGitToken + "; }; f"
	cmd := exec.Command("git", "-c", "credential.helper="+helper, "clone", "--quiet", w.Fake.HTTPCloneURL(w.Owner, w.Repo), clone)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cloning as the user: %v: %s", err, out)
	}
	for _, kv := range [][2]string{{"credential.helper", helper}, {"user.name", "Loop Maintainer"}, {"user.email", "maintainer@example.com"}} {
		if out, err := exec.Command("git", "-C", clone, "config", kv[0], kv[1]).CombinedOutput(); err != nil {
			return "", fmt.Errorf("configuring the user's clone: %v: %s", err, out)
		}
	}
	return clone, nil
}
