package action

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestPlan_ReadsARealPRAndWritesNothing: `review-loop plan owner/repo#N`
// prints the next cycle's decision and sends no write request.
func TestPlan_ReadsARealPRAndWritesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.fake.ResetRequests()
	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		return map[string]string{"GH_TOKEN": actionToken, "GITHUB_API_URL": w.fake.URL(), "GITHUB_GRAPHQL_URL": w.fake.GraphQLURL(),
			"GITHUB_SERVER_URL": w.fake.URL(), "INPUT_ENGINES": "copilot"}[k]
	}}
	if code := Main(context.Background(), []string{"plan", "octo/app#1"}, env); code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"octo/app#1: the next cycle would trigger", "would trigger: copilot", "Nothing was written"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, r := range w.fake.Requests() {
		if r.Method != http.MethodGet && r.Operation != "query" {
			t.Errorf("plan sent a write: %+v", r)
		}
	}
	if code := Main(context.Background(), []string{"plan", "octo/app"}, env); code != ExitUsage {
		t.Errorf("plan without #N: exit %d, want %d", code, ExitUsage)
	}
}
