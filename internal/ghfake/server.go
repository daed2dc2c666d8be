package ghfake

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Fault is a scripted failure. Match is "METHOD /path" (exact path, no query
// string), "METHOD /path*" (every path starting with /path),
// "graphql:<root field>" (e.g. "graphql:resolveReviewThread",
// "graphql:repository") or "*".
type Fault struct {
	Match string
	// Status answers with this status and Message instead of serving the
	// request; 0 serves it normally (after Delay and Before).
	Status int
	// Times is how many matching requests the fault affects; 0 means all.
	Times int
	// Delay holds the request before answering (or until the client gives up).
	Delay time.Duration
	// RetryAfter sets the Retry-After header, in seconds.
	RetryAfter int
	// Message is the error message; 403/429 default to GitHub's secondary
	// rate limit message.
	Message string
	// Body replaces the whole response body (e.g. malformed JSON), with
	// Status (default 200).
	Body string
	// GraphQLErrors are added to a normally served GraphQL answer
	// (partial data), each with GraphQLErrorType (e.g. FORBIDDEN).
	GraphQLErrors    []string
	GraphQLErrorType string
	// Before runs before the request is served, e.g. to edit a comment
	// between a client's read and its write.
	Before func()

	hits int
}

// Inject adds a fault; faults are tried in the order added.
func (f *Fake) Inject(fault Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := fault
	f.faults = append(f.faults, &fc)
}

// ClearFaults removes every fault.
func (f *Fake) ClearFaults() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = nil
}

func (f *Fake) matchFault(method, path string, roots []string) *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ft := range f.faults {
		if ft.Times > 0 && ft.hits >= ft.Times {
			continue
		}
		// "METHOD /path*" matches every path that starts with /path: a
		// compare of commits not known when the fault is set, say.
		prefix, wild := strings.CutSuffix(ft.Match, "*")
		ok := ft.Match == "*" || ft.Match == method+" "+path || (wild && prefix != "" && strings.HasPrefix(method+" "+path, prefix))
		if name, isGQL := strings.CutPrefix(ft.Match, "graphql:"); isGQL && slices.Contains(roots, name) {
			ok = true
		}
		if ok {
			ft.hits++
			c := *ft
			return &c
		}
	}
	return nil
}

type statusWriter struct {
	http.ResponseWriter
	status int
	// started, when set, is called once with the status, before the
	// first byte of the answer is passed on.
	started func(status int)
}

func (w *statusWriter) start(s int) {
	if w.status == 0 {
		w.status = s
		if w.started != nil {
			w.started(s)
		}
	}
}

func (w *statusWriter) WriteHeader(s int) {
	w.start(s)
	w.ResponseWriter.WriteHeader(s)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.start(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

type gqlRequest struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables"`
	OperationName string         `json:"operationName"`
}

// ServeHTTP serves the REST and GraphQL API, and git's smart HTTP
// protocol at each repository's HTTPCloneURL (githttp.go).
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rt, ok := f.matchGit(r); ok {
		f.serveGit(w, r, rt)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	entry := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	var gq gqlRequest
	isGQL := r.URL.Path == "/graphql" || r.URL.Path == "/api/graphql"
	var roots []string
	if r.Body != nil && r.Body != http.NoBody {
		// Kept for the tests that look at every byte a client sent (TB14).
		entry.Body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(entry.Body))
	}
	if isGQL && r.Method == http.MethodPost {
		body := entry.Body
		if json.Unmarshal(body, &gq) == nil {
			if doc, err := parser.ParseQuery(&ast.Source{Input: gq.Query}); err == nil && len(doc.Operations) > 0 {
				op := doc.Operations[0]
				entry.Operation = string(op.Operation)
				for _, s := range op.SelectionSet {
					if fl, ok := s.(*ast.Field); ok {
						roots = append(roots, fl.Name)
					}
				}
				entry.GraphQL = strings.Join(roots, ",")
			}
		}
	}
	id, ok := f.identity(r)
	entry.Login, entry.ReadOnly = id.Login, id.ReadOnly
	resource := ResourceCore
	if isGQL {
		resource = ResourceGraphQL
	}
	// GET /rate_limit does not count against the primary rate limit
	// (docs.github.com/en/rest/rate-limit/rate-limit).
	overBudget := ok && r.URL.Path != "/rate_limit" && f.charge(sw, id.Login, resource)
	// The request is logged as its answer starts, before a byte of it
	// leaves (a large answer is flushed while it is written): a client
	// that has its answer always finds its request counted. A handler
	// that answers nothing (a client that left) is logged as it returns.
	logged := false
	record := func(status int) {
		logged = true
		entry.Status = status
		entry.NotModified = entry.NotModified || status == http.StatusNotModified
		f.logMu.Lock()
		f.log = append(f.log, entry)
		f.logMu.Unlock()
	}
	sw.started = record
	defer func() {
		if !logged {
			record(sw.status)
		}
	}()
	if ft := f.matchFault(r.Method, r.URL.Path, roots); ft != nil {
		if ft.Delay > 0 {
			// The server notices a client that gave up only once the
			// request body is read (net/http watches the connection
			// after that): read it first, as GitHub does before it
			// answers, so a held request ends when its client leaves.
			if !isGQL && r.Body != nil {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			select {
			case <-time.After(ft.Delay):
			case <-r.Context().Done():
				sw.status = 499
				return
			}
		}
		if ft.Before != nil {
			ft.Before()
		}
		if ft.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(ft.RetryAfter))
		}
		if ft.Body != "" {
			st := ft.Status
			if st == 0 {
				st = http.StatusOK
			}
			w.Header().Set("Content-Type", "application/json")
			sw.WriteHeader(st)
			_, _ = io.WriteString(sw, ft.Body)
			return
		}
		if ft.Status != 0 {
			msg := ft.Message
			doc := "https://docs.github.com/rest"
			if msg == "" {
				switch ft.Status {
				case http.StatusForbidden, http.StatusTooManyRequests:
					msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
					doc = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
				default:
					msg = http.StatusText(ft.Status)
				}
			}
			writeJSON(sw, ft.Status, map[string]any{"message": msg, "documentation_url": doc})
			return
		}
		if isGQL && len(ft.GraphQLErrors) > 0 {
			if !ok {
				unauthorized(sw)
				return
			}
			f.serveGraphQL(sw, id, gq, ft)
			return
		}
	}
	if !ok {
		unauthorized(sw)
		return
	}
	if overBudget {
		f.rateLimited(sw, isGQL)
		return
	}
	if id.ReadOnly && ((isGQL && entry.Operation == "mutation") || (!isGQL && r.Method != http.MethodGet && r.Method != http.MethodHead)) {
		writeJSON(sw, http.StatusForbidden, map[string]any{"message": permissionMessage, "documentation_url": "https://docs.github.com/rest"})
		return
	}
	if isGQL {
		if r.Method != http.MethodPost {
			writeJSON(sw, http.StatusNotFound, map[string]any{"message": "Not Found"})
			return
		}
		f.serveGraphQL(sw, id, gq, nil)
		return
	}
	if r.Method == http.MethodGet {
		entry.NotModified = f.serveConditional(sw, r, id, resource)
		return
	}
	f.serveREST(sw, r, id)
}

func unauthorized(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
}

func (f *Fake) identity(r *http.Request) (Identity, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	auth := r.Header.Get("Authorization")
	tok := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(auth, "Bearer "), "token "))
	if len(f.tokens) == 0 {
		return f.viewer, true
	}
	id, ok := f.tokens[tok]
	return id, ok
}
