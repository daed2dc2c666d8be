package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func ledgerInput() Input {
	in := midLoop()
	in.State.Ledger = &state.Ledger{Requested: map[string]int{"copilot": 2, "claude": 1}, Automatic: map[string]int{"bugbot": 1},
		JobMinutes: 6, Jobs: 6, Cycles: 5, APIReads: 40, APIWrites: 12}
	in.Prices = Prices{Review: map[string]float64{"bugbot": 0.5, "copilot": 0.25}, ActionsMinute: 0.008}
	return in
}

func TestRule_CL1_ledgerInTheStatusCommentTheSummaryAndTheOutput(t *testing.T) {
	t.Parallel()
	in := ledgerInput()
	for name, text := range map[string]string{"status comment": StatusComment(in), "job summary": JobSummary(in)} {
		for _, want := range []string{"#### Cost", "| bugbot | 0 | 1 | $0.50 |", "| copilot | 2 | 0 | $0.50 |", "| claude | 1 | 0 | — |",
			"Actions job minutes: 6 in 6 jobs over 5 cycles ($0.05)", "API requests: 52 (40 reads, 12 writes)", "estimated total: **$1.05**"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	var c Cost
	if err := json.Unmarshal([]byte(Outputs(in)[OutputCost]), &c); err != nil {
		t.Fatal(err)
	}
	if c.Engines["copilot"].Requested != 2 || c.Engines["bugbot"].Automatic != 1 || c.JobMinutes != 6 || c.APIRequests != 52 || c.Estimate < 1.047 || c.Estimate > 1.049 {
		t.Errorf("cost-json %+v", c)
	}
	in.Prices = Prices{}
	if s := StatusComment(in); !strings.Contains(s, "No prices configured") || strings.Contains(s, "estimated total") {
		t.Error("without prices the ledger must say how to configure them and give no estimate")
	}
}

func TestRule_CL1_ledgerOnceInAFinishedReport(t *testing.T) {
	t.Parallel()
	in := noProgress()
	in.State.Ledger = &state.Ledger{Requested: map[string]int{"bugbot": 1}}
	s := StatusComment(in)
	if n := strings.Count(s, "#### Cost"); n != 1 {
		t.Errorf("finished status comment has %d cost sections, want 1 (in the hand-back)", n)
	}
	if !strings.Contains(HandBack(in), "#### Cost") {
		t.Error("the hand-back lacks the cost ledger")
	}
}

func TestRule_MG1_gateSummaryIsTheEngineTablePlusTheHandBackWhenNotClean(t *testing.T) {
	t.Parallel()
	in := noProgress()
	title, sum := GateSummary(in, loop.GateView{Status: loop.GateCompleted, Conclusion: loop.GateFailure})
	if !strings.Contains(title, "handed back (no-progress)") || !strings.Contains(sum, "#### Engines") || !strings.Contains(sum, "End reason: `no-progress`") {
		t.Errorf("failure gate: %q\n%s", title, sum)
	}
	title, sum = GateSummary(midLoop(), loop.GateView{Status: loop.GateInProgress})
	if !strings.Contains(title, "reviewing") || strings.Contains(sum, "Hand-back") || !strings.Contains(sum, "#### Engines") {
		t.Errorf("in-progress gate: %q\n%s", title, sum)
	}
}

// TestRule_MG1_gateSummaryLeavesTheLedgerOut: the ledger changes with
// every request; in the gate's summary it would make every cycle's gate a
// write, so a hand-back gate shows no cost and the same summary whatever
// the ledger says.
func TestRule_MG1_gateSummaryLeavesTheLedgerOut(t *testing.T) {
	t.Parallel()
	in := noProgress()
	fail := loop.GateView{Status: loop.GateCompleted, Conclusion: loop.GateFailure}
	_, without := GateSummary(in, fail)
	in.State.Ledger = &state.Ledger{Requested: map[string]int{"bugbot": 1}, APIReads: 40, APIWrites: 12}
	if !strings.Contains(HandBack(in), "#### Cost") {
		t.Fatal("the fixture's hand-back shows no ledger: the test would prove nothing")
	}
	_, with := GateSummary(in, fail)
	if with != without || strings.Contains(with, "#### Cost") {
		t.Errorf("the gate's summary changes with the ledger:\n%s", with)
	}
}
