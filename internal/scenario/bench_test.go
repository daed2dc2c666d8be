package scenario

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"

	"github.com/review-loop/review-loop/internal/sim"
)

// restPoller is the original loop's way of watching engines: every poll
// interval, for each engine, list the PR's reviews, its review comments
// and the head's check runs, page by page. It runs beside the scenario on
// the same fake, so both approaches are measured on the same engine
// behaviour.
type restPoller struct {
	client   *gh.Client
	engines  int
	interval time.Duration
	next     time.Time
	requests int
}

func newRESTPoller(w *sim.World, engines int) *restPoller {
	c, err := gh.NewClient(&http.Client{Transport: tokenTransport{sim.ActionToken}}).WithEnterpriseURLs(w.Fake.URL()+"/", w.Fake.URL()+"/")
	if err != nil {
		panic(err)
	}
	c.BaseURL, _ = c.BaseURL.Parse(w.Fake.URL() + "/")
	return &restPoller{client: c, engines: engines, interval: 30 * time.Second}
}

type tokenTransport struct{ token string }

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

// poll issues every poll due up to the world's current time.
func (p *restPoller) poll(w *sim.World) {
	ctx := context.Background()
	now := w.Now()
	if p.next.IsZero() {
		p.next = now
	}
	for ; !p.next.After(now); p.next = p.next.Add(p.interval) {
		head := w.Fake.HeadSHA(w.Owner, w.Repo, w.Number)
		for e := 0; e < p.engines; e++ {
			for page := 1; page != 0; {
				_, resp, err := p.client.PullRequests.ListReviews(ctx, w.Owner, w.Repo, w.Number, &gh.ListOptions{Page: page, PerPage: 100})
				p.requests++
				if err != nil {
					break
				}
				page = resp.NextPage
			}
			for page := 1; page != 0; {
				_, resp, err := p.client.PullRequests.ListComments(ctx, w.Owner, w.Repo, w.Number, &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{Page: page, PerPage: 100}})
				p.requests++
				if err != nil {
					break
				}
				page = resp.NextPage
			}
			for page := 1; page != 0; {
				_, resp, err := p.client.Checks.ListCheckRunsForRef(ctx, w.Owner, w.Repo, head, &gh.ListCheckRunsOptions{ListOptions: gh.ListOptions{Page: page, PerPage: 100}})
				p.requests++
				if err != nil {
					break
				}
				page = resp.NextPage
			}
		}
	}
}

// BenchmarkLoop plays the main scenarios to their hand-back, reporting the
// API requests per loop (total, reads, writes, per cycle), the most
// triggers any engine got for one SHA (must be 1), and beside them the
// requests the per-engine REST polling approach makes over the same
// virtual time on the same engines.
func BenchmarkLoop(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{
		"w1-three-engines-clean-after-one-fix",
		"t7-alphabetical-retrigger-after-fix",
		"w4-copilot-only-no-comments",
		"b3-stuck-in-progress-hung-after-45-idle-minutes",
	} {
		sc, err := sim.LoadScenario(filepath.Join("..", "..", "testdata", "scenarios", name+".yaml"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var total, reads, writes, cycles, baseline, maxTrig float64
			for i := 0; i < b.N; i++ {
				var poller *restPoller
				opts := Options{Self: []string{self}, OnAdvance: func(w *sim.World) {
					if poller == nil {
						poller = newRESTPoller(w, len(sc.Engines))
					}
					poller.poll(w)
				}}
				res, err := Run(context.Background(), sc, opts)
				if err != nil {
					b.Fatal(err)
				}
				total += float64(res.Requests.Total)
				reads += float64(res.Requests.Reads)
				writes += float64(res.Requests.Writes)
				cycles += float64(res.Cycles)
				if poller != nil {
					baseline += float64(poller.requests + int(res.Requests.Writes))
				}
				for _, shas := range res.Triggers {
					for _, n := range shas {
						maxTrig = max(maxTrig, float64(n))
					}
				}
			}
			n := float64(b.N)
			b.ReportMetric(total/n, "requests/op")
			b.ReportMetric(reads/n, "reads/op")
			b.ReportMetric(writes/n, "writes/op")
			b.ReportMetric(total/cycles, "requests/cycle")
			b.ReportMetric(maxTrig, "max-triggers/engine/sha")
			b.ReportMetric(baseline/n, "rest-polling-requests/op")
		})
	}
}
