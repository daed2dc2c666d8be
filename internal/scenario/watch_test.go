package scenario

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/sim"
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
