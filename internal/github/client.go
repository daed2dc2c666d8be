// Package github is the GitHub client review-loop uses: go-github for REST,
// githubv4 for GraphQL, one HTTP stack with rate-limit handling, bounded
// retries of idempotent requests, per-request timeouts and a request counter.
package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofri/go-github-ratelimit/v2/github_ratelimit"
	"github.com/gofri/go-github-ratelimit/v2/github_ratelimit/github_secondary_ratelimit"
	gh "github.com/google/go-github/v62/github"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/review-loop/review-loop/internal/secret"
	"github.com/shurcooL/githubv4"
)

// Options configure a Client. Zero values take the documented defaults.
type Options struct {
	Token      string // GITHUB_TOKEN or an app/PAT token; never logged
	APIURL     string // GITHUB_API_URL; default https://api.github.com
	GraphQLURL string // GITHUB_GRAPHQL_URL; default https://api.github.com/graphql
	// HTTPClient supplies the base transport (default http.DefaultTransport);
	// the client stacks its own layers on top of it.
	HTTPClient *http.Client
	Logger     *slog.Logger  // diagnostics; default discards
	Timeout    time.Duration // per HTTP attempt; default 30s
	MaxRetries int           // retries of idempotent requests on 5xx/timeouts; default 3, negative disables
	// MaxRateLimitWait caps a single rate-limit sleep; a longer wait is not
	// slept but returned as an *APIError with RetryAfter. Default 60s.
	MaxRateLimitWait time.Duration
	// RetryBackoff is the base of the jittered exponential backoff; default 500ms.
	RetryBackoff time.Duration
	UserAgent    string // default "review-loop"
	// MaxPages caps the pages of reviews, and of issue comments, one
	// observation reads; default DefaultMaxPages.
	MaxPages int
	// ConfigFile is the repository's config file, read from the default
	// branch in the observation's own query (Observation.Config); default
	// DefaultConfigFile.
	ConfigFile string
	// Secrets are every secret the run holds: no request that holds one
	// in any form is sent (TB14, seal.go).
	Secrets *secret.Set
}

// DefaultConfigFile is where a repository keeps review-loop's config.
const DefaultConfigFile = ".github/review-loop.yml"

// Counts is how many HTTP requests reached GitHub (retries included).
type Counts struct {
	Reads  int64 // GET/HEAD and GraphQL queries
	Writes int64 // everything else, GraphQL mutations included
	Total  int64
}

// Client talks to one GitHub (github.com or an Enterprise Server).
type Client struct {
	rest   *gh.Client
	gql    *githubv4.Client
	http   *http.Client
	gqlURL string
	log    *slog.Logger
	// maxPages caps the pages of reviews and of issue comments per observation.
	maxPages int
	// configFile is the config file Observe reads (Options.ConfigFile).
	configFile string
	reads      atomic.Int64
	writes     atomic.Int64
	budgets    budgets
	sealed     sealed
}

