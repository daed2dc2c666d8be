package scenario

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/review-loop/review-loop/internal/sim"
)

// C5: the ledger counts every job a wake starts, the wakes that wrote
// nothing (C2) included. The demo runs the single-job workflow, one job
// per wake; its last wake writes the hand-back, so the ledger it leaves
// holds every wake's job: the idle ones are read back, in one request, as
// runs of the loop's own workflow for this PR.
func TestRule_C5_TheLedgerCountsTheJobsOfWakesThatWroteNothing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	sc, err := sim.ParseScenario(demoScenario)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{Self: []string{self}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Idle == 0 {
		t.Fatalf("the demo has no wake that wrote nothing: nothing to prove")
	}
	l := res.FinalState.Ledger
	if l == nil {
		t.Fatal("no ledger")
	}
	if l.Jobs != res.Cycles {
		t.Errorf("ledger jobs = %d, want %d: one per wake, the %d that wrote nothing included", l.Jobs, res.Cycles, res.Idle)
	}
}
