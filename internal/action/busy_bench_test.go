package action

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

// busyRepo is a repository with open PRs of which some carry live loops,
// each waiting on three engines that were triggered for its head.
type busyRepo struct {
	*world
	live []int
}

func newBusyRepo(b *testing.B, open, live int) *busyRepo {
	b.Helper()
	w := newWorld(b, nil)
	r := &busyRepo{world: w}
	for i := 2; i <= open; i++ {
		if _, err := w.fake.CreatePR("octo", "app", ghfake.PROptions{Head: fmt.Sprintf("other-%d", i), Author: "maintainer",
			Files: map[string]string{"o.txt": fmt.Sprint(i)}}); err != nil {
			b.Fatal(err)
		}
	}
	// Live loops spread over the PRs, the newest included.
	for k := range live {
		n := open - k*(open/live)
		st := state.New()
		st.Status, st.StartedAt = state.StatusActive, w.now
		st.Engines = []string{"bugbot", "copilot", "coderabbit"}
		st.EngineStates = map[string]state.EngineState{}
		head := w.fake.HeadSHA("octo", "app", n)
		st.LastObservedSHA = head
		for _, e := range st.Engines {
			st.EngineStates[e] = state.EngineState{TriggeredSHA: head, TriggeredAt: w.now, WaitSHA: head, WaitSince: w.now}
		}
		w.addOurState(n, "status", st)
		if err := w.fake.AddLabel("octo", "app", n, LiveLabel); err != nil {
			b.Fatal(err)
		}
		r.live = append(r.live, n)
	}
	slices.Sort(r.live)
	return r
}

// engineEvent is an engine's completed check run naming the PR: the wake
// GitHub delivers when a review engine finishes.
func engineEvent(pr int, head string) map[string]any {
	return map[string]any{
		"action": "completed",
		"check_run": map[string]any{"id": 1, "name": "Cursor Bugbot", "head_sha": head, "status": "completed", "conclusion": "neutral",
			"app":           map[string]any{"slug": "cursor"},
			"pull_requests": []any{map[string]any{"number": pr, "head": map[string]any{"ref": "x", "sha": head}, "base": map[string]any{"ref": "main"}}}},
		"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":     map[string]any{"login": "cursor[bot]", "type": "Bot"},
	}
}

// actionRequests counts the fake's logged requests made by the action's token.
func actionRequests(f *ghfake.Fake) int {
	rest, gql, free := actionCharges(f)
	return rest + gql + free
}

// actionCharges splits them by budget: REST requests and GraphQL points
// charged, and the free GET /rate_limit reads.
func actionCharges(f *ghfake.Fake) (rest, gql, free int) {
	for _, q := range f.Requests() {
		switch {
		case q.Login != "github-actions":
		case q.Path == "/rate_limit":
			free++
		case q.Path == "/graphql":
			gql++
		default:
			rest++
		}
	}
	return rest, gql, free
}

// BenchmarkSweep measures the scheduled sweep's own requests against the
// number of open PRs, with 5 live loops: flat in open PRs (one GraphQL read)
// and one dispatch per live loop.
func BenchmarkSweep(b *testing.B) {
	for _, open := range []int{10, 100, 300} {
		b.Run(fmt.Sprintf("open=%d", open), func(b *testing.B) {
			r := newBusyRepo(b, open, 5)
			b.ResetTimer()
			total := 0
			for range b.N {
				r.fake.ResetRequests()
				if _, err := r.cycle("schedule", schedulePayload, nil); err != nil {
					b.Fatal(err)
				}
				total += actionRequests(r.fake)
			}
			b.ReportMetric(float64(total)/float64(b.N), "requests/sweep")
		})
	}
}

