package fix

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// stubAgent writes an executable named name into a fresh directory and
// returns that directory (to put first on the child's PATH) and the file
// where the stub records its argv, one argument per line, and its
// environment. The stub edits like an agent would and then replies.
func stubAgent(t *testing.T, name, body string) (dir, record string) {
	t.Helper()
	dir = t.TempDir()
	record = filepath.Join(dir, "record")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n--\\n' \"$a\" >> '" + record + ".args'; done\nenv > '" + record + ".env'\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, record
}

func recorded(t *testing.T, record string) (args []string, env string) {
	t.Helper()
	a, err := os.ReadFile(record + ".args")
	if err != nil {
		t.Fatalf("the agent CLI was not run: %v", err)
	}
	e, _ := os.ReadFile(record + ".env")
	args = strings.Split(strings.TrimSuffix(string(a), "\n--\n"), "\n--\n")
	return args, string(e)
}

func agentEnv(stubDir string) []string {
	env := []string{"PATH=" + stubDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"GITHUB_TOKEN=ghs_secret", "INPUT_GITHUB-TOKEN=ghs_secret2", "INPUT_ANTHROPIC-API-KEY=sk-ant-input", "INPUT_OPENAI-API-KEY=sk-oai-input"}
	return env
}

func TestAgent_ClaudeCodeRunsHeadlessWithEditToolsOnlyAndTheKeyOnlyForItself(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	stub, record := stubAgent(t, "claude", `
findings=$REVIEW_LOOP_FINDINGS
reply=$REVIEW_LOOP_REPLY
grep -q '"id": "copilot-1"' "$findings" || { echo "findings file not readable" >&2; exit 3; }
sed -i 's/x := 20/x := base/' internal/app/a.go
echo '{"fixed":["copilot-1"],"outdated":[],"disagreed":[{"id":"gemini-3","reply":"The value is intended."}],"error":null}' > "$reply"
echo '{"type":"result","subtype":"success","is_error":false,"result":"done"}'`)
	cfg.Env = agentEnv(stub)
	// The test-command sees no key.
	keyCheck := filepath.Join(t.TempDir(), "test-env")
	cfg.TestCommand = []string{"sh", "-c", "env > " + keyCheck}
	cfg.Agent = Agent{APIKey: "sk-ant-secret", MaxTurns: 12}
	fs := []loop.Finding{commandFinding("Name it."), {ID: "gemini-3", Engine: "gemini", Path: "internal/app/b.go", Line: 9, Title: "y"}}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: fs})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results[0].Outcome != OutcomeFixed || res.Results[1].Outcome != OutcomeDisagreed || !res.Commit {
		t.Fatalf("%+v", res)
	}
	args, env := recorded(t, record)
	if len(args) < 2 || args[0] != "-p" {
		t.Fatalf("argv %q: want -p <prompt> first", args)
	}
	prompt := args[1]
	rest := args[2:]
	want := []string{"--output-format", "json", "--max-turns", "12", "--permission-mode", "acceptEdits",
		"--tools", "Read,Edit,Write,Glob,Grep", "--allowedTools", "Read,Edit,Write,Glob,Grep",
		"--disallowedTools", "Bash,WebFetch,WebSearch", "--restricted", "--bare", "--setting-sources", "", "--strict-mcp-config", "--no-session-persistence"}
	if !slices.Equal(rest[:len(want)], want) {
		t.Fatalf("flags\n got %q\nwant %q", rest, want)
	}
	if rest[len(want)] != "--add-dir" || len(rest) != len(want)+2 {
		t.Fatalf("want --add-dir <input dir> last, got %q", rest[len(want):])
	}
	for _, a := range args {
		if strings.Contains(a, "Bash") && a != "Bash,WebFetch,WebSearch" {
			t.Fatalf("an argument grants a shell tool: %q", a)
		}
	}
	if !strings.Contains(prompt, "REVIEW_LOOP_FINDINGS") || !strings.Contains(prompt, filepath.Join(rest[len(want)+1], "findings.json")) ||
		!strings.Contains(prompt, filepath.Join(rest[len(want)+1], "reply.json")) || !strings.Contains(prompt, `"disagreed"`) {
		t.Fatalf("the prompt does not name the findings and reply files and the reply format:\n%s", prompt)
	}
	if !strings.Contains(env, "ANTHROPIC_API_KEY=sk-ant-secret\n") {
		t.Fatal("claude did not get its key")
	}
	for _, leak := range []string{"ghs_secret", "sk-ant-input", "sk-oai-input"} {
		if strings.Contains(env, leak) {
			t.Fatalf("claude's environment holds %s", leak)
		}
	}
	te, _ := os.ReadFile(keyCheck)
	for _, leak := range []string{"sk-ant-secret", "sk-ant-input", "sk-oai-input", "ghs_secret"} {
		if strings.Contains(string(te), leak) {
			t.Fatalf("the test-command's environment holds %s", leak)
		}
	}
	if tr.Status(t) == "" {
		t.Fatal("the edit is gone")
	}
}

