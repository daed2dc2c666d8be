package report

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// TestRule_CV1_GateSummaryCountsFixInducedPerRound: the merge gate's
// summary says, per fix round, how many findings were raised on the
// round's own fix, whether auto-fix is off (CV4) and what is left for a
// human (CV3, CV5, CV6).
func TestRule_CV1_GateSummaryCountsFixInducedPerRound(t *testing.T) {
	st := state.New()
	st.Status, st.EndReason = state.StatusDone, "diverging"
	st.FixCommits = []state.FixCommit{{SHA: "2222222222222222222222222222222222222222", Round: 1, Pushed: true,
		Fixed: []state.FixedRef{{ID: "bugbot-1"}}}}
	st.Induced = []state.Induced{{FindingID: "bugbot-2", Commit: "2222222222222222222222222222222222222222", Round: 1, Fixed: []string{"bugbot-1"}}}
	st.AutofixOff = &state.AutofixOff{Reason: "@alice reverted review-loop's commit 2222222 in 3333333", At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	st.Held = []state.Held{{FindingID: "coderabbit-5", Path: "calc.go", Rule: "CV3", Why: "a nitpick after 2 round(s)"}}
	_, summary := GateSummary(Input{State: st, Repo: "acme/calc", Number: 1}, loop.GateView{Status: loop.GateCompleted, Conclusion: loop.GateFailure})
	for _, want := range []string{
		"#### Convergence",
		"CV1 round 1: fix `2222222` fixed 1, followed by 1 fix-induced finding(s): bugbot-2",
		"CV2: the loop stopped fixing",
		"CV4: auto-fix is off since 2026-12-01 10:00 UTC:", "alice reverted review-loop's commit 2222222",
		"CV3: coderabbit-5 (calc.go) is for a human",
		"`diverging` — The loop's fixes fed the engines new findings",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("gate summary lacks %q:\n%s", want, summary)
		}
	}
}
