package report

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// The status comment and `review-loop status` show the plan of the cycle
// that wrote the state, effect by effect with its rule; a line is escaped
// like every other text the comment repeats.
func TestStatus_ShowsTheLastCyclesPlan(t *testing.T) {
	st := state.New()
	st.Status = state.StatusActive
	st.LastCycle = []string{"claim the status comment (SC1)", "trigger copilot on abc1234 — T2: @someone <b>x</b> (T2)"}
	in := Input{State: st, Repo: "o/r", Number: 1}
	md := StatusComment(in)
	if !strings.Contains(md, "This cycle, effect by effect") || !strings.Contains(md, "1. claim the status comment") || !strings.Contains(md, "2. trigger copilot on abc1234") {
		t.Fatalf("status comment:\n%s", md)
	}
	if strings.Contains(md, "@someone") || strings.Contains(md, "<b>") {
		t.Errorf("a plan line is not escaped:\n%s", md)
	}
	txt := StatusText(in)
	if !strings.Contains(txt, "last cycle:\n  1. claim the status comment (SC1)\n  2. trigger copilot on abc1234") {
		t.Fatalf("status text:\n%s", txt)
	}
	in.State.LastCycle = nil
	if strings.Contains(StatusComment(in), "effect by effect") || strings.Contains(StatusText(in), "last cycle:") {
		t.Error("a state with no plan shows one")
	}
}
