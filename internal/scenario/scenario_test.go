package scenario

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/review-loop/review-loop/internal/cli"
	"github.com/review-loop/review-loop/internal/sim"
)

var only = flag.String("scenario", "", "run only scenarios whose name contains this")

// TestMain lets this test binary serve as the scripted fixer and judge
// child processes of the scenarios.
func TestMain(m *testing.M) {
	if ran, err := Helper(os.Args[1:], os.Stdout); ran {
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Each scenario plays in its own temporary workspace, and the go
	// commands a scenario's test-command runs there would otherwise key
	// their build and test caches on that directory: every cycle would
	// compile, vet and link the same package again. -trimpath drops the
	// directory from the cache keys, so a tree some scenario already
	// built is built once (GOFLAGS set by the caller wins).
	if _, set := os.LookupEnv("GOFLAGS"); !set {
		os.Setenv("GOFLAGS", "-trimpath")
	}
	toolchainFirst()
	os.Exit(m.Run())
}

// toolchainFirst puts the directory of the go command on PATH first when
// the gofmt PATH finds is not the one beside it, so the scenarios' test
// command (gofmt -e -l) is the same toolchain's as their go commands and
// as CI's: go test already puts GOROOT/bin first; a test binary run by
// itself may find another gofmt first.
func toolchainFirst() {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return
	}
	if real, err := filepath.EvalSymlinks(goBin); err == nil {
		goBin = real
	}
	dir := filepath.Dir(goBin)
	want := filepath.Join(dir, "gofmt")
	if _, err := os.Stat(want); err != nil {
		return
	}
	if got, err := exec.LookPath("gofmt"); err == nil {
		if real, err := filepath.EvalSymlinks(got); err == nil && real == want {
			return
		}
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func scenarioDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestScenarios plays every scenario in testdata/scenarios to its
// hand-back and checks its expected outcome. Each file is named after the
// rules it shows.
func TestScenarios(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	scs, err := sim.LoadScenarios(scenarioDir(t))
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		if *only != "" && !strings.Contains(sc.Name, *only) {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			var progress strings.Builder
			res, err := Run(context.Background(), sc, Options{Self: []string{self}, Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) > 0 {
				t.Errorf("%s (%s):\n  %s\n\ncycles:\n%s\nfinal status comment:\n%s", sc.Name, strings.Join(sc.Rules, ", "),
					strings.Join(res.Problems, "\n  "), progress.String(), res.Report)
			}
		})
	}
}

// TestDemo runs the built-in demo exactly as `review-loop demo` does.
func TestDemo(t *testing.T) {
	t.Parallel()
	progress := sharedDemo(t).progress()
	for _, want := range []string{"review RUNNING", "review DONE · CLEAN", "1 active finding(s)\n     · copilot medium calc/calc.go:23 — Max returns the smaller value"} {
		if !strings.Contains(progress, want) {
			t.Errorf("the demo never printed %q:\n%s", want, progress)
		}
	}
}

// demoRun is one run of `review-loop demo` (the built-in demo, no flags):
// what it printed and what the run observed.
type demoRun struct {
	out, stderr string
	res         Result
}

// builtinDemo plays the built-in demo once for the tests that read that
// same run (TestDemo, TestDemo_ExplainsItself and the demo case of
// TestRule_CL1_TheLedgerCountsEveryRequestOfTheCyclesThatWriteIt): they
// played the identical scenario with identical inputs three times, and
// the progress, the rule lines and the ledger they check are all of one
// run. Tests that change the demo's inputs (the quick start's, codex)
// play their own.
var builtinDemo = sync.OnceValues(func() (demoRun, error) {
	var out, errOut strings.Builder
	env := cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	res, err := demo(context.Background(), cli.DemoOptions{}, env, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return demoRun{out: out.String(), stderr: errOut.String(), res: res}, err
})

// sharedDemo is builtinDemo's run for t, which it fails unless the demo
// met its expectation.
func sharedDemo(t *testing.T) demoRun {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	d, err := builtinDemo()
	if err != nil {
		t.Fatalf("demo: %v\n%s\n%s", err, d.stderr, d.out)
	}
	return d
}

// progress is the cycles' part of the demo's output: from the first cycle
// to the line that opens the hand-back report.
func (d demoRun) progress() string {
	s := d.out
	if i := strings.Index(s, "── cycle "); i >= 0 {
		s = s[i:]
	}
	if i := strings.Index(s, "\n"+strings.Repeat("═", 76)); i >= 0 {
		s = s[:i]
	}
	return s
}

// runDemo runs the built-in demo scenario, changed by edit when it is not
// nil, and fails the test unless it meets its expectation; it returns the
// progress the demo printed (with the rule behind each decision when why).
func runDemo(t *testing.T, edit func(*sim.Scenario), why bool) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario(demoScenario)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&sc)
	}
	var progress strings.Builder
	res, err := Run(context.Background(), sc, Options{Self: []string{self}, Progress: &progress, Why: why})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("inputs %v: %v\n%s", sc.Inputs, res.Problems, progress.String())
	}
	return progress.String()
}
