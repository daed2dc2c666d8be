package loop

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// Rule C1's cost tests: the work of a path that grows with findings is
// counted (allocations, comparisons) on a busy PR and on one ten times
// bigger, never timed. A PR ten times bigger has ten times the files, so
// the findings per file stay what they are on a busy PR; the cost may grow
// ten times (plus a little for sorting and map growth), not a hundred.

// linearCost fails t when the cost at 10n is more than 13 times the cost
// at n (growth worse than n log n on these sizes) or above the ceiling
// per item at 10n.
func linearCost(t *testing.T, what string, n int, small, large, perItem float64) {
	t.Helper()
	t.Logf("%s: %.0f at n=%d, %.0f at n=%d (%.1f per item)", what, small, n, large, 10*n, large/float64(10*n))
	if small <= 0 {
		t.Fatalf("%s: nothing counted at n=%d", what, n)
	}
	if large > 13*small {
		t.Errorf("%s grows faster than linearly: %.0f at n=%d, %.0f at n=%d (%.1f×, want ≤ 13×)", what, small, n, large, 10*n, large/small)
	}
	if large > perItem*float64(10*n) {
		t.Errorf("%s: %.0f at n=%d is above the ceiling of %.0f per item (%.0f)", what, large, 10*n, perItem, perItem*float64(10*n))
	}
}

// A busy PR carries 150 findings; the tests count at 150 and at 1,500.
const busyPR = 150

func TestRule_C1_DedupAllocationsGrowLinearlyInFindings(t *testing.T) {
	small, large := busyFindings(busyPR), busyFindings(10*busyPR)
	as := testing.AllocsPerRun(3, func() { Dedup(small) })
	al := testing.AllocsPerRun(1, func() { Dedup(large) })
	// Each finding's markdown is parsed at most once (a body with a
	// suggestion block costs some 40 allocations, a third of them have
	// one); a parse per compared pair costs several times that.
	linearCost(t, "Dedup allocations", busyPR, as, al, 10)
}

// TestRule_C1_DedupParsesEachFindingAtMostOnceHoweverDense: findings
// packed into one file, each with its own suggestion block, so most pairs
// on a line are compared down to their suggested edits. The comparisons
// grow with the pairs on overlapping lines, but each body is parsed at
// most once: the allocations stay linear in the findings.
func TestRule_C1_DedupParsesEachFindingAtMostOnceHoweverDense(t *testing.T) {
	dense := func(n int) []Finding {
		fs := busyFindings(n)
		for i := range fs {
			fs[i].Path, fs[i].Line, fs[i].StartLine, fs[i].Category = "hot.go", 1+i%10, 0, "bug"
			fs[i].Title = fmt.Sprintf("finding %d", i)
			fs[i].Body = fmt.Sprintf("**finding %d**\n\n```suggestion\n\treturn %d\n```\n", i, i)
		}
		return fs
	}
	small, large := dense(busyPR), dense(10*busyPR)
	as := testing.AllocsPerRun(3, func() { Dedup(small) })
	al := testing.AllocsPerRun(1, func() { Dedup(large) })
	linearCost(t, "Dedup allocations, dense", busyPR, as, al, 45)
}

func TestRule_C1_DedupComparesOnlyFindingsOnOverlappingLinesOfOneFile(t *testing.T) {
	small, large := busyFindings(busyPR), busyFindings(10*busyPR)
	_, cs := dedup(small)
	_, cl := dedup(large)
	// 15 findings to a file over 20 lines: each overlaps a few others.
	linearCost(t, "Dedup comparisons", busyPR, float64(cs), float64(cl), 4)
	// Nothing is compared across files or with a finding without a line.
	apart := make([]Finding, 3000)
	for i := range apart {
		apart[i] = Finding{ID: itoa(int64(i)), Engine: []string{"bugbot", "claude", "copilot"}[i%3], CommentID: int64(i),
			Path: fmt.Sprintf("f%d.go", i/2), Line: 10 * (i % 2), Title: "the same title everywhere", Category: "same"}
	}
	if got, n := dedup(apart); n != 0 || len(got) != len(apart) {
		t.Errorf("3,000 findings in 1,500 files, one of each pair without a line: %d comparisons and %d findings, want 0 and 3000", n, len(got))
	}
}

func TestRule_C1_DecideAllocationsGrowLinearlyInFindings(t *testing.T) {
	sts, obss := busyDecision(busyPR)
	stl, obsl := busyDecision(10 * busyPR)
	check := func(st state.State, o Observation, n int) {
		p, _ := Decide(st, o, DefaultConfig())
		if p.Action != ActionFix || len(p.Triage) < n/2 {
			t.Fatalf("plan %s with %d findings, want a fix cycle on most of %d", p.Action, len(p.Triage), n)
		}
	}
	check(sts, obss, busyPR)
	check(stl, obsl, 10*busyPR)
	as := testing.AllocsPerRun(3, func() { Decide(sts, obss, DefaultConfig()) })
	al := testing.AllocsPerRun(1, func() { Decide(stl, obsl, DefaultConfig()) })
	linearCost(t, "Decide allocations", busyPR, as, al, 12)
}

// costPerRun is the mean allocations and bytes allocated by one call of fn,
// counted the way testing.AllocsPerRun counts (one processor, after a
// warm-up call); bytes do not depend on the machine's load or the GC.
func costPerRun(runs int, fn func()) (allocs, bytes float64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	fn()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		fn()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs), float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// TestRule_C1_DecideAllocatesAtMost300TimesAnd3MB holds BenchmarkDecide's
// figures (three engines × 2,000 findings, 3,000 of them fresh): a cycle
// reads each finding's category, title and path without allocating and
// copies the fresh findings once (DD1's result), so its allocations do
// not grow with the findings and its bytes are about one copy of them
// (107 allocations and 2.4 MB when this bound was set). It allocated
// 12,154 times and 7.0 MB a call when the nitpick check, DD1's category
// and CV6's path guard each allocated per finding and the fresh findings
// were gathered twice and copied three times.
func TestRule_C1_DecideAllocatesAtMost300TimesAnd3MB(t *testing.T) {
	st, o := largeDecision()
	cfg := DefaultConfig()
	var p Plan
	allocs, bytes := costPerRun(5, func() { p, _ = Decide(st, o, cfg) })
	if p.Action != ActionFix || len(p.Triage) != 3000 {
		t.Fatalf("plan %s with %d findings, want a fix cycle on 3000", p.Action, len(p.Triage))
	}
	t.Logf("Decide, 3 × 2,000 findings: %.0f allocations, %.0f bytes", allocs, bytes)
	const maxAllocs, maxBytes = 300, 3 << 20
	if allocs > maxAllocs {
		t.Errorf("Decide on 3 × 2,000 findings allocates %.0f times, want at most %d", allocs, maxAllocs)
	}
	if bytes > maxBytes {
		t.Errorf("Decide on 3 × 2,000 findings allocates %.0f bytes, want at most %d", bytes, maxBytes)
	}
}
