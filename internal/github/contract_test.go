package github_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/review-loop/review-loop/internal/contract"
	"github.com/review-loop/review-loop/internal/ghfake"
)

// newerThanDescription are operations GitHub documents that the bundled
// OpenAPI description predates. Nothing else may bypass validation.
var newerThanDescription = map[string]string{
	// https://docs.github.com/en/rest/pulls/pulls?apiVersion=2026-03-10 (request a Copilot code review)
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/copilot-code-review": "https://docs.github.com/en/rest/pulls/pulls",
}

type exchange struct {
	method, url string
	reqHeader   http.Header
	reqBody     []byte
	status      int
	respHeader  http.Header
	respBody    []byte
}

// recorder is a transport that keeps every request the client sends and
// every answer the fake gives, for contract checks.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	ex   []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	rb, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(rb))
	if rerr != nil {
		return resp, nil
	}
	r.mu.Lock()
	r.ex = append(r.ex, exchange{req.Method, req.URL.String(), req.Header.Clone(), body, resp.StatusCode, resp.Header.Clone(), rb})
	r.mu.Unlock()
	return resp, nil
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.ex...)
}

var (
	openapiOnce   sync.Once
	openapiSpec   *openAPISpec
	openapiErr    error
	gqlSchemaOnce sync.Once
	gqlSchema     *ast.Schema
	gqlSchemaErr  error
)

// openAPISpec holds GitHub's description as raw JSON and builds a
// kin-openapi router per path template on demand, with only the
// components that path reaches: resolving the whole 13 MB document takes
// seconds, one path a few milliseconds.
type openAPISpec struct {
	openapi json.RawMessage
	info    json.RawMessage
	paths   map[string]json.RawMessage
	comps   map[string]map[string]json.RawMessage
	mu      sync.Mutex
	routers map[string]routers.Router
}

func loadOpenAPI(t testing.TB) *openAPISpec {
	dir := contract.SharedDir(t)
	openapiOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(dir, "rest", "api.github.com.json"))
		if err != nil {
			openapiErr = err
			return
		}
		// One pass over the document: the parts the routers are built
		// from, the rest skipped.
		var doc struct {
			OpenAPI    json.RawMessage                       `json:"openapi"`
			Info       json.RawMessage                       `json:"info"`
			Paths      map[string]json.RawMessage            `json:"paths"`
			Components map[string]map[string]json.RawMessage `json:"components"`
		}
		openapiErr = json.Unmarshal(b, &doc)
		openapiSpec = &openAPISpec{openapi: doc.OpenAPI, info: doc.Info, paths: doc.Paths, comps: doc.Components, routers: map[string]routers.Router{}}
	})
	if openapiErr != nil {
		t.Fatalf("loading OpenAPI description: %v", openapiErr)
	}
	return openapiSpec
}

// template finds the described path matching a concrete path, preferring
// literal segments over parameters.
// A final parameter marked x-multi-segment (the contents API's {path})
// takes the rest of the path.
func (s *openAPISpec) template(path string) string {
	best, bestLit := "", -1
	qs := strings.Split(path, "/")
	for tpl := range s.paths {
		ps := strings.Split(tpl, "/")
		if len(ps) != len(qs) && (len(qs) < len(ps) || !s.multiSegment(tpl)) {
			continue
		}
		lit, ok := 0, true
		for i := range ps {
			switch {
			case strings.HasPrefix(ps[i], "{"):
			case ps[i] == qs[i]:
				lit++
			default:
				ok = false
			}
		}
		if ok && lit > bestLit {
			best, bestLit = tpl, lit
		}
	}
	return best
}

var multiSegmentRE = regexp.MustCompile(`"x-multi-segment":\s*true`)

// multiSegment reports whether tpl's last segment is a parameter that
// spans segments (x-multi-segment).
func (s *openAPISpec) multiSegment(tpl string) bool {
	ps := strings.Split(tpl, "/")
	return strings.HasPrefix(ps[len(ps)-1], "{") && multiSegmentRE.Match(s.paths[tpl])
}

var refRE = regexp.MustCompile(`"#/components/([a-z-]+)/([^"]+)"`)

func (s *openAPISpec) router(tpl string) (routers.Router, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.routers[tpl]; ok {
		return r, nil
	}
	comps := map[string]map[string]json.RawMessage{}
	queue := []json.RawMessage{s.paths[tpl]}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, m := range refRE.FindAllSubmatch(cur, -1) {
			kind, name := string(m[1]), string(m[2])
			if comps[kind] == nil {
				comps[kind] = map[string]json.RawMessage{}
			}
			if _, seen := comps[kind][name]; seen {
				continue
			}
			v := s.comps[kind][name]
			comps[kind][name] = v
			queue = append(queue, v)
		}
	}
	doc := map[string]any{"openapi": s.openapi, "info": s.info,
		"servers": []any{map[string]any{"url": "https://api.github.com"}},
		"paths":   map[string]json.RawMessage{tpl: s.paths[tpl]}, "components": comps}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	d, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", tpl, err)
	}
	r, err := gorillamux.NewRouter(d)
	if err != nil {
		return nil, err
	}
	s.routers[tpl] = r
	return r, nil
}

