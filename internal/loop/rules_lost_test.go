package loop

import "testing"

// SC3: a loop whose state is lost or unreadable is never silently
// replaced: only `reset` goes on (with a notice saying what was lost),
// every other wake stops with a refusal naming the way out; a found
// state stops nothing.
func TestRule_SC3_ALostStateStopsEveryWakeButReset(t *testing.T) {
	t.Parallel()
	const lost = "the state in status comment 12 cannot be read (bad json)"
	for _, tt := range []struct {
		name            string
		lost            string
		reset           bool
		notice, refusal string
	}{
		{name: "a found state goes on", lost: "", reset: false},
		{name: "a found state goes on under reset too", lost: "", reset: true},
		{name: "a lost state stops any other wake", lost: lost, reset: false,
			refusal: "PR #7: " + lost + ": this cycle stops without acting rather than start a new loop over it; comment `/loop reset` to start over (SC3)"},
		{name: "reset starts over, saying what was lost", lost: lost, reset: true,
			notice: "reset: " + lost + "; a new loop starts"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			notice, refusal := FailClosed(tt.lost, tt.reset, 7, "/loop")
			if notice != tt.notice || refusal != tt.refusal {
				t.Errorf("FailClosed = (%q, %q), want (%q, %q)", notice, refusal, tt.notice, tt.refusal)
			}
		})
	}
}
