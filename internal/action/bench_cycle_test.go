package action

import (
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// BenchmarkCycle_1000Threads runs one cycle in-process on a PR with 1,000
// review threads from three engines (a wait cycle: the loop observes,
// decides and saves), reporting the API requests it costs.
func BenchmarkCycle_1000Threads(b *testing.B) {
	w := newWorld(b, nil)
	head := w.fake.HeadSHA("octo", "app", 1)
	for i, a := range []string{"cursor", "copilot-pull-request-reviewer", "coderabbitai"} {
		rid, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: a, Body: "review", CommitSHA: head})
		if err != nil {
			b.Fatal(err)
		}
		commenter := a
		if a == "copilot-pull-request-reviewer" {
			commenter = "Copilot"
		}
		for j := i; j < 1000; j += 3 {
			if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: commenter, ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head, Body: fmt.Sprintf("finding %d", j)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	in := map[string]string{"engines": "bugbot,copilot,coderabbit"}
	// The first cycle triggers, the second records the wait: the wakes
	// after them are idle.
	for range 2 {
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
			b.Fatal(err)
		}
	}
	w.fake.ResetRequests()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := w.cycle("workflow_dispatch", dispatchPayload(1), in)
		if err != nil {
			b.Fatal(err)
		}
		if a := res.PRs[0].Plan.Action; a != loop.ActionWait && a != loop.ActionHandBack {
			b.Fatalf("plan %s", a)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(w.fake.Requests()))/float64(b.N), "requests/op")
}

// BenchmarkCycle_IdleWake is a wake where nothing changed: one counted
// read (the observation) and no write (C2); with no checkout step, plus
// the config file's read. GET /rate_limit is free and reported apart.
func BenchmarkCycle_IdleWake(b *testing.B) {
	b.Run("checkout-step", func(b *testing.B) { benchIdleWake(b, newWorld(b, nil)) })
	b.Run("no-checkout", func(b *testing.B) {
		w := newWorld(b, nil)
		w.workspace = b.TempDir()
		w.env["GITHUB_WORKSPACE"], w.env["GITHUB_SERVER_URL"] = w.workspace, w.fake.URL()
		benchIdleWake(b, w)
		if g := w.fake.GitRequests(); len(g) != 0 {
			b.Fatalf("idle wakes made %d git requests", len(g))
		}
	})
}

func benchIdleWake(b *testing.B, w *world) {
	// Every iteration is an idle wake of a live loop: the idle bound must
	// not end the loop part-way (a finished loop's wakes write nothing).
	in := map[string]string{"engines": "copilot", "max-idle-minutes": "1000000"}
	// The first cycle triggers, the second records the wait: the wakes
	// after them are idle.
	for range 2 {
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
			b.Fatal(err)
		}
	}
	w.fake.ResetRequests()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reads, writes, free := w.requestsOf()
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
	b.ReportMetric(float64(free)/float64(b.N), "free-reads/op")
}
