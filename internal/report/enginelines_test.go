package report

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// TestRule_S4_EachEngineHasTwoLinesNeverCollapsed: the state line (with a
// verdict and a note only when there are) and the findings line (with the
// ids only when there are), for every engine, a clean one included.
func TestRule_S4_EachEngineHasTwoLinesNeverCollapsed(t *testing.T) {
	p := loop.Plan{Engines: []loop.EngineReport{
		{Engine: "copilot", State: "done", Verdict: "clean"},
		{Engine: "bugbot", State: "done", Note: "reviewed the head", Active: []int64{11, 12}},
		{Engine: "claude", State: "pending"},
	}}
	got := EngineLines(p)
	want := []string{
		"copilot: review done · verdict clean",
		"copilot: 0 active finding(s)",
		"bugbot: review done · reviewed the head",
		"bugbot: 2 active finding(s): 11, 12",
		"claude: review pending",
		"claude: 0 active finding(s)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("engine lines:\n%q\nwant\n%q", got, want)
	}
}
