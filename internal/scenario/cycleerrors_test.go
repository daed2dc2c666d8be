package scenario

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/sim"
)

// TestRun_anUnexpectedCycleErrorFailsTheScenario: a scenario whose cycle
// errors (GitHub answers 502 to every read of one cycle, more often than
// the client retries) fails unless it names the error in
// expect.cycle_errors; a named error that never happens fails it too.
func TestRun_anUnexpectedCycleErrorFailsTheScenario(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	load := func(t *testing.T) sim.Scenario {
		sc, err := sim.LoadScenario(filepath.Join(scenarioDir(t), "faults-rate-limits-and-5xx-during-a-cycle.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		sc.Events = append(sc.Events, sim.ScriptedEvent{AfterCycle: 2, Fault: &sim.FaultEvent{Match: "graphql:repository", Status: 502, Times: 8}})
		return sc
	}
	hasProblem := func(res Result, prefix string) bool {
		return slices.ContainsFunc(res.Problems, func(p string) bool { return strings.HasPrefix(p, prefix) })
	}
	t.Run("not expected", func(t *testing.T) {
		t.Parallel()
		res, err := Run(context.Background(), load(t), Options{Self: []string{self}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.CycleErrors) == 0 {
			t.Fatalf("precondition: no cycle failed: %v", res.Problems)
		}
		if !hasProblem(res, "unexpected cycle error: cycle 3") {
			t.Errorf("problems %q, want the unexpected cycle error of cycle 3", res.Problems)
		}
	})
	t.Run("expected", func(t *testing.T) {
		t.Parallel()
		sc := load(t)
		sc.Expect.CycleErrors = []string{"502"}
		res, err := Run(context.Background(), sc, Options{Self: []string{self}})
		if err != nil {
			t.Fatal(err)
		}
		if hasProblem(res, "unexpected cycle error") || hasProblem(res, "expected a cycle error") {
			t.Errorf("problems %q, want none about cycle errors (errors: %q)", res.Problems, res.CycleErrors)
		}
	})
	t.Run("expected but absent", func(t *testing.T) {
		t.Parallel()
		sc := load(t)
		sc.Events = sc.Events[:len(sc.Events)-1]
		sc.Expect.CycleErrors = []string{"502"}
		res, err := Run(context.Background(), sc, Options{Self: []string{self}})
		if err != nil {
			t.Fatal(err)
		}
		if !hasProblem(res, `expected a cycle error containing "502"`) {
			t.Errorf("problems %q, want the missing expected error", res.Problems)
		}
	})
}
