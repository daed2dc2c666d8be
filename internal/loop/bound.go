package loop

import (
	"slices"

	"github.com/review-loop/review-loop/internal/state"
)

// This file keeps the state within one comment (R1): the triage table
// grows by one row per finding over a loop's life, and at about 1,100
// rows the state no longer fit GitHub's 65,536 characters.

// KeepTriageRows is how many triage rows the state keeps before it prunes
// decided rows (R1): a loop that triages fewer keeps every row, as the
// status comment's table shows them.
const KeepTriageRows = 200

// boundTriage drops, once the table holds more than KeepTriageRows rows,
// the rows no later rule reads (R1). A row is read again only while its
// finding can come back to triage: while its comment is still open on an
// engine the cycle observed (evaluate's "already triaged"), while it
// awaits approval (TR2), or in the cycle that made it (a refusal, B5,
// rewrites that cycle's rows). Loop-wide counts live in Totals and the
// engines' states, and the no-progress map and won't-fix memory are kept
// apart, so a decided row whose finding is gone carries nothing a rule
// needs. Rows of engines the cycle did not observe, and rows with no
// comment id (prose findings), are kept.
func (d *decider) boundTriage() {
	s := &d.s
	if len(s.Triage) <= KeepTriageRows {
		return
	}
	observed := map[string]bool{}
	open := map[int64]bool{}
	for _, v := range d.obs.Engines {
		if v.LatestReviewID == 0 {
			continue
		}
		observed[v.Engine] = true
		for _, f := range v.Findings {
			if f.CommentID != 0 {
				open[f.CommentID] = true
			}
			for _, src := range f.Sources {
				if src.CommentID != 0 {
					open[src.CommentID] = true
				}
			}
		}
	}
	n := len(s.Triage)
	s.Triage = slices.DeleteFunc(slices.Clone(s.Triage), func(r state.TriageRow) bool {
		return r.Cycle < s.Iteration && !awaitingApproval(r.Outcome) && r.CommentID != 0 &&
			observed[r.Engine] && !open[r.CommentID]
	})
	s.TriagePruned += n - len(s.Triage)
}