// BenchmarkBusyRepository simulates a day on a busy repository: 300 open
// PRs, 20 live loops each waiting on 3 engines, every engine delivering
// an event per loop per hour (60 engine wakes an hour), and the sweep
// every 30 minutes dispatching one run per live loop. Loops are kept live
// all day (bounds raised) so the figure is the steady state. It reports
// the action's API requests per hour (peak and mean) against GITHUB_TOKEN's
// 1,000, the largest gap between two cycles of any loop, and the fewest
// cycles any loop got (starvation: 0).
func BenchmarkBusyRepository(b *testing.B) {
	const (
		open, live, engineCount = 300, 20, 3
		day                     = 24 * time.Hour
		sweepEvery              = 30 * time.Minute
		step                    = time.Minute
	)
	in := map[string]string{"max-idle-minutes": "100000", "stall-factor": "100000"}
	for range b.N {
		r := newBusyRepo(b, open, live)
		heads := map[int]string{}
		for _, n := range r.live {
			heads[n] = r.fake.HeadSHA("octo", "app", n)
		}
		start := r.now
		lastCycle := map[int]time.Time{}
		cycles := map[int]int{}
		var maxGap time.Duration
		perHour := make([]int, int(day/time.Hour))
		restHour := make([]int, len(perHour))
		gqlHour := make([]int, len(perHour))
		ran := func(res Result) {
			for _, p := range res.PRs {
				if p.Dispatched && p.Plan.Action == "" {
					continue // the sweep's dispatch, not a cycle
				}
				if last, ok := lastCycle[p.PR]; ok && r.now.Sub(last) > maxGap {
					maxGap = r.now.Sub(last)
				}
				lastCycle[p.PR] = r.now
				cycles[p.PR]++
			}
		}
		for _, n := range r.live {
			lastCycle[n] = start
		}
		seen := len(r.fake.Dispatches())
		b.ResetTimer()
		for t := time.Duration(0); t < day; t += step {
			r.now = start.Add(t)
			r.fake.ResetRequests()
			// Engine events: engine e of loop k completes at minute
			// (7k + 20e) of every hour.
			for k, n := range r.live {
				for e := range engineCount {
					if time.Duration((7*k+20*e)%60)*time.Minute == t%time.Hour {
						res, err := r.cycle("check_run", engineEvent(n, heads[n]), in)
						if err != nil {
							b.Fatalf("engine event for #%d at %s: %v", n, t, err)
						}
						ran(res)
					}
				}
			}
			if t%sweepEvery == 0 {
				if _, err := r.cycle("schedule", schedulePayload, in); err != nil {
					b.Fatal(err)
				}
			}
			// Each dispatched run starts a minute later in its own group.
			ds := r.fake.Dispatches()
			for ; seen < len(ds); seen++ {
				var n int
				fmt.Sscan(fmt.Sprint(ds[seen].Inputs["pr"]), &n)
				res, err := r.cycle("workflow_dispatch", dispatchPayload(n), in)
				if err != nil {
					b.Fatalf("dispatched run for #%d: %v", n, err)
				}
				ran(res)
			}
			rest, gql, free := actionCharges(r.fake)
			h := int(t / time.Hour)
			perHour[h] += rest + gql + free
			restHour[h] += rest
			gqlHour[h] += gql
		}
		b.StopTimer()
		peak, sum, peakREST, peakGQL := 0, 0, 0, 0
		for i, h := range perHour {
			peak, sum = max(peak, h), sum+h
			peakREST, peakGQL = max(peakREST, restHour[i]), max(peakGQL, gqlHour[i])
		}
		fewest := -1
		for _, n := range r.live {
			if fewest < 0 || cycles[n] < fewest {
				fewest = cycles[n]
			}
			if gap := start.Add(day).Sub(lastCycle[n]); gap > maxGap {
				maxGap = gap
			}
		}
		b.ReportMetric(float64(peak), "peak-requests/hour")
		b.ReportMetric(float64(peakREST), "peak-rest/hour")
		b.ReportMetric(float64(peakGQL), "peak-graphql-points/hour")
		b.ReportMetric(float64(sum)/float64(len(perHour)), "mean-requests/hour")
		b.ReportMetric(maxGap.Minutes(), "max-wait-minutes")
		b.ReportMetric(float64(fewest), "fewest-cycles/loop")
		b.ReportMetric(float64(sum)/float64(len(perHour))/float64(live), "requests/hour/loop")
	}
}
