package action_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/secret"
)

// TB14: a prompt-injected agent fixer (the finding told it to publish its
// key) writes its ANTHROPIC_API_KEY into the fix, into its reply on the
// thread, into the name of a file it leaves behind (which the status
// comment would list as left out of the commit), or into the error it
// fails with (which SC5 keeps off the PR: nothing is refused there). Run with the built binary as Actions runs
// it, in single and hardened mode, with and without a checkout step:
// nothing review-loop sends to GitHub holds the key in any form (every
// request the fake received, body, path and query; every commit of the
// repository), the hardened artifact holds none, and the PR is handed
// back with a reason that names the input `anthropic-api-key`.
func TestRule_TB14_AnInjectedAgentCannotPublishItsKey(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-ant-api03-tb14-injected-agent-key-4b7e"
	attacks := map[string]string{
		"into the fix": `sed -i 's/a - b/a + b/' calc/calc.go
echo "// debug: $ANTHROPIC_API_KEY" >> calc/calc.go
echo "{\"fixed\":[\"$id\"],\"outdated\":[],\"disagreed\":[],\"error\":null}" > "$REVIEW_LOOP_REPLY"
`,
		"into its error": `echo "{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"result\":\"cannot go on, key $ANTHROPIC_API_KEY\"}"
exit 1
`,
		"into a file name": `sed -i 's/a - b/a + b/' calc/calc.go
echo x > "calc/$ANTHROPIC_API_KEY.go"
echo "{\"fixed\":[\"$id\"],\"outdated\":[],\"disagreed\":[],\"error\":null}" > "$REVIEW_LOOP_REPLY"
`,
		"into a reply": `k=$(printf '%s' "$ANTHROPIC_API_KEY" | base64 | tr -d '\n')
echo "{\"fixed\":[],\"outdated\":[],\"disagreed\":[{\"id\":\"$id\",\"reply\":\"as asked: $ANTHROPIC_API_KEY ($k)\"}],\"error\":null}" > "$REVIEW_LOOP_REPLY"
`,
	}
	for attack, body := range attacks {
		for _, mode := range attackModes {
			t.Run(attack+", "+mode, func(t *testing.T) {
				t.Parallel()
				g := newRig(t, mode)
				bin := t.TempDir()
				ran := filepath.Join(t.TempDir(), "RAN")
				stub := []byte("#!/bin/sh\ntouch " + ran + "\n" +
					`id=$(grep -o '"id": "[^"]*"' "$REVIEW_LOOP_FINDINGS" | head -n 1 | cut -d '"' -f 4)` + "\n" + body +
					`echo '{"type":"result","subtype":"success","is_error":false,"result":"done"}'` + "\n")
				if err := os.WriteFile(filepath.Join(bin, "claude"), stub, 0o755); err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(stub)
				g.e.env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
				g.e.env["REVIEW_LOOP_AGENT_SHA256"] = hex.EncodeToString(sum[:])
				g.mayFail = true
				head := g.e.head
				inputs := map[string]string{"engines": "copilot", "fixer": "claude-code", "anthropic-api-key": apiKey}
				commands, pusher := g.fixCycle(t, inputs)
				if _, err := os.Stat(ran); err != nil {
					t.Fatalf("the agent never ran\n%s\n%s", commands.stdout, commands.stderr)
				}
				forms := secret.Forms(apiKey)
				for _, r := range g.e.fake.Requests() {
					for _, f := range forms {
						if strings.Contains(string(r.Body), f) || strings.Contains(r.Path+"?"+r.Query, f) {
							t.Errorf("%s %s sent the key (as %q) to GitHub", r.Method, r.Path, f)
						}
					}
				}
				if attack == "into the fix" {
					if got := g.e.fake.HeadSHA("octo", "app", 1); got != head {
						t.Errorf("the fix holding the key was pushed (%s)", got)
					}
				}
				bare := strings.TrimPrefix(g.e.fake.CloneURL("octo", "app"), "file://")
				history, err := exec.Command("git", "--git-dir", bare, "log", "--all", "-p").CombinedOutput()
				if err != nil {
					t.Fatalf("git log: %v\n%s", err, history)
				}
				for _, f := range forms {
					if strings.Contains(string(history), f) {
						t.Errorf("the repository holds the key (as %q)", f)
					}
				}
				if g.artifact != "" && strings.HasPrefix(mode, "hardened") {
					_ = filepath.WalkDir(g.artifact, func(p string, d os.DirEntry, err error) error {
						if err == nil && !d.IsDir() {
							b, _ := os.ReadFile(p)
							for _, f := range forms {
								if strings.Contains(string(b), f) {
									t.Errorf("the artifact's %s holds the key (as %q)", filepath.Base(p), f)
								}
							}
						}
						return nil
					})
				}
				status := g.e.statusComment(t)
				if attack == "into its error" {
					return
				}
				if !strings.Contains(status, "`anthropic-api-key`") || !strings.Contains(status, "TB14") {
					t.Errorf("the status comment does not hand back naming anthropic-api-key:\n%s\n--- publish/single stdout\n%s\n%s", status, pusher.stdout, pusher.stderr)
				}
			})
		}
	}
}

// TB14: a secret the runner's environment holds beyond the inputs (here
// a DEPLOY_TOKEN variable of the job) is sealed too: a Copilot finding
// quotes it, and the status comment that would list the finding's title
// is written with the value withheld, handing back with a reason that
// names the variable. Run with the built binary.
func TestRule_TB14_AnEnvironmentSecretQuotedByAnEngineIsNotWritten(t *testing.T) {
	t.Parallel()
	const deploy = "dpl_tb14_environment_secret_77c1"
	e := newE2E(t)
	e.env = map[string]string{"DEPLOY_TOKEN": deploy}
	e.run("workflow_dispatch", dispatch("1"), map[string]string{"engines": "copilot"})
	rid, _ := e.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated 1 comment.", CommitSHA: e.head})
	if _, _, err := e.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: e.head, Body: "Hard-coded credential " + deploy + " in the build.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	r := e.run("pull_request_review", map[string]any{"action": "submitted", "repository": repo,
		"review":       map[string]any{"id": rid, "user": map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}, "commit_id": e.head, "state": "commented"},
		"pull_request": map[string]any{"number": 1, "head": map[string]any{"sha": e.head, "ref": "feature"}},
		"sender":       map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}}, map[string]string{"engines": "copilot"})
	for _, req := range e.fake.Requests() {
		for _, f := range secret.Forms(deploy) {
			if strings.Contains(string(req.Body), f) {
				t.Errorf("%s %s sent the environment's secret (as %q)", req.Method, req.Path, f)
			}
		}
	}
	if status := e.statusComment(t); !strings.Contains(status, "`DEPLOY_TOKEN`") {
		t.Errorf("the status comment does not name DEPLOY_TOKEN:\n%s\n%s\n%s", status, r.stdout, r.stderr)
	}
}