// New builds a Client from opts.
func New(opts Options) (*Client, error) {
	if opts.APIURL == "" {
		opts.APIURL = "https://api.github.com"
	}
	if opts.GraphQLURL == "" {
		opts.GraphQLURL = strings.TrimSuffix(opts.APIURL, "/") + "/graphql"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 3
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.MaxRateLimitWait <= 0 {
		opts.MaxRateLimitWait = 60 * time.Second
	}
	if opts.RetryBackoff <= 0 {
		opts.RetryBackoff = 500 * time.Millisecond
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "review-loop"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if _, err := url.Parse(opts.GraphQLURL); err != nil {
		return nil, fmt.Errorf("graphql url: %w", err)
	}
	var base http.RoundTripper = http.DefaultTransport
	if opts.HTTPClient != nil && opts.HTTPClient.Transport != nil {
		base = opts.HTTPClient.Transport
	}
	if opts.ConfigFile == "" {
		opts.ConfigFile = DefaultConfigFile
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = DefaultMaxPages
	}
	c := &Client{gqlURL: opts.GraphQLURL, log: opts.Logger, maxPages: opts.MaxPages, configFile: opts.ConfigFile}

	// Bottom up: one attempt on the wire (counted, with its own deadline),
	// bounded retries for idempotent requests, body rewinding for the
	// rate limiter's own retry, rate limits, then auth and logging.
	var rt http.RoundTripper = &attemptTransport{base: base, timeout: opts.Timeout, c: c}
	retry := retryablehttp.NewClient()
	retry.HTTPClient = &http.Client{Transport: rt, CheckRedirect: noRedirect}
	retry.Logger = nil
	retry.RetryMax = opts.MaxRetries
	retry.RetryWaitMin = opts.RetryBackoff
	retry.RetryWaitMax = 16 * opts.RetryBackoff
	retry.CheckRetry = retryPolicy
	retry.Backoff = jitterBackoff
	retry.ErrorHandler = retryablehttp.PassthroughErrorHandler
	rt = &retryablehttp.RoundTripper{Client: retry}
	rt = rewindTransport{base: rt}
	rt = github_ratelimit.New(rt,
		github_secondary_ratelimit.WithSingleSleepLimit(opts.MaxRateLimitWait, nil),
		github_secondary_ratelimit.WithTotalSleepLimit(2*opts.MaxRateLimitWait, nil),
	)
	rt = &authTransport{base: rt, token: opts.Token, ua: opts.UserAgent, log: opts.Logger}
	rt = gqlTransport{base: rt}
	// The client's own token is sealed whatever the caller passed.
	rt = sealTransport{base: rt, secrets: opts.Secrets.With(secret.Named{Input: "the client's token", Value: opts.Token}), c: c}
	c.http = &http.Client{Transport: rt, CheckRedirect: noRedirect}

	rest, err := gh.NewClient(c.http).WithEnterpriseURLs(opts.APIURL, opts.APIURL)
	if err != nil {
		return nil, fmt.Errorf("rest base url: %w", err)
	}
	// WithEnterpriseURLs appends /api/v3/ to hosts other than api.github.com
	// when missing; GITHUB_API_URL is already the full base, so undo that.
	apiBase, err := url.Parse(strings.TrimSuffix(opts.APIURL, "/") + "/")
	if err != nil {
		return nil, fmt.Errorf("rest base url: %w", err)
	}
	rest.BaseURL = apiBase
	rest.UploadURL = apiBase
	c.rest = rest
	c.gql = githubv4.NewEnterpriseClient(opts.GraphQLURL, c.http)
	return c, nil
}

// Requests returns how many requests this client has sent so far.
func (c *Client) Requests() Counts {
	r, w := c.reads.Load(), c.writes.Load()
	return Counts{Reads: r, Writes: w, Total: r + w}
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

type ctxKey int

const callKey ctxKey = 1

// call describes one logical API call, carried in the request context so
// every layer can name it and tell reads from writes.
type call struct {
	op   string // GraphQL root field(s); empty for REST
	read bool
}

func withCall(ctx context.Context, op string, read bool) context.Context {
	return context.WithValue(ctx, callKey, &call{op: op, read: read})
}

func callOf(r *http.Request) *call {
	if c, ok := r.Context().Value(callKey).(*call); ok {
		return c
	}
	return &call{read: r.Method == http.MethodGet || r.Method == http.MethodHead}
}

// authTransport adds the token and user agent and logs each call without
// its headers.
type authTransport struct {
	base  http.RoundTripper
	token string
	ua    string
	log   *slog.Logger
}

func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if t.token != "" {
		r.Header.Set("Authorization", "Bearer "+t.token)
	}
	r.Header.Set("User-Agent", t.ua)
	if r.Header.Get("Accept") == "" {
		r.Header.Set("Accept", "application/vnd.github+json")
	}
	r.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	start := time.Now()
	resp, err := t.base.RoundTrip(r)
	name := r.Method + " " + r.URL.Path
	if c := callOf(r); c.op != "" {
		name = "graphql " + c.op
	}
	if err != nil {
		t.log.Debug("github request failed", "call", name, "error", err.Error(), "duration", time.Since(start))
		return resp, err
	}
	t.log.Debug("github request", "call", name, "status", resp.StatusCode, "duration", time.Since(start))
	return resp, nil
}

// rewindTransport gives each attempt a fresh body, because the rate limiter
// re-sends the same *http.Request after sleeping.
type rewindTransport struct{ base http.RoundTripper }

func (t rewindTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.GetBody != nil && r.Body != nil && r.Body != http.NoBody {
		b, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body = b
	}
	return t.base.RoundTrip(r)
}

// attemptTransport is one request on the wire: counted, with its own
// deadline so a hung attempt can be retried within the caller's deadline.
type attemptTransport struct {
	base    http.RoundTripper
	timeout time.Duration
	c       *Client
}

func (t *attemptTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if callOf(r).read {
		t.c.reads.Add(1)
	} else {
		t.c.writes.Add(1)
	}
	ctx, cancel := context.WithTimeout(r.Context(), t.timeout)
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if resp != nil {
		t.c.budgets.fromHeaders(resp.Header, r.URL.Path)
	}
	if err != nil {
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
			return nil, fmt.Errorf("request timed out after %s: %w", t.timeout, err)
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// retryPolicy retries idempotent calls on transport errors, timeouts and
// 5xx; never a write (a POST that timed out may have been applied).
func retryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	c, _ := ctx.Value(callKey).(*call)
	read := c != nil && c.read
	if resp != nil && resp.Request != nil && c == nil {
		read = resp.Request.Method == http.MethodGet || resp.Request.Method == http.MethodHead
	}
	if !read {
		return false, nil
	}
	if err != nil {
		return true, nil
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true, nil
	}
	return false, nil
}

// jitterBackoff is exponential backoff with full jitter.
func jitterBackoff(lo, hi time.Duration, attempt int, _ *http.Response) time.Duration {
	d := lo << min(attempt, 16)
	if d > hi || d <= 0 {
		d = hi
	}
	return lo/2 + rand.N(d)
}
