// Package scenario runs whole loops: a scripted scenario's simulated
// engines on the fake GitHub, and `review-loop cycle` run for every event
// GitHub would deliver (including the re-dispatches the action asks for),
// until the loop hands back or the scenario's step cap is hit. The demo
// and the scenario suite both run on it.
//
// The scenarios' test command. Each fix cycle runs the scenario's
// test-command as a real child process, and a fix it fails is reverted
// (E1). Most scenarios run `gofmt -e -l {packages}`: it exits 2 when a fix
// leaves a file of the changed packages that does not parse, which is the
// one way their scripted fixes could break the package
// (e1-fix-that-does-not-parse-is-reverted shows the revert), and it costs
// about 2.5 ms of CPU where `go build {packages}` costs about 57 ms (the
// go command loads and hashes the standard library's packages on every
// run, even with a warm cache). A scenario whose point needs more keeps
// it: the four whose fixes must fail or pass a Go test (E1, W2, CV4,
// MG1) run `go test {packages}`, and a scenario whose fix must fail to
// compile would run `go build {packages}`. gofmt is the toolchain's own,
// from the directory of the go command that runs the tests (go test puts
// GOROOT/bin first on PATH; TestMain makes sure of it when the test
// binary runs by itself).
package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/sim"
	"github.com/review-loop/review-loop/internal/state"
)

// Options configure a run.
type Options struct {
	// Self is the argv prefix that runs this program's helper mode (see
	// Helper): the scripted fixer and judge commands run through it as
	// real child processes.
	Self []string
	// Progress, when set, receives each cycle's per-engine status lines.
	Progress io.Writer
	// Log receives the action's diagnostics; nil discards them.
	Log *slog.Logger
	// Why adds the rule behind each cycle's decision to the progress.
	Why bool
	// Plan adds each cycle's effects, in order with their rules, to the
	// progress.
	Plan bool
	// OnAdvance, when set, is called each time virtual time moves, with the
	// world (benchmarks use it to run a polling baseline beside the loop).
	OnAdvance func(w *sim.World)
}

// Result is what a run observed.
type Result struct {
	Outcome  sim.Outcome
	Problems []string // mismatches with the scenario's expectation
	Cycles   int
	// Requests counts the action's API requests (reads and writes).
	Requests github.Counts
	// JobMinutes are the Actions minutes of all Cycles, each cycle's
	// simulated wall time rounded up to a minute (loop.JobMinutes), the
	// cycles that wrote nothing included.
	JobMinutes int
	// Unwritten counts the requests of the cycles that did not write the
	// status comment (an idle wake, a wake that concerns no loop): no
	// ledger can hold them.
	Unwritten github.Counts
	// Idle counts those cycles: the wakes that wrote nothing (C2).
	Idle int
	// FinalState is the loop's state at the end.
	FinalState state.State
	// Report is the final status comment.
	Report string
	// Plan is the last cycle's plan; LastCommit the PR head at the end.
	Plan       loop.Plan
	LastCommit string
	// Triggers counts, per engine and head SHA, how often it was asked to review.
	Triggers map[string]map[string]int
	// CycleErrors are the errors cycles returned (a crash the scenario
	// scripted is not one).
	CycleErrors []string
}

// Run plays sc to its end and checks the outcome.
func Run(ctx context.Context, sc sim.Scenario, opts Options) (Result, error) {
	w, err := sim.NewWorld(sc)
	if err != nil {
		return Result{}, fmt.Errorf("setting up %s: %w", sc.Name, err)
	}
	defer w.Close()
	r := &run{w: w, sc: sc, opts: opts}
	if err := r.setup(); err != nil {
		return Result{}, err
	}
	defer r.cleanup()
	return r.play(ctx)
}

