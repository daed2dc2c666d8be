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
	if code := cli.Main(context.Background(), []string{"status", "octo/app#1"}, env); code != cli.ExitOK {
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

// TestPlan_SaysWhatItAssumesAndWhatTheStartPolicyMakesOfOtherWakes: plan
// plans as a dispatch would, which starts a loop under any start-on; it
// says so, and says what the configured policy makes of an engine's
// review or a push: under start-on: command nothing starts on a PR with
// no loop until a maintainer asks.
func TestPlan_SaysWhatItAssumesAndWhatTheStartPolicyMakesOfOtherWakes(t *testing.T) {
	t.Parallel()
	const assumes = "  assumes: a workflow_dispatch for PR #1 by a maintainer, which starts a loop or resumes one whatever start-on says\n"
	for _, tc := range []struct {
		name    string
		startOn string
		started bool
		stopped bool
		args    func(w *action.World) []string
		want    string
	}{
		{"no loop, start-on command", "", false, false, nil,
			"  under start-on: command (the default; INPUT_START-ON sets it as the workflow's start-on input does): no loop runs on this PR, so nothing starts: an engine's review or a push does nothing until a maintainer comments `@review-loop start`, adds the `review-loop` label or dispatches the workflow with pr: 1\n"},
		{"no loop, start-on auto", "auto", false, false, nil,
			"  under start-on: auto (from INPUT_START-ON): no loop runs on this PR yet: its next wake of any kind (an engine's review, a push) starts one and does the above\n"},
		{"a running loop, named by its URL", "", true, false, func(w *action.World) []string { return []string{"plan", w.Fake().URL() + "/octo/app/pull/1"} },
			"  under start-on: command (the default; INPUT_START-ON sets it as the workflow's start-on input does): a loop runs on this PR: its next wake of any kind (an engine's review, a push, the sweep) does the above\n"},
		{"a stopped loop, start-on auto", "auto", false, true, nil,
			"  under start-on: auto (from INPUT_START-ON): the loop on this PR has ended: only `@review-loop start` restarts it (H8)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := action.NewWorld(t, nil)
			if tc.stopped {
				w.SeedStoppedLoop()
			}
			if tc.started {
				if _, err := w.Cycle("workflow_dispatch", action.DispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
					t.Fatal(err)
				}
			}
			var out, errOut bytes.Buffer
			env := cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
				return map[string]string{"GH_TOKEN": action.ActionToken, "GITHUB_API_URL": w.Fake().URL(), "GITHUB_GRAPHQL_URL": w.Fake().GraphQLURL(),
					"GITHUB_SERVER_URL": w.Fake().URL(), "INPUT_ENGINES": "copilot", "INPUT_START-ON": tc.startOn}[k]
			}}
			args := []string{"plan", "octo/app#1"}
			if tc.args != nil {
				args = tc.args(w)
			}
			if code := cli.Main(context.Background(), args, env); code != cli.ExitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
			}
			if !strings.HasPrefix(out.String(), "octo/app#1: the next cycle would ") || !strings.Contains(out.String(), "\n"+assumes+tc.want) {
				t.Errorf("output lacks\n%s%s\ngot:\n%s", assumes, tc.want, out.String())
			}
		})
	}
}
