package loop

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// largeDecision is a large PR: three engines with 2,000 active findings
// each, half of them already in the triage table.
func largeDecision() (state.State, Observation) {
	engines := []string{"bugbot", "claude", "copilot"}
	st := active(sha1, engines...)
	var views []EngineView
	id := int64(1)
	for i, e := range engines {
		var fs []Finding
		for range 2000 {
			fd := f(id)
			fd.Body = "a finding body of moderate length that the loop never reads"
			fs = append(fs, fd)
			if id%2 == 0 {
				st.Triage = append(st.Triage, state.TriageRow{FindingID: fd.ID, Engine: e, CommentID: id, Tier: 3, Outcome: OutcomeEscalated})
			}
			id++
		}
		v := done(e, sha1, int64(100+i), fs...)
		v.MultiVerdict = e == "claude"
		views = append(views, v)
	}
	return st, obs(sha1, 0, views...)
}

// BenchmarkDecide decides on a large PR (largeDecision).
func BenchmarkDecide(b *testing.B) {
	st, o := largeDecision()
	cfg := DefaultConfig()
	b.ReportAllocs()
	for b.Loop() {
		p, _ := Decide(st, o, cfg)
		if p.Action != ActionFix || len(p.Triage) != 3000 {
			b.Fatalf("plan %s with %d findings", p.Action, len(p.Triage))
		}
	}
}

// BenchmarkDedup merges the findings of a busy PR (150) and of a large
// one (2,000): three engines, one in five a duplicate of another's.
func BenchmarkDedup(b *testing.B) {
	for _, n := range []int{150, 2000} {
		fs := busyFindings(n)
		b.Run(fmt.Sprintf("findings=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := Dedup(fs); len(got) >= n {
					b.Fatalf("nothing merged: %d of %d", len(got), n)
				}
			}
		})
	}
}
