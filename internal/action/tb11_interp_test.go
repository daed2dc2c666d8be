package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nodeAgent writes, in one directory, a claude CLI written as the npm one
// is (`#!/usr/bin/env node`) that fixes calc.go and replies, and a node
// that runs it (with sh). It returns the directory.
func nodeAgent(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "node"), []byte("#!/bin/sh\nexec /bin/sh \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cli := `#!/usr/bin/env node
sed -i 's/a - b/a + b/' calc/calc.go
id=$(grep -o '"id": *"[^"]*"' "$REVIEW_LOOP_FINDINGS" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')
echo "{\"fixed\":[\"$id\"],\"outdated\":[],\"disagreed\":[],\"error\":null}" > "$REVIEW_LOOP_REPLY"
echo '{"type":"result","subtype":"success","is_error":false,"result":"done"}'
`
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TB11: review-loop records the agent CLI and the node its shebang finds
// on PATH when the run starts. Something that then swaps that node — in
// place, or by putting another one earlier on PATH in a directory it can
// write — while the run waits for the review (the in-job wait) does not
// get the API key: the agent run is refused naming the node file, and
// nothing is pushed.
func TestRule_TB11_ANodeSwappedAfterThePinGetsNoKey(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-ant-tb11-swapped-node-secret-4d8"
	for _, how := range []string{"in place", "earlier on PATH"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			agent := nodeAgent(t)
			before := t.TempDir()
			childPath := before + string(os.PathListSeparator) + agent
			leak := filepath.Join(t.TempDir(), "LEAK")
			swapped := filepath.Join(agent, "node")
			if how == "earlier on PATH" {
				swapped = filepath.Join(before, "node")
			}
			inputs := map[string]string{"engines": "copilot", "fixer": "claude-code", "anthropic-api-key": apiKey, "wait-seconds": "120", "poll-interval": "30"}
			sleep := func(_ context.Context, d time.Duration) error { w.now = w.now.Add(d); return nil }
			if _, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), inputs, func(d *Deps) { d.ChildPath, d.Sleep = childPath, sleep }); err != nil {
				t.Fatal(err)
			}
			head := w.fake.HeadSHA("octo", "app", 1)
			slept := 0
			res, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), inputs, func(d *Deps) {
				d.ChildPath = childPath
				d.Sleep = func(ctx context.Context, dur time.Duration) error {
					slept++
					if slept == 1 {
						// After the pin, before the agent runs.
						if err := os.WriteFile(swapped, []byte("#!/bin/sh\nenv > '"+leak+"'\n"), 0o755); err != nil {
							t.Fatal(err)
						}
						w.copilotReview(t, head, addSuggestion)
					}
					return sleep(ctx, dur)
				}
			})
			if slept == 0 {
				t.Fatal("the run did not wait, so nothing was swapped after the pin")
			}
			if _, serr := os.Stat(leak); serr == nil {
				b, _ := os.ReadFile(leak)
				if strings.Contains(string(b), apiKey) {
					t.Fatal("the swapped node got the API key")
				}
				t.Fatal("the swapped node ran")
			}
			if got := w.fake.HeadSHA("octo", "app", 1); got != head {
				t.Errorf("a fix was pushed (%+v)", res.PRs)
			}
			out := w.out.String()
			if err != nil {
				out += err.Error()
			}
			if !strings.Contains(out, "TB11") || !strings.Contains(out, swapped) {
				t.Errorf("no TB11 refusal naming %s:\n%s", swapped, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "TB11") {
					t.Log(l)
				}
			}
		})
	}
}

// The same CLI and node, unswapped, fix the finding: the pin does not stop
// the agent it recorded.
func TestRule_TB11_TheAgentRunsUnderThePinnedNode(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	agent := nodeAgent(t)
	inputs := map[string]string{"engines": "copilot", "fixer": "claude-code", "anthropic-api-key": "sk-ant-test"}
	edit := func(d *Deps) { d.ChildPath = agent }
	res := w.suggestionFixCycle(t, inputs, edit)
	if res.PRs[0].Pushed == "" {
		t.Fatalf("nothing pushed: %+v\n%s", res.PRs[0].Plan, w.out.String())
	}
}
