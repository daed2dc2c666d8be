package bugbot_test

import (
	"testing"

	"github.com/review-loop/review-loop/internal/racesample"
)

// The tests race-free.txt lists exist and each runs in one goroutine, so
// running them without the race detector loses nothing it could see.
func TestRaceFree_NamesOneGoroutineTests(t *testing.T) {
	racesample.CheckRaceFree(t)
}