type run struct {
	// statusAfter is the status comment as each cycle left it, by cycle
	// number, for the cycles expect.status_after_cycle names.
	statusAfter map[int]string
	w           *sim.World
	sc          sim.Scenario
	opts        Options
	dir         string
	workspace   string
	fixerSrv    *httptest.Server
	// agentDir holds the simulated agent CLIs (claude, codex) put first on
	// the fixer's PATH; judgeSrv is the local Messages API the built-in
	// judge talks to when anthropic-api-key is set.
	agentDir string
	judgeSrv *httptest.Server
	counts   github.Counts
	// unwritten are the requests of cycles that left the status comment
	// as it was.
	unwritten github.Counts
	// idle counts the cycles that left the status comment as it was.
	idle int
	// minutes are the Actions minutes of every cycle (loop.JobMinutes of
	// its simulated wall time).
	minutes int
	// checkouts counts the cycles that cloned the PR themselves (no
	// checkout step).
	checkouts int
	seenDisp  int
	lastPlan  loop.Plan
	cycles    int
	idleTicks int
	// errs, log, outputs and summary are what the cycles reported: the
	// errors they ended with, their workflow commands, and the last
	// cycle's outputs and job summary (H9).
	errs    []string
	log     strings.Builder
	outputs map[string]string
	summary string
	// gates is the merge gate on the head after each cycle.
	gates []string
	// watching is set when the loop runs through watch (watch.go).
	watching bool
	// decoded holds the state each status comment body seen so far
	// decodes to: the runner reads the comment several times a cycle and
	// it changes at most once, while decoding it (gunzip, JSON) was a
	// twentieth of this program's CPU.
	decoded map[string]decodedState
}

// decodedState is what state.Decode returned for a comment body.
type decodedState struct {
	st    state.State
	found bool
	err   error
}

// readOutputs parses a GITHUB_OUTPUT file as the runner does: name=value
// lines and name<<DELIM heredocs.
func readOutputs(path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(lines[i], "="); ok {
			out[name] = val
		}
	}
	return out
}

func (r *run) setup() error {
	dir, err := os.MkdirTemp("", "review-loop-scenario-*")
	if err != nil {
		return err
	}
	r.dir = dir
	r.workspace = filepath.Join(dir, "workspace")
	snap := r.w.Fake.PR(r.w.Owner, r.w.Repo, r.w.Number)
	if r.sc.Checkout == "none" {
		// No checkout step: an empty workspace, and review-loop clones
		// from the fake's smart HTTP when a cycle needs the tree.
		if err := os.Mkdir(r.workspace, 0o755); err != nil {
			return err
		}
	} else {
		out, err := exec.Command("git", "clone", "--quiet", "--branch", snap.HeadRef, r.w.Fake.CloneURL(r.w.Owner, r.w.Repo), r.workspace).CombinedOutput()
		if err != nil {
			return fmt.Errorf("cloning the scenario repository: %v: %s", err, out)
		}
	}
	// The scripted fixer needs the World (it knows each finding's fix):
	// the helper child process calls back over loopback.
	r.fixerSrv = httptest.NewServer(http.HandlerFunc(r.serveFix))
	return r.setupAgents()
}

func (r *run) cleanup() {
	if r.fixerSrv != nil {
		r.fixerSrv.Close()
	}
	if r.judgeSrv != nil {
		r.judgeSrv.Close()
	}
	_ = os.RemoveAll(r.dir)
}

func (r *run) serveFix(w http.ResponseWriter, req *http.Request) {
	var in struct{ Input, Dir string }
	if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	reply, err := r.w.Fix(in.Input, in.Dir)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_ = json.NewEncoder(w).Encode(reply)
}

