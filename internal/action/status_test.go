package action

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestStatusCommand_printsTheLoopWithoutWriting(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	w.fake.ResetRequests()
	var stdout, stderr bytes.Buffer
	env := Env{
		Getenv: func(k string) string {
			return map[string]string{"GH_TOKEN": actionToken, "GITHUB_API_URL": w.fake.URL(), "GITHUB_GRAPHQL_URL": w.fake.GraphQLURL()}[k]
		},
		Stdout: &stdout, Stderr: &stderr,
	}
	if code := Main(context.Background(), []string{"status", "--repo", "octo/app", "--pr", "1"}, env); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"copilot", "run-start"} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	if ws := writes(w.fake); len(ws) != 0 {
		t.Errorf("status wrote: %+v", ws)
	}
}

func TestMain_usageAndVersion(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	env := Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errb, Version: "v1.2.3"}
	if code := Main(context.Background(), []string{"version"}, env); code != ExitOK || !strings.Contains(out.String(), "v1.2.3") {
		t.Errorf("version: %d %q", code, out.String())
	}
	if code := Main(context.Background(), []string{"frobnicate"}, env); code != ExitUsage {
		t.Errorf("unknown command exit %d, want %d", code, ExitUsage)
	}
	if code := Main(context.Background(), []string{"status"}, env); code != ExitUsage {
		t.Errorf("status without flags exit %d, want %d", code, ExitUsage)
	}
	if code := Main(context.Background(), []string{"demo"}, env); code != ExitError {
		t.Errorf("demo without a demo exit %d", code)
	}
}
