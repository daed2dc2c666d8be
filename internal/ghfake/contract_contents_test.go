package ghfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/review-loop/review-loop/internal/contract"
)

var componentRef = regexp.MustCompile(`"#/components/([a-z-]+)/([^"]+)"`)

// openAPIDescription is GitHub's OpenAPI description split into its top
// level, its paths and its components, decoded once per test process:
// the 13 MB document took a third of a second to decode for each
// operation a test reads. describedOperation copies what it takes.
type openAPIDescription struct {
	raw   map[string]json.RawMessage
	paths map[string]json.RawMessage
	comps map[string]map[string]json.RawMessage
}

var (
	openAPIOnce sync.Once
	openAPI     openAPIDescription
	openAPIErr  error
)

// openAPIParts decodes the description under dir the first time it is
// asked for; dir is the same for every test of a process.
func openAPIParts(dir string) (openAPIDescription, error) {
	openAPIOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(dir, "rest", "api.github.com.json"))
		if err != nil {
			openAPIErr = err
			return
		}
		var d openAPIDescription
		if err := json.Unmarshal(b, &d.raw); err != nil {
			openAPIErr = err
			return
		}
		if err := json.Unmarshal(d.raw["paths"], &d.paths); err != nil {
			openAPIErr = err
			return
		}
		if err := json.Unmarshal(d.raw["components"], &d.comps); err != nil {
			openAPIErr = err
			return
		}
		openAPI = d
	})
	return openAPI, openAPIErr
}

// describedOperation loads one path of GitHub's OpenAPI description with
// only the components it reaches (the whole document takes seconds to
// resolve, one path milliseconds).
func describedOperation(t *testing.T, tpl string) *openapi3.T {
	t.Helper()
	desc, err := openAPIParts(contract.SharedDir(t))
	if err != nil {
		t.Fatal(err)
	}
	raw, paths, comps := desc.raw, desc.paths, desc.comps
	if paths[tpl] == nil {
		t.Fatalf("%s is not in GitHub's OpenAPI description", tpl)
	}
	used := map[string]map[string]json.RawMessage{}
	queue := []json.RawMessage{paths[tpl]}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, m := range componentRef.FindAllSubmatch(cur, -1) {
			kind, name := string(m[1]), string(m[2])
			if used[kind] == nil {
				used[kind] = map[string]json.RawMessage{}
			}
			if _, seen := used[kind][name]; seen {
				continue
			}
			used[kind][name] = comps[kind][name]
			queue = append(queue, comps[kind][name])
		}
	}
	doc, err := json.Marshal(map[string]any{"openapi": raw["openapi"], "info": raw["info"],
		"servers": []any{map[string]any{"url": "https://api.github.com"}},
		"paths":   map[string]json.RawMessage{tpl: paths[tpl]}, "components": used})
	if err != nil {
		t.Fatal(err)
	}
	d, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		t.Fatalf("loading %s: %v", tpl, err)
	}
	return d
}

// TestContents_AnswersMatchGitHubsDescription checks the fake's contents
// answers (file, directory, 404) against operation repos/get-content of
// GitHub's OpenAPI description.
func TestContents_AnswersMatchGitHubsDescription(t *testing.T) {
	d := describedOperation(t, "/repos/{owner}/{repo}/contents/{path}")
	router, err := gorillamux.NewRouter(d)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := richContentsFixture(t)
	for _, c := range []struct {
		path, ref string
		status    int
	}{{".github/review-loop.yml", "", 200}, {".github/review-loop.yml", "feature", 200}, {".github", "", 200}, {"README.md", "main", 200},
		{"link.yml", "feature", 200}, {"vendor/lib", "feature", 200}, {"vendor", "feature", 200}, {"big.txt", "feature", 200}, {"nope.yml", "", 404}} {
		status, body := getContents(t, f, c.path, c.ref)
		if status != c.status {
			t.Fatalf("%s at %q: status %d, want %d: %s", c.path, c.ref, status, c.status, body)
		}
		// The description's {path} is one router segment though
		// x-multi-segment: route on a one-segment stand-in, validate with
		// the real path.
		req, _ := http.NewRequest(http.MethodGet, "https://api.github.com/repos/octo/demo/contents/x?ref="+c.ref, nil)
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatal(err)
		}
		if route.Operation.OperationID != "repos/get-content" {
			t.Fatalf("operation %s", route.Operation.OperationID)
		}
		params["path"] = c.path
		if c.ref == "" {
			req.URL.RawQuery = ""
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Fatalf("request does not validate: %v", err)
		}
		hdr := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: hdr,
			Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("%s at %q: the fake's %d answer does not validate: %v\n%s", c.path, c.ref, status, err, body)
		}
	}
}
