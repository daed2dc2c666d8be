package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/racesample"
)

// TestRaceSample_NamesExistingTests: every line of race-sample.txt names a
// scenario of testdata/scenarios or a test function of this package, so a
// rename cannot leave the race run playing nothing.
func TestRaceSample_NamesExistingTests(t *testing.T) {
	funcs := racesample.TestFuncs(t)
	names := racesample.Names(t)
	for _, n := range names {
		top, sub, nested := strings.Cut(n, "/")
		switch {
		case nested && top == "TestScenarios":
			if _, err := os.Stat(filepath.Join(scenarioDir(t), sub+".yaml")); err != nil {
				t.Errorf("race-sample.txt: %s: no scenario %s.yaml", n, sub)
			}
		case nested:
			t.Errorf("race-sample.txt: %s: only TestScenarios/<scenario> may name a subtest", n)
		case !funcs[top]:
			t.Errorf("race-sample.txt: %s: no such test function in this package", n)
		}
	}
}
