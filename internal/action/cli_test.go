package action_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/cli"
)

// The commands that read a loop, run against the cycle's test world (a
// fake GitHub with one PR and a checkout, lent by export_test.go).

func TestStatusCommand_printsTheLoopWithoutWriting(t *testing.T) {
	t.Parallel()
	w := action.NewWorld(t, nil)
	if _, err := w.Cycle("workflow_dispatch", action.DispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	w.Fake().ResetRequests()
	var stdout, stderr bytes.Buffer
	env := cli.Env{
		Getenv: func(k string) string {
			return map[string]string{"GH_TOKEN": action.ActionToken, "GITHUB_API_URL": w.Fake().URL(), "GITHUB_GRAPHQL_URL": w.Fake().GraphQLURL()}[k]
		},
		Stdout: &stdout, Stderr: &stderr,
	}
	if code := cli.Main(context.Background(), []string{"status", "--repo", "octo/app", "--pr", "1"}, env); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"copilot", "run-start"} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	if ws := action.Writes(w.Fake()); len(ws) != 0 {
		t.Errorf("status wrote: %+v", ws)
	}
}

// TestPlan_ReadsARealPRAndWritesNothing: `review-loop plan owner/repo#N`
// prints the next cycle's decision and sends no write request.
func TestPlan_ReadsARealPRAndWritesNothing(t *testing.T) {
	t.Parallel()
	w := action.NewWorld(t, nil)
	w.Fake().ResetRequests()
	var out, errOut bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		return map[string]string{"GH_TOKEN": action.ActionToken, "GITHUB_API_URL": w.Fake().URL(), "GITHUB_GRAPHQL_URL": w.Fake().GraphQLURL(),
			"GITHUB_SERVER_URL": w.Fake().URL(), "INPUT_ENGINES": "copilot"}[k]
	}}
	if code := cli.Main(context.Background(), []string{"plan", "octo/app#1"}, env); code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"octo/app#1: the next cycle would trigger", "would trigger: copilot", "Nothing was written"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, r := range w.Fake().Requests() {
		if r.Method != http.MethodGet && r.Operation != "query" {
			t.Errorf("plan sent a write: %+v", r)
		}
	}
	if code := cli.Main(context.Background(), []string{"plan", "octo/app"}, env); code != cli.ExitUsage {
		t.Errorf("plan without #N: exit %d, want %d", code, cli.ExitUsage)
	}
}