func TestAgent_ClaudeCodeFinalMessageIsTheReplyWhenNoFileIsWritten(t *testing.T) {
	t.Parallel()
	_, cfg := setup(t)
	stub, _ := stubAgent(t, "claude", `sed -i 's/x := 20/x := base/' internal/app/a.go
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"Renamed it.\n{\"fixed\":[\"copilot-1\"],\"outdated\":[],\"disagreed\":[],\"error\":null}"}'`)
	cfg.Env = agentEnv(stub)
	cfg.Agent = Agent{APIKey: "k"}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: []loop.Finding{commandFinding("b")}})
	if err != nil || res.Results[0].Outcome != OutcomeFixed {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestAgent_ClaudeCodeErrorResultFailsTheCycle(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	stub, _ := stubAgent(t, "claude", `sed -i 's/x := 20/x := base/' internal/app/a.go
echo '{"type":"result","subtype":"error_max_turns","is_error":true,"result":""}'`)
	cfg.Env = agentEnv(stub)
	cfg.Agent = Agent{APIKey: "k"}
	_, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: []loop.Finding{commandFinding("b")}})
	if err == nil || !strings.Contains(err.Error(), "error_max_turns") || tr.Status(t) != "" {
		t.Fatalf("err %v status %q", err, tr.Status(t))
	}
}

func TestAgent_NoKeyIsAClearError(t *testing.T) {
	t.Parallel()
	_, cfg := setup(t)
	for _, p := range []string{ProviderClaudeCode, ProviderCodex} {
		_, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: p, Findings: []loop.Finding{commandFinding("b")}})
		if err == nil || !strings.Contains(err.Error(), "api-key") {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

func TestAgent_CodexRunsInAWorkspaceSandboxWithoutNetwork(t *testing.T) {
	t.Parallel()
	_, cfg := setup(t)
	stub, record := stubAgent(t, "codex", `
last=""; prev=""
for a in "$@"; do [ "$prev" = "--output-last-message" ] && last=$a; prev=$a; done
sed -i 's/x := 20/x := base/' internal/app/a.go
printf 'Renamed.\n{"fixed":["copilot-1"],"outdated":[],"disagreed":[],"error":null}\n' > "$last"`)
	cfg.Env = agentEnv(stub)
	cfg.Agent = Agent{APIKey: "sk-oai-secret", Model: "gpt-5-codex"}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCodex, Findings: []loop.Finding{commandFinding("b")}})
	if err != nil || res.Results[0].Outcome != OutcomeFixed {
		t.Fatalf("%v %+v", err, res)
	}
	args, env := recorded(t, record)
	want := []string{"exec", "--sandbox", "workspace-write", "-c", "sandbox_workspace_write.network_access=false",
		"-c", `shell_environment_policy.inherit="core"`, "-c", `approval_policy="never"`,
		"-c", "project_doc_max_bytes=0", "--ephemeral", "--ignore-user-config", "--ignore-rules", "--color", "never", "-C", cfg.Dir, "-m", "gpt-5-codex"}
	if !slices.Equal(args[:len(want)], want) {
		t.Fatalf("flags\n got %q\nwant %q", args, want)
	}
	tail := args[len(want):]
	if len(tail) != 5 || tail[0] != "--add-dir" || tail[2] != "--output-last-message" || !strings.Contains(tail[4], filepath.Join(tail[1], "findings.json")) {
		t.Fatalf("tail %q", tail)
	}
	if slices.Contains(args, "--dangerously-bypass-approvals-and-sandbox") || slices.Contains(args, "danger-full-access") {
		t.Fatal("codex runs without its sandbox")
	}
	if !strings.Contains(env, "CODEX_API_KEY=sk-oai-secret\n") || !strings.Contains(env, "OPENAI_API_KEY=sk-oai-secret\n") {
		t.Fatal("codex did not get its key")
	}
	if strings.Contains(env, "ghs_secret") || strings.Contains(env, "sk-ant-input") {
		t.Fatal("codex's environment holds a token")
	}
}

func TestAgent_MissingCLIIsAClearError(t *testing.T) {
	t.Parallel()
	_, cfg := setup(t)
	cfg.Env = []string{"PATH=" + t.TempDir()}
	cfg.Agent = Agent{APIKey: "k"}
	_, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderClaudeCode, Findings: []loop.Finding{commandFinding("b")}})
	if err == nil || !strings.Contains(err.Error(), "@anthropic-ai/claude-code") {
		t.Fatalf("%v", err)
	}
}

// FuzzClaudeResult: any output of the CLI either yields a final message
// from a successful result object or an error, never a panic; an error
// result is never taken as a reply.
func FuzzClaudeResult(f *testing.F) {
	f.Add([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"done\n{\"fixed\":[],\"error\":null}"}`))
	f.Add([]byte(`{"type":"result","subtype":"error_max_turns","is_error":true,"result":""}`))
	f.Add([]byte("progress\n{\"type\":\"result\",\"result\":\"x\"}\n"))
	f.Add([]byte(""))
	f.Add([]byte("[1,2]"))
	f.Fuzz(func(t *testing.T, out []byte) {
		msg, err := claudeResult(out)
		if err == nil && strings.Contains(string(lastNonEmptyLine(out)), `"is_error":true`) && !strings.Contains(string(msg), "is_error") {
			t.Fatalf("an error result was accepted: %q", out)
		}
		if err == nil {
			_, _ = ParseFixerReply(msg)
		}
	})
}
