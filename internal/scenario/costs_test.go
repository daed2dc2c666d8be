package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRule_C5_CostsPageMonthlyFiguresAreTheDemosLoopInTheHardenedWorkflow:
// docs/costs.md's jobs a month follow from what was run: the demo's loop
// (its wakes, and how many wrote the ledger) in the hardened workflow,
// where a wake that writes is two jobs (prepare and publish) and an idle
// one is one (C3, C5); before, every wake was two. An idle repository is
// its 120 sweeps a month, a busy one 600 loops more.
func TestRule_C5_CostsPageMonthlyFiguresAreTheDemosLoopInTheHardenedWorkflow(t *testing.T) {
	t.Parallel()
	text := sharedDemo(t).out
	wakes := strings.Count(text, "── cycle ")
	m := regexp.MustCompile(`Actions job minutes: \d+ in (\d+) jobs? over (\d+) cycles?`).FindStringSubmatch(text)
	f := regexp.MustCompile(`\n(\d+) cycles \((\d+) wrote nothing\)`).FindStringSubmatch(text)
	if m == nil || f == nil || wakes == 0 {
		t.Fatalf("the demo shows %d wakes and no ledger line of jobs or no footer:\n%s", wakes, text)
	}
	jobs, _ := strconv.Atoi(m[1])
	cycles, _ := strconv.Atoi(m[2])
	idle, _ := strconv.Atoi(f[2])
	// The ledger's own count (no longer the demo's): one job per wake,
	// the idle ones read back as runs of the workflow; the cycles are the
	// wakes that wrote it.
	if jobs != wakes || cycles != wakes-idle {
		t.Errorf("the demo's single-job ledger counts %d jobs over %d cycles; want one job per wake shown (%d) over the %d that wrote", jobs, cycles, wakes, wakes-idle)
	}
	wrote := wakes - idle
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "costs.md"))
	if err != nil {
		t.Fatal(err)
	}
	costs := strings.Join(strings.Fields(string(b)), " ")
	const sweeps, loops = 120, 600
	n := func(v int) string {
		s := strconv.Itoa(v)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	for _, want := range []string{
		fmt.Sprintf("%d wakes, of which %d write and %d is idle", wakes, wrote, idle),
		fmt.Sprintf("| idle | %s → %s |", n(sweeps*2), n(sweeps)),
		fmt.Sprintf("| busy (20 loops a day) | %s → %s |", n(sweeps*2+loops*wakes*2), n(sweeps+loops*(wrote*2+idle))),
		fmt.Sprintf("(%d × 2 + %d) jobs", wrote, idle),
	} {
		if !strings.Contains(costs, want) {
			t.Errorf("docs/costs.md does not say %q (the demo's loop: %d wakes, %d wrote)", want, wakes, wrote)
		}
	}
}
