package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/cli"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/sim"
	"github.com/review-loop/review-loop/internal/state"
)

// demoWorld is the built-in demo's scenario.
func demoWorld(t *testing.T) sim.Scenario {
	t.Helper()
	sc, err := sim.ParseScenario(demoScenario)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRule_LW1_WatchDrivesAWholeLoopToCleanOnTheFakeClock(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res, err := RunWatch(context.Background(), demoWorld(t), WatchOptions{Options: Options{Self: []string{self}}, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("watch output:\n%s", out.String())
	if res.Err != nil {
		t.Fatalf("watch: %v", res.Err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("outcome differs from the scenario's expectation:\n  %s", strings.Join(res.Problems, "\n  "))
	}
	if res.Watch.Last.State.EndReason != string(loop.EndClean) {
		t.Errorf("end reason = %q, want %s", res.Watch.Last.State.EndReason, loop.EndClean)
	}
	t.Logf("cycles %d, polls %d, counted requests %d, 304s %d", res.Watch.Cycles, res.Watch.Polls, res.Counted, res.NotModified)
}

// requestsAt is the fake's request log of one identity at a moment.
type requestsAt struct {
	at                           time.Time
	counted, notModified, writes int
}

func countAt(w *sim.World, login string) requestsAt {
	c, n := w.Fake.Counted(login)
	ws := 0
	for _, q := range w.Fake.Requests() {
		if strings.EqualFold(strings.TrimSuffix(q.Login, "[bot]"), login) && q.Method != "GET" && q.Operation != "query" && q.Path != "/graphql" {
			ws++
		}
		if strings.EqualFold(strings.TrimSuffix(q.Login, "[bot]"), login) && q.Operation == "mutation" {
			ws++
		}
	}
	return requestsAt{at: w.Now(), counted: c, notModified: n, writes: ws}
}

// idleScenario is B3's stuck Bugbot with the idle bound past two hours:
// the loop waits on a running engine and nothing changes.
func idleScenario(t *testing.T) sim.Scenario {
	t.Helper()
	sc, err := sim.LoadScenario("../../testdata/scenarios/b3-stuck-in-progress-hung-after-45-idle-minutes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Inputs["max-idle-minutes"] = "150"
	sc.Expect = sim.Expect{}
	return sc
}

// TestRule_LW1_AnIdlePollCostsNoCountedRequest: while the loop waits on a
// running engine and nothing changes, each poll is answered 304 Not
// Modified (free), and an idle hour costs only the backstop cycles'
// reads and no write (C2).
func TestRule_LW1_AnIdlePollCostsNoCountedRequest(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var marks []requestsAt
	var start time.Time
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := RunWatch(ctx, idleScenario(t), WatchOptions{Options: Options{Self: []string{self}}, Out: io.Discard, Ctx: ctx, MaxCycles: 100,
		OnSleep: func(w *sim.World) {
			if start.IsZero() {
				start = w.Now()
			}
			marks = append(marks, countAt(w, sim.TriggerLogin))
			if w.Now().Sub(start) > 80*time.Minute {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("watch ended with %v before the idle hour was over (cycles %d)", res.Err, res.Watch.Cycles)
	}
	// The idle hour: from ten minutes in (the loop triggered Bugbot and
	// waits on its run) to seventy.
	var from, to requestsAt
	for _, m := range marks {
		if from.at.IsZero() && m.at.Sub(start) >= 10*time.Minute {
			from = m
		}
		if m.at.Sub(start) <= 70*time.Minute {
			to = m
		}
	}
	if to.at.Sub(from.at) < 59*time.Minute {
		t.Fatalf("measured %s, want an hour", to.at.Sub(from.at))
	}
	counted, free, writes := to.counted-from.counted, to.notModified-from.notModified, to.writes-from.writes
	t.Logf("an idle hour of watching, an engine running: %d counted requests, %d answered 304 (free), %d writes", counted, free, writes)
	if free < 100 {
		t.Errorf("%d polls answered 304 in an idle hour; want the poll interval's (every 30 s, 2-3 resources)", free)
	}
	if writes != 0 {
		t.Errorf("an idle hour wrote %d times, want 0 (C2)", writes)
	}
	// The backstop: a full cycle every 15 minutes, each a few reads.
	if counted > 4*6 {
		t.Errorf("an idle hour cost %d counted requests, want at most the 4 backstop cycles' reads", counted)
	}
	// A poll of an unchanged PR: every answer a 304, nothing counted.
	free0 := 0
	for i := 1; i < len(marks); i++ {
		if marks[i].counted == marks[i-1].counted && marks[i].notModified > marks[i-1].notModified {
			free0++
		}
	}
	if free0 < 100 {
		t.Errorf("%d of %d polls cost no counted request, want nearly all", free0, len(marks)-1)
	}
}

// stateComments are the PR's comments that carry a loop state, with
// their authors.
func stateComments(w *sim.World) []string {
	var out []string
	for _, c := range w.Fake.PR(w.Owner, w.Repo, w.Number).Comments {
		if _, found, _ := state.Decode(c.Body); found {
			out = append(out, c.Author)
		}
	}
	return out
}

// TestRule_LW1_AWatchedLoopGoesOnInTheActionAndBack: watch starts the
// loop and stops once the engines are triggered; the Action's cycles
// take it over from the same status comment (and fix); watch takes it
// back and finishes it clean. One status comment all along.
func TestRule_LW1_AWatchedLoopGoesOnInTheActionAndBack(t *testing.T) {
	s := demoSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	first, err := s.Watch(ctx, WatchOptions{Out: io.Discard, Ctx: ctx, AfterCycle: func(n int) {
		if n == 2 {
			cancel() // Ctrl-C once the engines run
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Watch.Interrupted || first.Watch.Last.Plan.Action != loop.ActionWait {
		t.Fatalf("the first watch ended with %v after %s, want an interrupted wait", first.Err, first.Watch.Last.Plan.Action)
	}
	acts, err := s.ActionCycles(context.Background(), 8)
	if err != nil {
		t.Fatal(err)
	}
	fixed := false
	for i, a := range acts {
		if len(a.PRs) == 0 {
			continue
		}
		p := a.PRs[0]
		if p.LoopBefore == "" {
			t.Errorf("Action cycle %d found no loop: the watch's status comment was not adopted (%s)", i+1, p.Skipped)
		}
		if p.Pushed != "" {
			fixed = true
			break
		}
	}
	if !fixed {
		t.Fatalf("the Action did not carry the watched loop on to its fix in %d cycles", len(acts))
	}
	back, err := s.Watch(context.Background(), WatchOptions{Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if back.Err != nil {
		t.Fatalf("watch taking the loop back: %v", back.Err)
	}
	if got := back.Watch.Last.State.EndReason; got != string(loop.EndClean) {
		t.Errorf("end reason = %q, want %s", got, loop.EndClean)
	}
	if len(back.Problems) > 0 {
		t.Errorf("outcome differs from the scenario's expectation:\n  %s", strings.Join(back.Problems, "\n  "))
	}
	if cs := stateComments(s.World()); len(cs) != 1 {
		t.Errorf("state comments by %v, want one for the whole loop", cs)
	}
	if commits := back.Watch.Last.State.Commits; commits != 1 {
		t.Errorf("%d fix commits, want the one the Action made", commits)
	}
}

// TestRule_LW1_CtrlCBetweenEffectsFinishesTheCycleAndTheNextWatchGoesOn:
// Ctrl-C arrives as the fix's commit starts. The cycle carries out the
// rest of its plan (the commit, its push, the replies, the save), says
// so, and watch stops; the state comment matches the PR, nothing is left
// unpushed, and the next watch finishes the loop.
func TestRule_LW1_CtrlCBetweenEffectsFinishesTheCycleAndTheNextWatchGoesOn(t *testing.T) {
	s := demoSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	var after []string
	interrupted := false
	first, err := s.Watch(ctx, WatchOptions{Out: &out, Ctx: ctx, OnEffect: func(e loopEffect) {
		if interrupted {
			after = append(after, e.Kind)
		}
		if e.Kind == string(loop.EffectCommit) {
			cancel() // Ctrl-C between the fix and its commit
			interrupted = true
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !interrupted {
		t.Fatal("no commit effect: the scenario made no fix")
	}
	if !first.Watch.Interrupted || !errors.Is(first.Err, context.Canceled) {
		t.Fatalf("watch ended with %v, want Ctrl-C's cancellation", first.Err)
	}
	last := first.Watch.Last
	w := s.World()
	if head := w.Fake.HeadSHA(w.Owner, w.Repo, w.Number); last.Pushed == "" || head != last.Pushed {
		t.Errorf("pushed %q, PR head %q: the commit made at Ctrl-C was not pushed", last.Pushed, head)
	}
	if first.Watch.Kept != "" {
		t.Errorf("left behind: %s", first.Watch.Kept)
	}
	if !strings.Contains(out.String(), "Ctrl-C: interrupted during a fix: finishing its commit and its push") {
		t.Errorf("watch did not say it finishes the commit and its push:\n%s", out.String())
	}
	if len(after) == 0 || after[len(after)-1] != string(loop.EffectSave) {
		t.Errorf("effects after Ctrl-C: %v, want the rest of the plan through the save", after)
	}
	st, ok := s.r.state()
	if !ok {
		t.Fatal("the status comment holds no readable state")
	}
	if st.Commits != 1 || len(st.LastCycle) != len(last.Effects) {
		t.Errorf("the state records %d commits and %d effects, the cycle made 1 and carried out %d", st.Commits, len(st.LastCycle), len(last.Effects))
	}
	next, err := s.Watch(context.Background(), WatchOptions{Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if next.Err != nil || next.Watch.Last.State.EndReason != string(loop.EndClean) {
		t.Errorf("the next watch ended with %v, reason %q; want clean", next.Err, next.Watch.Last.State.EndReason)
	}
}

// TestRule_LW1_TheTokenNeverReachesAChildProcess: in watch mode the
// repository's commands (setup, targeted tests) and the agent fixer run
// with neither the user's token nor GH_TOKEN in their environment or
// arguments, though the user's shell holds it in GH_TOKEN.
func TestRule_LW1_TheTokenNeverReachesAChildProcess(t *testing.T) {
	t.Setenv("GH_TOKEN", WatchToken)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := t.TempDir()
	recorder := filepath.Join(rec, "record")
	script := "#!/bin/sh\n{ echo \"ARGS $0 $*\"; env; echo \"PARENT $(tr '\\0' ' ' < /proc/$PPID/cmdline 2>/dev/null)\"; } > " + rec + "/$$.txt\n"
	if err := os.WriteFile(recorder, []byte(script+"exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := demoWorld(t)
	sc.Inputs["setup-command"] = recorder + " setup"
	sc.Inputs["test-command"] = recorder + " test {packages}"
	s, err := NewSession(sc, Options{Self: []string{self}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The agent fixer records its own environment and arguments too.
	agent := filepath.Join(s.r.agentDir, "claude")
	orig, err := os.ReadFile(agent)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := strings.Replace(string(orig), "\nexec ", "\n{ echo \"ARGS $0 $*\"; env; } > "+rec+"/agent-$$.txt\nexec ", 1)
	if err := os.WriteFile(agent, []byte(wrapped), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := s.Watch(context.Background(), WatchOptions{Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || res.Watch.Last.State.Commits == 0 {
		t.Fatalf("watch: %v, %d commits; want a fix cycle", res.Err, res.Watch.Last.State.Commits)
	}
	files, _ := filepath.Glob(filepath.Join(rec, "*.txt"))
	kinds := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		switch {
		case strings.Contains(text, "ARGS "+recorder+" setup"):
			kinds["setup"] = true
		case strings.Contains(text, "ARGS "+recorder+" test"):
			kinds["test"] = true
		case strings.HasPrefix(filepath.Base(f), "agent-"):
			kinds["agent"] = true
		}
		if strings.Contains(text, WatchToken) {
			t.Errorf("%s holds the token:\n%s", filepath.Base(f), text)
		}
		for _, l := range strings.Split(text, "\n") {
			if k, _, ok := strings.Cut(l, "="); ok && (k == "GH_TOKEN" || k == "GITHUB_TOKEN" || strings.HasPrefix(k, "INPUT_")) {
				t.Errorf("%s has %s in its environment", filepath.Base(f), k)
			}
		}
	}
	for _, k := range []string{"setup", "test", "agent"} {
		if !kinds[k] {
			t.Errorf("no %s command ran (recorded: %v)", k, kinds)
		}
	}
}

// TestRule_LW1_AWholeWatchedLoopCostsAboutWhatTheActionsDoes plays the
// demo both ways and compares the requests GitHub counts: the Action's
// cycles (its token and the trigger token) against watch's (the user's
// token: its cycles and the polls that saw a change; the 304s are free).
func TestRule_LW1_AWholeWatchedLoopCostsAboutWhatTheActionsDoes(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var actionCounted int
	ar, err := Run(context.Background(), demoWorld(t), Options{Self: []string{self}, OnAdvance: func(w *sim.World) {
		a, _ := w.Fake.Counted(sim.ActionsLogin)
		b, _ := w.Fake.Counted(sim.TriggerLogin)
		actionCounted = a + b
	}})
	if err != nil || len(ar.Problems) > 0 {
		t.Fatalf("the Action's loop: %v %v", err, ar.Problems)
	}
	wr, err := RunWatch(context.Background(), demoWorld(t), WatchOptions{Options: Options{Self: []string{self}}, Out: io.Discard})
	if err != nil || wr.Err != nil || len(wr.Problems) > 0 {
		t.Fatalf("the watched loop: %v %v %v", err, wr.Err, wr.Problems)
	}
	t.Logf("whole demo loop: Action %d cycles, %d counted requests; watch %d cycles, %d polls, %d counted requests, %d answered 304",
		ar.Cycles, actionCounted, wr.Watch.Cycles, wr.Watch.Polls, wr.Counted, wr.NotModified)
	if wr.Counted > 2*actionCounted {
		t.Errorf("watch counted %d requests, more than twice the Action's %d", wr.Counted, actionCounted)
	}
}

// TestRule_LW1_AConcurrentRunIsSettledByTheClaim: another run (the
// Action) writes the status comment between watch's read and its claim
// before a fix. watch's cycle stops without acting (SC1), and a later
// cycle of the same watch fixes once and finishes the loop.
func TestRule_LW1_AConcurrentRunIsSettledByTheClaim(t *testing.T) {
	s := demoSession(t)
	w := s.World()
	raced := false
	var out strings.Builder
	res, err := s.Watch(context.Background(), WatchOptions{Out: &out, OnEffect: func(e loopEffect) {
		if e.Kind != string(loop.EffectClaim) || raced {
			return
		}
		for _, c := range w.Fake.PR(w.Owner, w.Repo, w.Number).Comments {
			if _, found, _ := state.Decode(c.Body); !found {
				continue
			}
			id, body := c.ID, c.Body
			raced = true
			w.Fake.Inject(ghfake.Fault{Match: fmt.Sprintf("GET /repos/%s/%s/issues/comments/%d", w.Owner, w.Repo, id), Times: 1, Before: func() {
				if err := w.Fake.EditIssueComment(id, body+"\n\n_written by another run_"); err != nil {
					t.Error(err)
				}
			}})
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !raced {
		t.Fatal("no claim on an existing status comment")
	}
	if !strings.Contains(out.String(), "another run updated the status comment first") {
		t.Errorf("watch's claim did not lose to the other run's write:\n%s", out.String())
	}
	if res.Err != nil || res.Watch.Last.State.EndReason != string(loop.EndClean) || res.Watch.Last.State.Commits != 1 {
		t.Errorf("watch ended with %v, reason %q, %d commits; want clean with one fix", res.Err, res.Watch.Last.State.EndReason, res.Watch.Last.State.Commits)
	}
}

// TestRule_LW1_DemoWatchPlaysTheDemoThroughWatch: `review-loop demo
// --watch` shows the terminal experience with no token: the live status
// of each cycle, the polls, and what they cost.
func TestRule_LW1_DemoWatchPlaysTheDemoThroughWatch(t *testing.T) {
	var out, errOut strings.Builder
	env := cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	if _, err := demo(context.Background(), cli.DemoOptions{Watch: true}, env, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("%v\n%s\n%s", err, errOut.String(), out.String())
	}
	for _, want := range []string{"through `review-loop watch`", "$ review-loop watch acme/calc#1", "next poll in 30s",
		"bugbot       RUNNING", "cycle 6: hand-back", "answered 304 Not Modified (free)", "outcome matches the scenario's expectation"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo --watch does not show %q:\n%s", want, out.String())
		}
	}
}

// demoSession is a session on the demo's world, played by this test
// binary, closed when the test ends.
func demoSession(t *testing.T) *Session {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(demoWorld(t), Options{Self: []string{self}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}