func loadGraphQLSchema(t testing.TB) *ast.Schema {
	dir := contract.SharedDir(t)
	gqlSchemaOnce.Do(func() {
		gqlSchema, gqlSchemaErr = ghfake.LoadSchema(contract.GraphQLSchema(dir))
	})
	if gqlSchemaErr != nil {
		t.Fatalf("loading GraphQL schema: %v", gqlSchemaErr)
	}
	return gqlSchema
}

// assertContract checks every exchange recorded so far: REST requests and
// 2xx responses against the OpenAPI description, GraphQL documents against
// the public schema.
func assertContract(t *testing.T, rec *recorder) {
	t.Helper()
	spec := loadOpenAPI(t)
	schema := loadGraphQLSchema(t)
	for _, ex := range rec.exchanges() {
		u, _ := url.Parse(ex.url)
		if u.Path == "/graphql" {
			var in struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(ex.reqBody, &in); err != nil {
				t.Errorf("graphql request body: %v", err)
				continue
			}
			if _, errs := gqlparser.LoadQueryWithRules(schema, in.Query, nil); len(errs) > 0 {
				t.Errorf("graphql document does not validate against GitHub's schema: %v\n%s", errs, in.Query)
			}
			continue
		}
		gu := *u
		gu.Scheme, gu.Host = "https", "api.github.com"
		gu.RawQuery = searchDateQuery(gu.Query()).Encode()
		req, _ := http.NewRequest(ex.method, gu.String(), bytes.NewReader(ex.reqBody))
		req.Header = ex.reqHeader.Clone()
		tpl := spec.template(u.Path)
		if tpl == "" {
			if allowed(ex.method, u.Path) {
				continue
			}
			t.Errorf("%s %s: not in GitHub's OpenAPI description", ex.method, u.Path)
			continue
		}
		router, err := spec.router(tpl)
		if err != nil {
			t.Errorf("%s: %v", tpl, err)
			continue
		}
		var tail, tailName string
		if spec.multiSegment(tpl) {
			// The router takes {path} as one segment: route on a
			// one-segment stand-in, validate with the real value.
			ps, qs := strings.Split(tpl, "/"), strings.Split(gu.Path, "/")
			tailName = strings.Trim(ps[len(ps)-1], "{}")
			tail = strings.Join(qs[len(ps)-1:], "/")
			ru := gu
			ru.Path = strings.Join(append(qs[:len(ps)-1:len(ps)-1], "x"), "/")
			req.URL = &ru
		}
		route, params, err := router.FindRoute(req)
		if err == nil && tailName != "" {
			params[tailName] = tail
		}
		if err != nil {
			if allowed(ex.method, u.Path) {
				continue
			}
			t.Errorf("%s %s: not in GitHub's OpenAPI description: %v", ex.method, u.Path, err)
			continue
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("%s %s: request does not validate: %v", ex.method, u.Path, err)
		}
		if ex.status < 200 || ex.status > 299 {
			continue
		}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: ex.status, Header: ex.respHeader,
			Body: io.NopCloser(bytes.NewReader(ex.respBody)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("%s %s: fake's %d response does not validate: %v", ex.method, u.Path, ex.status, truncate(err.Error()))
		}
	}
}

// searchDateParams are query parameters GitHub documents in its search
// date syntax (">=2026-10-01T09:00:00Z", "A..B"; docs.github.com,
// "Understanding the search syntax", query for dates) while the bundled
// description types them as a bare date-time. The operator is checked
// here and stripped, so each bound still validates as a date-time.
var searchDateParams = []string{"created"}

func searchDateQuery(q url.Values) url.Values {
	for _, p := range searchDateParams {
		v := q.Get(p)
		if v == "" {
			continue
		}
		lo, _, _ := strings.Cut(v, "..")
		for _, op := range []string{">=", "<=", ">", "<"} {
			if rest, ok := strings.CutPrefix(lo, op); ok {
				lo = rest
				break
			}
		}
		q.Set(p, lo)
	}
	return q
}

func truncate(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

func allowed(method, path string) bool {
	for op := range newerThanDescription {
		m, p, _ := strings.Cut(op, " ")
		if m != method {
			continue
		}
		ps, qs := strings.Split(p, "/"), strings.Split(path, "/")
		if len(ps) != len(qs) {
			continue
		}
		ok := true
		for i := range ps {
			if !strings.HasPrefix(ps[i], "{") && ps[i] != qs[i] {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
