package ghfake

import (
	"net/http"
	"strconv"
	"time"
)

// The primary rate limits the fake enforces, per token identity: a
// GITHUB_TOKEN gets 1,000 REST requests per hour per repository, and its
// GraphQL budget is counted separately in points (1,000 per hour per
// repository; a query costs at least 1 point).
// docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api
// ("Primary rate limit for GITHUB_TOKEN in GitHub Actions") and
// docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api.
const (
	DefaultRESTLimit    = 1000
	DefaultGraphQLLimit = 1000
	rateWindowLength    = time.Hour
)

// Resources of the rate limit, as GitHub names them in X-RateLimit-Resource.
const (
	ResourceCore    = "core"
	ResourceGraphQL = "graphql"
)

// RateLimit is one identity's budget for one resource.
type RateLimit struct {
	Limit     int
	Remaining int
	Reset     time.Time
}

type rateWindow struct {
	limit int
	used  int
	reset time.Time
}

func (f *Fake) rateLimitOf(resource string) int {
	if resource == ResourceGraphQL {
		if f.opts.GraphQLLimit > 0 {
			return f.opts.GraphQLLimit
		}
		return DefaultGraphQLLimit
	}
	if f.opts.RESTLimit > 0 {
		return f.opts.RESTLimit
	}
	return DefaultRESTLimit
}

// windowLocked is login's current window for resource; a window starts at
// the first request and resets an hour later, as GitHub's does.
func (f *Fake) windowLocked(login, resource string) *rateWindow {
	if f.rates == nil {
		f.rates = map[string]*rateWindow{}
	}
	k := login + "|" + resource
	now := f.opts.Now()
	w := f.rates[k]
	if w == nil || !now.Before(w.reset) {
		w = &rateWindow{limit: f.rateLimitOf(resource), reset: now.Add(rateWindowLength).Truncate(time.Second)}
		f.rates[k] = w
	}
	return w
}

// charge counts one request (or one GraphQL point) against login's budget
// and writes GitHub's rate-limit headers; exceeded means the budget was
// already spent and the request must be refused.
func (f *Fake) charge(w http.ResponseWriter, login, resource string) (exceeded bool) {
	f.mu.Lock()
	win := f.windowLocked(login, resource)
	exceeded = win.used >= win.limit
	if !exceeded {
		win.used++
	}
	rl := RateLimit{Limit: win.limit, Remaining: win.limit - win.used, Reset: win.reset}
	f.mu.Unlock()
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(rl.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(rl.Remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(rl.Limit-rl.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(rl.Reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", resource)
	return exceeded
}

// RateLimit returns login's current budget for resource (core or graphql).
func (f *Fake) RateLimit(login, resource string) RateLimit {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.windowLocked(login, resource)
	return RateLimit{Limit: w.limit, Remaining: w.limit - w.used, Reset: w.reset}
}

// SetRateRemaining sets how much of login's current budget for resource is
// left, for tests of a repository whose budget other runs have spent.
func (f *Fake) SetRateRemaining(login, resource string, remaining int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.windowLocked(login, resource)
	w.used = max(0, w.limit-remaining)
}

// rateLimitObj is GraphQL's rateLimit object for the viewer: the cost of
// this query (1 point) and what is left after it.
func (e *gqlExec) rateLimitObj() *obj {
	w := e.f.windowLocked(e.viewer.Login, ResourceGraphQL)
	return &obj{typ: "RateLimit", get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "cost":
			return 1, nil
		case "remaining":
			return w.limit - w.used, nil
		case "limit":
			return w.limit, nil
		case "used":
			return w.used, nil
		case "resetAt":
			return ts(w.reset), nil
		case "nodeCount":
			return 0, nil
		}
		return nil, notImplemented("RateLimit", field)
	}}
}

// rateLimited answers a request over the primary budget as GitHub does:
// REST 403 "API rate limit exceeded" with X-RateLimit-Remaining 0; GraphQL
// 200 with an error of type RATE_LIMITED.
func (f *Fake) rateLimited(w http.ResponseWriter, gql bool) {
	if gql {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]any{{"type": "RATE_LIMITED", "message": "API rate limit exceeded for installation."}}})
		return
	}
	writeJSON(w, http.StatusForbidden, map[string]any{"message": "API rate limit exceeded for installation.",
		"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})
}

// https://docs.github.com/en/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user
// Free: it is not charged (ServeHTTP).
func getRateLimit(f *Fake, id Identity, w http.ResponseWriter, _ *http.Request) {
	res := map[string]any{}
	for _, name := range []string{ResourceCore, ResourceGraphQL} {
		rl := f.RateLimit(id.Login, name)
		res[name] = map[string]any{"limit": rl.Limit, "remaining": rl.Remaining, "used": rl.Limit - rl.Remaining, "reset": rl.Reset.Unix()}
	}
	writeJSON(w, http.StatusOK, map[string]any{"resources": res, "rate": res[ResourceCore]})
}
