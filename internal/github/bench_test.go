package github_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

// countingTransport counts requests for the REST baseline.
type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	r.Header.Set("Authorization", "Bearer "+token)
	return c.base.RoundTrip(r)
}

// restObserve is the per-engine REST observer of the original loop: for
// each engine, list reviews, list review comments and list check runs,
// following every page.
func restObserve(ctx context.Context, c *gh.Client, owner, repo string, number int, sha string, engines []string) (int, error) {
	total := 0
	for range engines {
		opt := &gh.ListOptions{PerPage: 100}
		for {
			rs, resp, err := c.PullRequests.ListReviews(ctx, owner, repo, number, opt)
			if err != nil {
				return 0, err
			}
			total += len(rs)
			if resp.NextPage == 0 {
				break
			}
			opt.Page = resp.NextPage
		}
		copt := &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
		for {
			cs, resp, err := c.PullRequests.ListComments(ctx, owner, repo, number, copt)
			if err != nil {
				return 0, err
			}
			total += len(cs)
			if resp.NextPage == 0 {
				break
			}
			copt.Page = resp.NextPage
		}
		ropt := &gh.ListCheckRunsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
		for {
			rs, resp, err := c.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, ropt)
			if err != nil {
				return 0, err
			}
			total += len(rs.CheckRuns)
			if resp.NextPage == 0 {
				break
			}
			ropt.Page = resp.NextPage
		}
	}
	return total, nil
}

func BenchmarkObserve(b *testing.B) {
	engines := []string{"cursor", "copilot-pull-request-reviewer", "claude"}
	for _, threads := range []int{10, 100, 1000} {
		f := ghfake.New(ghfake.Options{})
		b.Cleanup(f.Close)
		f.AddToken(token, ghfake.Identity{Login: "github-actions", Bot: true})
		if err := f.AddRepo("o", "r", "main"); err != nil {
			b.Fatal(err)
		}
		n, err := f.CreatePR("o", "r", ghfake.PROptions{Head: "feat"})
		if err != nil {
			b.Fatal(err)
		}
		for i, eng := range engines {
			f.AddUser(eng, 0, true)
			rid, _ := f.AddReview("o", "r", n, ghfake.ReviewOptions{Author: eng})
			for j := i; j < threads; j += len(engines) {
				f.AddReviewComment("o", "r", n, ghfake.CommentOptions{Author: eng, Body: fmt.Sprintf("finding %d", j), Path: "main.go", Line: j%50 + 1, ReviewID: rid})
			}
			f.SetCheckRun("o", "r", n, ghfake.CheckRunOptions{Name: eng, AppSlug: eng, Conclusion: "NEUTRAL"})
		}
		sha := f.HeadSHA("o", "r", n)
		ctx := context.Background()
		var gqlPerOp float64
		b.Run(fmt.Sprintf("threads=%d/graphql", threads), func(b *testing.B) {
			c, err := github.New(github.Options{Token: token, APIURL: f.URL(), GraphQLURL: f.GraphQLURL(), Timeout: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				o, err := c.Observe(ctx, "o", "r", n)
				if err != nil || len(o.Threads) != threads {
					b.Fatalf("observe: %v", err)
				}
			}
			gqlPerOp = float64(c.Requests().Total) / float64(b.N)
			b.ReportMetric(gqlPerOp, "requests/op")
		})
		b.Run(fmt.Sprintf("threads=%d/rest-per-engine", threads), func(b *testing.B) {
			ct := &countingTransport{base: http.DefaultTransport}
			rc, err := gh.NewClient(&http.Client{Transport: ct}).WithEnterpriseURLs(f.URL()+"/", f.URL()+"/")
			if err != nil {
				b.Fatal(err)
			}
			rc.BaseURL, _ = rc.BaseURL.Parse(f.URL() + "/")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := restObserve(ctx, rc, "o", "r", n, sha, engines); err != nil {
					b.Fatal(err)
				}
			}
			rest := float64(ct.n.Load()) / float64(b.N)
			b.ReportMetric(rest, "requests/op")
			if gqlPerOp > 0 {
				b.ReportMetric(rest/gqlPerOp, "x-graphql-requests")
			}
		})
	}
}
