package reap

import "testing"

// C1: a sweep reads the process table once per attempt. It runs after
// every repository command and before every fetch and push, and a read of
// /proc costs milliseconds on a busy machine; the strays it kills are the
// ones that same read shows.
func TestRule_C1_ASweepThatFindsNothingReadsTheProcessTableOnce(t *testing.T) {
	before := tableReads.Load()
	if err := sweep(map[int]bool{}); err != nil {
		t.Fatal(err)
	}
	if n := tableReads.Load() - before; n != 1 {
		t.Errorf("a sweep that found no stray read /proc %d times, want once", n)
	}
}
