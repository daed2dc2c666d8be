package scenario

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/cli"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/sim"
)

//go:embed demo.yaml
var demoScenario []byte

// Demo is `review-loop demo [--scenario FILE] [--verbose] [-v]`: it plays
// the built-in scenario (or FILE) on an in-process fake GitHub with
// simulated engines, printing each cycle's per-engine status and the
// final hand-back report. It fails when the outcome differs from the
// scenario's expectation. The command line is parsed by internal/cli.
func Demo(ctx context.Context, opts cli.DemoOptions, env cli.Env, logger *slog.Logger) error {
	_, err := demo(ctx, opts, env, logger)
	return err
}

// demo is Demo, returning also what the run observed (the tests that read
// the built-in demo share one run).
func demo(ctx context.Context, o cli.DemoOptions, env cli.Env, logger *slog.Logger) (Result, error) {
	file, diag, verbose := &o.Scenario, &o.Diagnostics, &o.Verbose
	var sc sim.Scenario
	var err error
	if *file != "" {
		sc, err = sim.LoadScenario(*file)
	} else {
		sc, err = sim.ParseScenario(demoScenario)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "review-loop demo: %v\n", err)
		return Result{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return Result{}, err
	}
	if o.Watch {
		return Result{}, demoWatch(ctx, sc, o, self, env, logger)
	}
	out := env.Stdout
	fmt.Fprintln(out, demoHeader(sc.Name))
	fmt.Fprintf(out, "%s\n\ninputs: %s\n\n", wrap(sc.Description, 76), inputsLine(sc.Inputs))
	// Every cycle says why: the rule behind its decision, in words.
	opts := Options{Self: []string{self}, Progress: out, Why: true, Plan: *verbose}
	if *diag {
		opts.Log = logger
	}
	res, err := Run(ctx, sc, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "review-loop demo: %v\n", err)
		return res, err
	}
	fmt.Fprintf(out, "\n%s\n", strings.Repeat("═", 76))
	// One total of each: the hand-back's cost ledger shows its own jobs
	// and minutes — every wake's job, those that wrote nothing (an idle
	// wake, C2) read back as runs of the workflow (C5) — and the requests
	// the fake GitHub counted of the action's token, every cycle's, since
	// a wake that writes nothing cannot write its requests down.
	final := res.FinalState
	if final.Ledger != nil {
		l := *final.Ledger
		l.APIReads, l.APIWrites = res.Requests.Reads, res.Requests.Writes
		final.Ledger = &l
	}
	fmt.Fprint(out, report.HandBack(report.Input{
		State: final, Plan: res.Plan, Repo: sc.Repository.Owner + "/" + sc.Repository.Name, Number: 1,
		Bounds:     report.Bounds{MaxCommits: 20, MaxActiveMinutes: 240, MaxIdleMinutes: 45},
		LastCommit: res.LastCommit, RegressionCommand: sc.Inputs["regression-command"],
	}))
	fmt.Fprintf(out, "\n%s\n%d cycles (%d wrote nothing), %d API requests in all (the cost above)\n",
		strings.Repeat("═", 76), res.Cycles, res.Idle, res.Requests.Total)
	if len(res.Problems) > 0 {
		fmt.Fprintf(env.Stderr, "review-loop demo: the outcome differs from the scenario's expectation:\n  %s\n", strings.Join(res.Problems, "\n  "))
		return res, errors.New("unexpected outcome")
	}
	fmt.Fprintln(out, "outcome matches the scenario's expectation ✓")
	return res, nil
}

func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// demoHeader is the first line: the scenario's name unless it is only
// "demo" again.
func demoHeader(name string) string {
	if name == "" || strings.EqualFold(name, "demo") {
		return "review-loop demo"
	}
	return "review-loop demo — " + name
}

// inputsLine lists the action inputs the scenario runs with, secrets
// shown as set, never by value.
func inputsLine(in map[string]string) string {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := in[k]
		if strings.Contains(k, "key") || strings.Contains(k, "token") {
			v = "(set)"
		}
		parts = append(parts, k+": "+v)
	}
	if len(parts) == 0 {
		return "(defaults)"
	}
	return strings.Join(parts, " · ")
}

// demoWatch is `review-loop demo --watch`: the same world played through
// the watch driver, as a terminal shows it, on the world's virtual clock
// (an hour of engines' work in a few seconds), then the cost of it next
// to the Action's for the same scenario.
func demoWatch(ctx context.Context, sc sim.Scenario, o cli.DemoOptions, self string, env cli.Env, logger *slog.Logger) error {
	out := env.Stdout
	fmt.Fprintln(out, demoHeader(sc.Name)+" · through `review-loop watch`")
	fmt.Fprintf(out, "%s\n\nA fake GitHub, a fake clock, a clone of the repository as yours would be:\n$ review-loop watch %s/%s#1\n\n",
		wrap(sc.Description, 76), sc.Repository.Owner, sc.Repository.Name)
	opts := WatchOptions{Options: Options{Self: []string{self}}, Out: out, TTY: o.TTY}
	if o.Diagnostics {
		opts.Log = logger
	}
	if o.TTY {
		// On a terminal the live block is redrawn at each step: slow the
		// virtual hour down enough to be seen.
		opts.Pace = 40 * time.Millisecond
	}
	res, err := RunWatch(ctx, sc, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "review-loop demo: %v\n", err)
		return err
	}
	if res.Err != nil {
		fmt.Fprintf(env.Stderr, "review-loop demo: watch: %v\n", res.Err)
		return res.Err
	}
	fmt.Fprintf(out, "\n%s\nwatch: %d cycles, %d polls; %d requests counted against the rate limit, %d answered 304 Not Modified (free)\n",
		strings.Repeat("═", 76), res.Watch.Cycles, res.Watch.Polls, res.Counted, res.NotModified)
	if len(res.Problems) > 0 {
		fmt.Fprintf(env.Stderr, "review-loop demo: the outcome differs from the scenario's expectation:\n  %s\n", strings.Join(res.Problems, "\n  "))
		return errors.New("unexpected outcome")
	}
	fmt.Fprintln(out, "outcome matches the scenario's expectation ✓ — the status comment on the PR is the one the Action would continue")
	return nil
}