// inputs are the action inputs for this scenario, with the scripted
// fixer and judge wired to this program's helper mode.
func (r *run) inputs() map[string]string {
	in := map[string]string{"github-token": r.w.Tokens.Action}
	for k, v := range r.sc.Inputs {
		in[k] = v
	}
	if r.w.Tokens.Trigger != "" {
		in["trigger-token"] = r.w.Tokens.Trigger
	}
	if r.w.Tokens.Push != "" {
		in["push-token"] = r.w.Tokens.Push
	}
	self := strings.Join(quoteAll(r.opts.Self), " ")
	if v := in["fixer-command"]; v == "sim-fixer" {
		in["fixer-command"] = self + " " + helperFixer + " " + r.fixerSrv.URL
		if in["fixer"] == "" {
			in["fixer"] = "command"
		}
	}
	if mode, ok := strings.CutPrefix(in["judge-command"], "sim-judge"); ok {
		in["judge-command"] = self + " " + helperJudge + " " + strings.TrimSpace(mode)
	}
	return in
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

// play delivers events cycle after cycle until the loop hands back.
func (r *run) play(ctx context.Context) (Result, error) {
	// A maintainer starts the loop by dispatching the workflow.
	queue := []sim.Event{r.dispatchEvent("maintainer")}
	if r.sc.FirstWake == "none" {
		queue = nil
	}
	if err := r.w.ApplyEvents(0); err != nil {
		return Result{}, err
	}
	for r.cycles < r.sc.MaxSteps {
		if len(queue) == 0 {
			queue = r.wait()
			if len(queue) == 0 {
				break
			}
		}
		ev := queue[0]
		queue = queue[1:]
		res, err := r.cycle(ctx, ev)
		if err != nil && !errors.Is(err, action.ErrCrashed) {
			r.progress("cycle %d (%s): error: %v\n", r.cycles, ev.Name, err)
		}
		if len(res.PRs) > 0 {
			r.lastPlan = res.PRs[0].Plan
		}
		if err := r.w.ApplyEvents(r.cycles); err != nil {
			return Result{}, err
		}
		r.w.ReactToRequests()
		queue = append(queue, r.newDispatches()...)
		queue = append(queue, r.w.Drain()...)
		// A finished loop ignores further engine events; stop once no
		// scripted maintainer action is still to come.
		if st, ok := r.state(); ok && st.Status != state.StatusActive && st.Status != "" && !r.scriptedAfter(r.cycles) {
			break
		}
	}
	return r.result(), nil
}

// advance moves virtual time one tick.
func (r *run) advance() {
	r.w.Advance(time.Duration(r.sc.Tick))
	if r.opts.OnAdvance != nil {
		r.opts.OnAdvance(r.w)
	}
}

// scriptedAfter reports whether a scripted event is due after cycle n or later.
func (r *run) scriptedAfter(n int) bool {
	for _, ev := range r.sc.Events {
		if ev.AfterCycle >= n {
			return true
		}
	}
	return false
}

// wait advances virtual time until an engine raises an event; when nothing
// happens for a while, the scheduled sweep wakes the loop (the backstop).
func (r *run) wait() []sim.Event {
	if st, ok := r.state(); ok && st.Status != state.StatusActive {
		return nil
	}
	for i := 0; i < 30; i++ {
		r.advance()
		if evs := r.w.Drain(); len(evs) > 0 {
			r.idleTicks = 0
			return evs
		}
	}
	r.idleTicks++
	if r.idleTicks > 3*r.sc.MaxSteps {
		return nil
	}
	return []sim.Event{{Name: "schedule", Payload: []byte(`{"schedule":"*/30 * * * *"}`)}}
}

// dispatchEvent is a workflow_dispatch for the scenario's PR sent by
// sender: a maintainer starting the loop, or review-loop's own identity
// re-dispatching it (which never starts a loop).
func (r *run) dispatchEvent(sender string) sim.Event {
	typ := "User"
	if strings.HasSuffix(sender, "[bot]") {
		typ = "Bot"
	}
	p := map[string]any{
		"inputs":     map[string]any{"pr": fmt.Sprint(r.w.Number)},
		"ref":        "refs/heads/main",
		"repository": map[string]any{"name": r.w.Repo, "full_name": r.w.Owner + "/" + r.w.Repo, "owner": map[string]any{"login": r.w.Owner}},
		"sender":     map[string]any{"login": sender, "type": typ},
		"workflow":   ".github/workflows/review-loop.yml",
	}
	b, _ := json.Marshal(p)
	return sim.Event{Name: "workflow_dispatch", Payload: b}
}

// newDispatches turns the action's re-dispatches into workflow_dispatch
// events, as GitHub would.
func (r *run) newDispatches() []sim.Event {
	ds := r.w.Fake.Dispatches()
	out := make([]sim.Event, 0, len(ds)-r.seenDisp)
	for ; r.seenDisp < len(ds); r.seenDisp++ {
		// Only the loop's own workflow runs the loop; a dispatch of the
		// repository's CI (ci-workflows) starts no cycle.
		if ds[r.seenDisp].Workflow != "review-loop.yml" {
			continue
		}
		by := ds[r.seenDisp].By
		if by == sim.ActionsLogin {
			by += "[bot]"
		}
		out = append(out, r.dispatchEvent(by))
	}
	return out
}

// cycle runs `review-loop cycle` in-process for one event.
func (r *run) cycle(ctx context.Context, ev sim.Event) (action.Result, error) {
	r.cycles++
	path := filepath.Join(r.dir, fmt.Sprintf("event-%d.json", r.cycles))
	if err := os.WriteFile(path, ev.Payload, 0o600); err != nil {
		return action.Result{}, err
	}
	env := map[string]string{
		"GITHUB_EVENT_NAME":   ev.Name,
		"GITHUB_EVENT_PATH":   path,
		"GITHUB_REPOSITORY":   r.w.Owner + "/" + r.w.Repo,
		"GITHUB_API_URL":      r.w.Fake.URL(),
		"GITHUB_GRAPHQL_URL":  r.w.Fake.GraphQLURL(),
		"GITHUB_SERVER_URL":   r.serverURL(),
		"GITHUB_WORKSPACE":    r.workspace,
		"GITHUB_RUN_ID":       fmt.Sprint(1000 + r.cycles),
		"GITHUB_WORKFLOW":     "review-loop",
		"GITHUB_WORKFLOW_REF": r.w.Owner + "/" + r.w.Repo + "/.github/workflows/review-loop.yml@refs/heads/main",
		"RUNNER_TEMP":         r.dir,
		"GITHUB_OUTPUT":       filepath.Join(r.dir, fmt.Sprintf("output-%d", r.cycles)),
		"GITHUB_STEP_SUMMARY": filepath.Join(r.dir, fmt.Sprintf("summary-%d", r.cycles)),
	}
	for k, v := range r.inputs() {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(getenv)
	if err != nil {
		return action.Result{}, err
	}
	log := r.opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var out strings.Builder
	kill := r.w.KillArmed()
	deps := action.Deps{
		Config: cfg, Getenv: getenv, Out: &out, Log: log,
		Now: r.w.Now,
		Sleep: func(_ context.Context, d time.Duration) error {
			r.w.Advance(d)
			return nil
		},
		ClientOptions: github.Options{RetryBackoff: time.Millisecond, MaxRateLimitWait: 2 * time.Second, Timeout: 20 * time.Second},
		ChildPath:     r.agentDir,
	}
	if r.judgeSrv != nil {
		deps.AnthropicBaseURL = r.judgeSrv.URL
	}
	if kill {
		deps.CrashAfterPush = r.w.TakeKill
	}
	// The wake is a run of the loop's own workflow, as GitHub lists it
	// (C5: the ledger reads back the runs that wrote nothing), titled by
	// the run-name the example workflows give it.
	runID, err := r.w.Fake.SetWorkflowRun(r.w.Owner, r.w.Repo, ghfake.WorkflowRunOptions{NewID: int64(1000 + r.cycles), Name: "review-loop",
		DisplayTitle: loop.RunTitle(r.w.Number), Path: ".github/workflows/review-loop.yml", Event: ev.Name, Status: "in_progress",
		HeadSHA: r.w.Fake.BranchSHA(r.w.Owner, r.w.Repo, ""), HeadBranch: r.sc.Repository.DefaultBranch})
	if err != nil {
		return action.Result{}, err
	}
	before := requestCounts(r.w.Fake.Requests())
	_, bodyBefore, _ := r.statusComment()
	started := r.w.Now()
	res, err := action.Run(ctx, deps)
	if _, serr := r.w.Fake.SetWorkflowRun(r.w.Owner, r.w.Repo, ghfake.WorkflowRunOptions{ID: runID, Status: "completed", Conclusion: "success"}); serr != nil {
		return action.Result{}, serr
	}
	r.minutes += loop.JobMinutes(r.w.Now().Sub(started))
	if err != nil && !errors.Is(err, action.ErrCrashed) {
		r.errs = append(r.errs, fmt.Sprintf("cycle %d: %v", r.cycles, err))
	}
	r.log.WriteString(out.String())
	r.outputs = readOutputs(env["GITHUB_OUTPUT"])
	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	r.summary = string(summary)
	after := requestCounts(r.w.Fake.Requests())
	r.counts.Reads += after.Reads - before.Reads
	r.counts.Writes += after.Writes - before.Writes
	r.counts.Total += after.Total - before.Total
	_, bodyAfter, _ := r.statusComment()
	if _, ok := r.sc.Expect.StatusAfterCycle[r.cycles]; ok {
		if r.statusAfter == nil {
			r.statusAfter = map[int]string{}
		}
		r.statusAfter[r.cycles] = bodyAfter
	}
	if bodyAfter == bodyBefore {
		r.idle++
		r.unwritten.Reads += after.Reads - before.Reads
		r.unwritten.Writes += after.Writes - before.Writes
		r.unwritten.Total += after.Total - before.Total
	}
	_, gate := sim.GateOf(r.w.Fake.PR(r.w.Owner, r.w.Repo, r.w.Number))
	r.gates = append(r.gates, gate)
	// Each cycle is a tick of the engines' time at least.
	r.advance()
	for _, p := range res.PRs {
		if p.CheckedOut {
			r.checkouts++
		}
	}
	if len(res.PRs) > 0 {
		pr := res.PRs[0]
		r.progress("── cycle %d · %s → %s", r.cycles, ev.Name, pr.Plan.Action)
		if pr.CheckedOut {
			r.progress(" · cloned the PR head (one commit)")
		}
		if pr.Plan.EndReason != "" {
			r.progress(" (%s)", pr.Plan.EndReason)
		}
		if pr.Skipped != "" {
			r.progress(" · %s", pr.Skipped)
		}
		r.progress("\n")
		if r.opts.Why && pr.Plan.Why != "" {
			r.progress("   why: %s\n", report.WhySentence(pr.Plan.Why))
		}
		for _, e := range pr.Plan.Engines {
			r.progress("   %-10s review %s%s\n", e.Engine, e.State, verdictNote(e))
			r.progress("   %-10s %d active finding(s)%s\n", "", len(e.Active), r.findingsNote(e))
		}
		if r.opts.Plan {
			for i, e := range pr.Effects {
				r.progress("   %2d. %s\n", i+1, e)
			}
		}
		r.fixNote(pr)
	} else {
		r.progress("── cycle %d · %s → nothing to do\n", r.cycles, ev.Name)
	}
	return res, err
}

func verdictNote(e loop.EngineReport) string {
	s := ""
	if e.Verdict != "" {
		s += " · " + string(e.Verdict)
	}
	if e.Note != "" {
		s += " · " + e.Note
	}
	return s
}

func (r *run) progress(format string, args ...any) {
	if r.opts.Progress != nil {
		fmt.Fprintf(r.opts.Progress, format, args...)
	}
}

// requestCounts counts the fake's logged requests made by the action.
func requestCounts(reqs []ghfake.Request) github.Counts {
	var c github.Counts
	for _, q := range reqs {
		if q.Login != sim.ActionsLogin && q.Login != sim.TriggerLogin {
			continue
		}
		c.Total++
		if q.Method == http.MethodGet || q.Operation == "query" {
			c.Reads++
		} else {
			c.Writes++
		}
	}
	return c
}

// state reads the loop's state from the status comment.
func (r *run) state() (state.State, bool) {
	st, _, ok := r.statusComment()
	return st, ok
}

func (r *run) statusComment() (state.State, string, bool) {
	snap := r.w.Fake.PR(r.w.Owner, r.w.Repo, r.w.Number)
	for _, c := range snap.Comments {
		// The Action writes as its bot; watch as the user (LW1).
		if a := strings.TrimSuffix(c.Author, "[bot]"); !strings.EqualFold(a, sim.ActionsLogin) && !(r.watching && strings.EqualFold(a, sim.TriggerLogin)) {
			continue
		}
		if d := r.decode(c.Body); d.found && d.err == nil {
			return d.st, c.Body, true
		}
	}
	return state.State{}, "", false
}

// decode is state.Decode of body, once per distinct body.
func (r *run) decode(body string) decodedState {
	if d, ok := r.decoded[body]; ok {
		return d
	}
	var d decodedState
	d.st, d.found, d.err = state.Decode(body)
	if r.decoded == nil {
		r.decoded = map[string]decodedState{}
	}
	r.decoded[body] = d
	return d
}

func (r *run) result() Result {
	st, body, _ := r.statusComment()
	o := sim.Outcome{EndReason: st.EndReason, Verdicts: map[string]string{}, Report: body, Steps: r.cycles,
		Errors: r.errs, Log: r.log.String(), Outputs: r.outputs, Summary: r.summary, Writes: int(r.counts.Writes), Gates: r.gates, Checkouts: r.checkouts}
	for _, e := range r.lastPlan.Engines {
		o.Verdicts[e.Engine] = string(e.Verdict)
	}
	problems := append(r.w.Check(o), checkCycleErrors(r.errs, r.sc.Expect.CycleErrors)...)
	for _, n := range slices.Sorted(maps.Keys(r.sc.Expect.StatusAfterCycle)) {
		for _, want := range r.sc.Expect.StatusAfterCycle[n] {
			if body, ok := r.statusAfter[n]; !ok {
				problems = append(problems, fmt.Sprintf("no cycle %d ran: the status comment after it cannot hold %q", n, want))
			} else if !strings.Contains(body, want) {
				problems = append(problems, fmt.Sprintf("the status comment after cycle %d lacks %q", n, want))
			}
		}
	}
	return Result{Outcome: o, Problems: problems, CycleErrors: r.errs, Cycles: r.cycles, JobMinutes: r.minutes, Requests: r.counts, Unwritten: r.unwritten, Idle: r.idle, FinalState: st, Report: body,
		Plan: r.lastPlan, LastCommit: r.w.Fake.HeadSHA(r.w.Owner, r.w.Repo, r.w.Number), Triggers: r.w.Triggers()}
}

// checkCycleErrors reports each cycle error no expected substring matches,
// and each expected substring no cycle error matched.
func checkCycleErrors(errs, expected []string) []string {
	var problems []string
	matched := make([]bool, len(expected))
	for _, e := range errs {
		ok := false
		for i, x := range expected {
			if strings.Contains(e, x) {
				matched[i], ok = true, true
			}
		}
		if !ok {
			problems = append(problems, "unexpected cycle error: "+e)
		}
	}
	for i, x := range expected {
		if !matched[i] {
			problems = append(problems, fmt.Sprintf("expected a cycle error containing %q, got none", x))
		}
	}
	return problems
}

// serverURL is GITHUB_SERVER_URL: the fake itself when review-loop clones
// the PR (no checkout step), github.com otherwise (links only).
func (r *run) serverURL() string {
	if r.sc.Checkout == "none" {
		return r.w.Fake.URL()
	}
	return "https://github.com"
}
