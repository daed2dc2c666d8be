package github

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// RateBudget is one API budget as GitHub last reported it.
type RateBudget struct {
	// Resource is GitHub's name for it: core (REST), graphql, search...
	Resource  string
	Limit     int
	Remaining int
	Reset     time.Time
}

// budgets holds the latest budget per resource, from every response.
type budgets struct {
	mu sync.Mutex
	m  map[string]RateBudget
}

func (b *budgets) set(rb RateBudget) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]RateBudget{}
	}
	b.m[rb.Resource] = rb
}

// fromHeaders reads X-RateLimit-Limit, -Remaining, -Reset and -Resource,
// which GitHub sends on every REST and GraphQL response; a response
// without them (a proxy's error page) changes nothing.
// https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#checking-the-status-of-your-rate-limit
func (b *budgets) fromHeaders(h http.Header, path string) {
	limit, err1 := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	reset, err3 := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return
	}
	res := strings.ToLower(h.Get("X-RateLimit-Resource"))
	if res == "" {
		res = "core"
		if strings.HasSuffix(path, "/graphql") {
			res = "graphql"
		}
	}
	b.set(RateBudget{Resource: res, Limit: limit, Remaining: remaining, Reset: time.Unix(reset, 0).UTC()})
}

// rateLimitQ is GraphQL's rateLimit object, asked for in the observation.
// https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#returning-the-status-of-your-primary-rate-limit
type rateLimitQ struct {
	Cost      int
	Limit     int
	Remaining int
	ResetAt   time.Time
}

func (c *Client) recordGraphQLRateLimit(q *rateLimitQ) {
	if q == nil || q.Limit == 0 {
		return
	}
	c.budgets.set(RateBudget{Resource: "graphql", Limit: q.Limit, Remaining: q.Remaining, Reset: q.ResetAt.UTC()})
}

// RateLimit returns the latest budget GitHub reported for resource (core
// or graphql); ok is false before any response carried one.
func (c *Client) RateLimit(resource string) (RateBudget, bool) {
	c.budgets.mu.Lock()
	defer c.budgets.mu.Unlock()
	rb, ok := c.budgets.m[resource]
	return rb, ok
}

// ReadRateLimits reads the REST and GraphQL budgets in one request that
// GitHub does not count against them, so a run knows both before its
// first decision (B7).
// https://docs.github.com/en/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user
func (c *Client) ReadRateLimits(ctx context.Context) error {
	rl, resp, err := c.rest.RateLimit.Get(ctx)
	if err != nil {
		return fmt.Errorf("reading the rate limits: %w", restErr("GET /rate_limit", resp, err))
	}
	for name, r := range map[string]*gh.Rate{"core": rl.GetCore(), "graphql": rl.GetGraphQL()} {
		if r != nil && r.Limit > 0 {
			c.budgets.set(RateBudget{Resource: name, Limit: r.Limit, Remaining: r.Remaining, Reset: r.Reset.Time.UTC()})
		}
	}
	return nil
}
