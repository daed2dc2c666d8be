package loop

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// TestRule_C1_FixInducedMarkingParsesEachFindingAtMostOnce: CV1 and CV2
// read every fresh finding against the findings the loop's fix commit
// fixed in its file. With all of them in one file (the dense case), each
// fresh finding meets every fixed one; the comparisons grow with those
// pairs, but no finding's markdown is parsed per pair, so the allocations
// stay linear in the findings.
func TestRule_C1_FixInducedMarkingParsesEachFindingAtMostOnce(t *testing.T) {
	world := func(n int) (*decider, []Finding) {
		// The commit fixed a tenth as many as come back new: both grow
		// with n, so a parse per pair grows a hundredfold at 10n.
		fixed := make([]Finding, n/10)
		for i := range fixed {
			fixed[i] = Finding{ID: fmt.Sprintf("bugbot-%d", i), Engine: "bugbot", CommentID: int64(i + 1), Path: "hot.go", Line: 1 + i%40,
				Title: fmt.Sprintf("fixed defect number %d here", i), Category: fmt.Sprintf("fixed-%d", i)}
		}
		st := active(sha1, "bugbot")
		st.Iteration = 1
		st = RecordFixCommit(st, sha2, sha1, []state.ChangedFile{{Path: "hot.go", Ranges: []state.LineRange{{Start: 1, End: 40}}}}, fixed, t0)
		st = RecordPendingPush(st, sha2)
		st = RecordPush(st, sha2)
		fresh := make([]Finding, n)
		for i := range fresh {
			fresh[i] = Finding{ID: fmt.Sprintf("copilot-%d", i), Engine: "copilot", CommentID: int64(100000 + i), Path: "hot.go", Line: 1 + i%40,
				Title:    fmt.Sprintf("new defect number %d there", i),
				Category: fmt.Sprintf("new-%d", i),
				Body:     fmt.Sprintf("**new defect %d**\n\n```suggestion\n\treturn %d\n```\n", i, i)}
		}
		return &decider{s: st, head: sha2}, fresh
	}
	count := func(n, runs int) float64 {
		return testing.AllocsPerRun(runs, func() {
			d, fresh := world(n)
			d.markInduced(fresh)
		})
	}
	// Each fix-induced finding is linked to at most maxLinks of the
	// findings the commit fixed, so the state grows with the findings, not
	// with their pairs.
	d, fresh := world(10 * busyPR)
	d.markInduced(fresh)
	links := 0
	for _, in := range d.s.Induced {
		links += len(in.Fixed)
	}
	if len(d.s.Induced) != 10*busyPR || links > maxLinks*len(d.s.Induced) {
		t.Errorf("%d fix-induced findings hold %d links, want %d findings with at most %d each", len(d.s.Induced), links, 10*busyPR, maxLinks)
	}
	// The world itself (state and findings) is built inside the count;
	// it is linear in n, so it cannot hide a quadratic marking.
	linearCost(t, "fix-induced marking allocations", busyPR, count(busyPR, 3), count(10*busyPR, 1), 200)
}
