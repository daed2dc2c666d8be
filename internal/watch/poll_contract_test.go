package watch

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/contract"
)

// TestContract_ThePollReadsDescribedOperations: every resource a poll
// reads is a GET operation of GitHub's OpenAPI description, with only
// query parameters it describes (the poller is a client of its own, so
// internal/github's contract test does not see it).
func TestContract_ThePollReadsDescribedOperations(t *testing.T) {
	t.Parallel()
	dir := contract.SharedDir(t)
	b, err := os.ReadFile(filepath.Join(dir, "rest", "api.github.com.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Ref  string `json:"$ref"`
				Name string `json:"name"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Parameters map[string]struct {
				Name string `json:"name"`
			} `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	p := &poller{owner: "octo", repo: "app", number: 7, head: Head{SHA: "0123456789abcdef0123456789abcdef01234567"}}
	res := p.resources()
	if len(res) != 3 {
		t.Fatalf("%d resources, want the PR, its reviews and its head's check runs", len(res))
	}
	for _, r := range res {
		u, err := url.Parse(r)
		if err != nil {
			t.Fatal(err)
		}
		tpl := ""
		for candidate := range doc.Paths {
			if matches(candidate, u.Path) && (tpl == "" || literals(candidate) > literals(tpl)) {
				tpl = candidate
			}
		}
		op, ok := doc.Paths[tpl]["get"]
		if !ok {
			t.Errorf("GET %s is not described", u.Path)
			continue
		}
		var names []string
		for _, prm := range op.Parameters {
			n := prm.Name
			if prm.Ref != "" {
				n = doc.Components.Parameters[strings.TrimPrefix(prm.Ref, "#/components/parameters/")].Name
			}
			names = append(names, n)
		}
		for q := range u.Query() {
			if !slices.Contains(names, q) {
				t.Errorf("GET %s: query parameter %s is not described (%v)", tpl, q, names)
			}
		}
	}
}

// matches reports whether a concrete path fits a described template.
func matches(tpl, path string) bool {
	ts, ps := strings.Split(tpl, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if !strings.HasPrefix(ts[i], "{") && ts[i] != ps[i] {
			return false
		}
	}
	return true
}

func literals(tpl string) int {
	n := 0
	for _, s := range strings.Split(tpl, "/") {
		if !strings.HasPrefix(s, "{") {
			n++
		}
	}
	return n
}
