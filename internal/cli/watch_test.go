package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

// watchFake is a fake GitHub with octo/app and PR #1 by a maintainer.
func watchFake(t *testing.T, fork bool) *ghfake.Fake {
	t.Helper()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	f := ghfake.New(ghfake.Options{Now: func() time.Time { return now }})
	t.Cleanup(f.Close)
	f.AddUser("maintainer", 1001, false)
	f.AddToken("ghp_watch_cli", ghfake.Identity{Login: "maintainer", ID: 1001, Association: "OWNER"})
	if err := f.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetPermission("octo", "app", "maintainer", "admin"); err != nil {
		t.Fatal(err)
	}
	author := "maintainer"
	if fork {
		author = "contributor"
		f.AddUser(author, 2002, false)
	}
	if _, err := f.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Author: author, Fork: fork,
		Files: map[string]string{"calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"}}); err != nil {
		t.Fatal(err)
	}
	return f
}

func watchEnv(f *ghfake.Fake, extra map[string]string) func(string) string {
	env := map[string]string{"GH_TOKEN": "ghp_watch_cli", "GITHUB_API_URL": f.URL(), "GITHUB_GRAPHQL_URL": f.GraphQLURL(),
		"INPUT_ENGINES": "copilot"}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

func writes(f *ghfake.Fake) []string {
	var out []string
	for _, q := range f.Requests() {
		if q.Method != "GET" && q.Operation != "query" {
			out = append(out, q.Method+" "+q.Path+" "+q.GraphQL)
		}
	}
	return out
}

func TestRule_LW2_WatchDryRunPrintsThePlanAndWritesNothing(t *testing.T) {
	t.Parallel()
	f := watchFake(t, false)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"watch", "octo/app#1", "--dry-run"}, Env{Getenv: watchEnv(f, nil), Stdout: &out, Stderr: &errb})
	if code != ExitOK {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitOK, errb.String())
	}
	if !strings.Contains(out.String(), "dry run: the next cycle would trigger") {
		t.Errorf("the plan is not printed:\n%s", out.String())
	}
	if ws := writes(f); len(ws) != 0 {
		t.Errorf("a dry run wrote: %v", ws)
	}
}

func TestRule_LW2_WatchJSONStreamsOneEventPerLineInTheEventLogSchema(t *testing.T) {
	t.Parallel()
	f := watchFake(t, false)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"watch", "--json", "--dry-run", "https://github.com/octo/app/pull/1"}, Env{Getenv: watchEnv(f, nil), Stdout: &out, Stderr: &errb})
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	names := map[string]bool{}
	for _, l := range lines {
		var e state.Event
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || e.Name == "" || e.Time.IsZero() {
			t.Fatalf("line %q is not one event of the event log's schema: %v", l, err)
		}
		names[e.Name] = true
	}
	for _, want := range []string{"watch-start", "watch-poll", "watch-cycle", "watch-plan"} {
		if !names[want] {
			t.Errorf("no %s event in:\n%s", want, out.String())
		}
	}
}

func TestRule_LW2_WatchOnceExitsWithTheActionsExitCodes(t *testing.T) {
	t.Parallel()
	f := watchFake(t, false)
	if err := f.SetPRState("octo", "app", 1, "CLOSED", false); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"watch", "octo/app#1", "--once", "--dry-run"}, Env{Getenv: watchEnv(f, nil), Stdout: &out, Stderr: &errb})
	if code != ExitError || !strings.Contains(errb.String(), "is not OPEN") {
		t.Errorf("exit %d, want %d (the cycle's error, IN1); stderr:\n%s", code, ExitError, errb.String())
	}
	code = Main(context.Background(), []string{"watch", "octo/app#1", "--once", "--bogus"}, Env{Getenv: watchEnv(f, nil), Stdout: &out, Stderr: &errb})
	if code != ExitUsage {
		t.Errorf("an unknown flag: exit %d, want %d", code, ExitUsage)
	}
}

func TestRule_LW1_WatchRefusesAForkPRWithoutTrust(t *testing.T) {
	t.Parallel()
	f := watchFake(t, true)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"watch", "octo/app#1"}, Env{Getenv: watchEnv(f, nil), Stdout: &out, Stderr: &errb})
	if code != ExitError || !strings.Contains(errb.String(), "comes from a fork") || !strings.Contains(errb.String(), "--trust") {
		t.Errorf("exit %d, want %d and a refusal naming --trust; stderr:\n%s", code, ExitError, errb.String())
	}
	if ws := writes(f); len(ws) != 0 {
		t.Errorf("a refused watch wrote: %v", ws)
	}
}

func TestRule_LW1_WatchTakesTheTokenFromGhAuthTokenWithAMinimalEnvironment(t *testing.T) {
	t.Parallel()
	f := watchFake(t, false)
	bin, rec := t.TempDir(), filepath.Join(t.TempDir(), "gh-env")
	script := "#!/bin/sh\nenv > " + rec + "\necho \"ARGS $*\" >> " + rec + "\necho ghp_watch_cli\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := watchEnv(f, map[string]string{"GH_TOKEN": "", "PATH": bin + ":/usr/bin:/bin", "HOME": t.TempDir(),
		"ANTHROPIC_API_KEY": "sk-ant-not-for-gh", "INPUT_OPENAI-API-KEY": "sk-openai-not-for-gh"})
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"watch", "octo/app#1", "--dry-run"}, Env{Getenv: getenv, Stdout: &out, Stderr: &errb}); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("gh was not run: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(l, "ARGS ") {
			if l != "ARGS auth token" {
				t.Errorf("gh ran with %q, want `auth token`", l)
			}
			continue
		}
		k, _, _ := strings.Cut(l, "=")
		switch k {
		case "PATH", "HOME", "PWD", "SHLVL", "_":
		default:
			t.Errorf("gh's environment has %s: want only PATH and HOME of those set", k)
		}
	}
}

func TestRule_LW1_WatchRefusesAnAuthorWithoutWritePermissionUnlessTrusted(t *testing.T) {
	t.Parallel()
	f := watchFake(t, false)
	f.AddUser("drive-by", 3003, false)
	if _, err := f.CreatePR("octo", "app", ghfake.PROptions{Head: "drive-by", Author: "drive-by",
		Files: map[string]string{"x.go": "package x\n"}}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"watch", "octo/app#2"}, Env{Getenv: watchEnv(f, nil), Stdout: &out, Stderr: &errb})
	if code != ExitError || !strings.Contains(errb.String(), "@drive-by, who may not write") {
		t.Errorf("exit %d, want %d and a refusal naming the author; stderr:\n%s", code, ExitError, errb.String())
	}
	errb.Reset()
	code = Main(context.Background(), []string{"watch", "octo/app#2", "--trust", "--repo-dir", t.TempDir()}, Env{Getenv: watchEnv(f, nil), Stdout: &out, Stderr: &errb})
	if strings.Contains(errb.String(), "refused") || !strings.Contains(errb.String(), "is not in a clone of octo/app") {
		t.Errorf("with --trust: exit %d, stderr:\n%s\nwant no refusal, and the missing clone named", code, errb.String())
	}
}
