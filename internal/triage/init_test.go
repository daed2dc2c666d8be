package triage

import (
	"fmt"
	"os"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// TestMain holds the cost of starting the binary: every run of
// review-loop (and each of its re-executions that drop secrets) initialises
// this package, most of them never triage a finding, so initialisation
// parses and compiles no catalogue; the first use does, once.
func TestMain(m *testing.M) {
	if n := builtinParses.Load(); n != 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the built-in catalogue was parsed %d time(s) while the package was initialised, before any use\n", n)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestRule_C1_TheBuiltinCatalogueIsParsedOncePerProcess(t *testing.T) {
	Builtin()
	Category(loop.Finding{Engine: "bugbot", Title: "Nil map read panics"})
	Builtin()
	if n := builtinParses.Load(); n != 1 {
		t.Errorf("the built-in catalogue was parsed %d times, want once", n)
	}
}
