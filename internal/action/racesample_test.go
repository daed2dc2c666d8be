package action

import (
	"testing"

	"github.com/review-loop/review-loop/internal/racesample"
)

// TestRaceSample_NamesExistingTests: every line of race-sample.txt (the
// tests ./scripts/test also runs under the race detector) names a test
// function of this package, so a rename cannot leave the race run running
// nothing.
func TestRaceSample_NamesExistingTests(t *testing.T) {
	t.Parallel()
	racesample.Check(t)
}
