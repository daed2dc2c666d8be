package acttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/judge/judgetest"
)

// The example sets `fixer: claude-code` with `anthropic-api-key: ${{
// secrets.ANTHROPIC_API_KEY }}`. act gets agentAPIKey as that secret, and
// the job's PATH starts with agentDir, whose `claude` is this test binary
// acting as the agent (runAgent): action.yml's "Install the agent fixer
// CLI" step finds it and installs nothing, and no model is reached.
const (
	agentAPIKey = "sk-ant-acttest-dummy-0123456789"
	// helperAgent is the argument that makes this test binary the agent.
	helperAgent = "__acttest-claude"
)

var (
	// agentDir holds the `claude` the act job runs; set by TestMain.
	agentDir string
	// messages is the Messages API the job's ANTHROPIC_BASE_URL names. No
	// act world installs Claude (the fake repository has no workflow using
	// claude-code-action and no Claude check run), so the built-in judge,
	// picked because anthropic-api-key is set, never has prose to judge:
	// TestMain fails the run when a request arrives anyway, and none can
	// reach the real API with the dummy key.
	messages *judgetest.MessagesServer
	// messagesURL is messages' address.
	messagesURL string
)

// setupAgent writes the agent and the registry the act jobs install it
// from, and starts the Messages API; the returned func stops it and
// removes agentDir. agentDir holds:
//   - agent/claude, which runs exe as the agent;
//   - npm, which answers for the claude-code package action.yml pins (its
//     integrity, and an install that puts agent/claude in the prefix) and
//     hands every other command to the real npm;
//   - claude, a decoy an earlier job could have planted on PATH: the
//     install step must not use it (TB11).
func setupAgent(exe string) (func(), error) {
	dir, err := os.MkdirTemp("", "acttest-agent-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (func(), error) { _ = os.RemoveAll(dir); return nil, err }
	pkg, integrity, err := pinnedAgent()
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "agent"), 0o755); err != nil {
		return fail(err)
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	agent := "#!/bin/sh\n# The act job's claude: the acttest binary as the agent.\nexec " + quote(exe) + " " + helperAgent + " \"$@\"\n"
	decoy := "#!/bin/sh\necho 'acttest: the decoy claude on PATH ran' >&2\nexit 1\n"
	real, _ := exec.LookPath("npm")
	npm := "#!/bin/sh\n# The act job's npm: the registry of the agent CLI action.yml pins.\n" +
		"if [ \"$1\" = view ] && [ \"$2\" = " + quote(pkg) + " ]; then echo " + quote(integrity) + "; exit 0; fi\n" +
		"if [ \"$1\" = install ]; then\n  prefix=; prev=; last=\n  for a in \"$@\"; do [ \"$prev\" = --prefix ] && prefix=$a; prev=$a; last=$a; done\n" +
		"  if [ \"$last\" = " + quote(pkg) + " ] && [ -n \"$prefix\" ]; then\n    mkdir -p \"$prefix/node_modules/.bin\" && cp " + quote(filepath.Join(dir, "agent", "claude")) + " \"$prefix/node_modules/.bin/claude\" && echo \"acttest npm: installed $last\"; exit $?\n  fi\nfi\n"
	if real != "" {
		npm += "exec " + quote(real) + " \"$@\"\n"
	} else {
		npm += "echo 'acttest npm: no npm on this machine' >&2; exit 127\n"
	}
	for name, body := range map[string]string{filepath.Join("agent", "claude"): agent, "claude": decoy, "npm": npm} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			return fail(err)
		}
	}
	messages = &judgetest.MessagesServer{APIKey: agentAPIKey, Status: 500}
	srv := httptest.NewServer(messages)
	agentDir, messagesURL = dir, srv.URL
	return func() { srv.Close(); _ = os.RemoveAll(dir) }, nil
}

// pinnedAgent is the claude-code package and integrity action.yml pins.
func pinnedAgent() (pkg, integrity string, err error) {
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		return "", "", err
	}
	m := regexp.MustCompile(`claude-code\) bin=claude; pkg='([^']+)'\s+integrity='([^']+)'`).FindSubmatch(b)
	if m == nil {
		return "", "", errors.New("action.yml pins no claude-code package")
	}
	return string(m[1]), string(m[2]), nil
}

// installedAgent is what act's log says when action.yml installed the
// agent from the test's registry rather than take a claude from PATH.
func installedAgent(t testing.TB, output string) {
	t.Helper()
	pkg, _, err := pinnedAgent()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(output, "acttest npm: installed "+pkg) || strings.Contains(output, "decoy claude on PATH ran") {
		t.Errorf("act's log does not show the pinned agent installed and run (TB11):\n%s", output)
	}
}

var (
	promptFindings = regexp.MustCompile(`The findings are in the JSON file (\S+) \(`)
	promptReply    = regexp.MustCompile(`write exactly one JSON object to the file (\S+?):\n`)
)

// agentFinding is what the agent reads of one finding of the findings file
// (docs/fixer-protocol.md, Input).
type agentFinding struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	StartLine int    `json:"start_line"`
	Body      string `json:"body"`
}

// runAgent is the agent of the act worlds, run as claude would be run by
// internal/fix (fix.ClaudeCodeArgs): it refuses a command line that would
// allow a shell or not ask for the JSON result, and a key that is not the
// secret the workflow passed; it reads the findings file its prompt names,
// applies each finding's single suggestion block to the lines the finding
// names in the working directory, disagrees with a finding without one,
// writes the reply file the prompt names, and prints claude's JSON result.
func runAgent(args []string, stdout io.Writer) error {
	prompt, opts := "", map[string]string{}
	for i := 0; i+1 < len(args); i++ {
		if strings.HasPrefix(args[i], "-") && !strings.HasPrefix(args[i+1], "-") {
			opts[args[i]] = args[i+1]
		}
		if args[i] == "-p" {
			prompt = args[i+1]
		}
	}
	switch {
	case opts["--output-format"] != "json":
		return fmt.Errorf("agent: --output-format %q, want json", opts["--output-format"])
	case opts["--tools"] != fix.AgentTools || opts["--disallowedTools"] != fix.AgentDeniedTools:
		return fmt.Errorf("agent: refusing tools %q (denied %q)", opts["--tools"], opts["--disallowedTools"])
	case os.Getenv("ANTHROPIC_API_KEY") != agentAPIKey:
		return errors.New("agent: ANTHROPIC_API_KEY is not the workflow's anthropic-api-key")
	}
	fm, rm := promptFindings.FindStringSubmatch(prompt), promptReply.FindStringSubmatch(prompt)
	if fm == nil || rm == nil {
		return fmt.Errorf("agent: the prompt names no findings or reply file:\n%s", prompt)
	}
	data, err := os.ReadFile(fm[1])
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	var in struct {
		Findings []agentFinding `json:"findings"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("agent: reading the findings file: %w", err)
	}
	reply := fix.FixerReply{Fixed: []string{}, Outdated: []fix.ReplyEntry{}, Disagreed: []fix.ReplyEntry{}}
	for _, f := range in.Findings {
		if err := applySuggestion(f); err != nil {
			reply.Disagreed = append(reply.Disagreed, fix.ReplyEntry{ID: f.ID, Reply: "Not changed: " + err.Error() + "."})
			continue
		}
		reply.Fixed = append(reply.Fixed, f.ID)
	}
	out, err := json.Marshal(reply)
	if err != nil {
		return err
	}
	if err := os.WriteFile(rm[1], out, 0o600); err != nil {
		return fmt.Errorf("agent: writing the reply: %w", err)
	}
	res, _ := json.Marshal(map[string]any{"type": "result", "subtype": "success", "is_error": false, "num_turns": 2,
		"result": "Applied the suggestions.\n" + string(out)})
	_, err = fmt.Fprintln(stdout, string(res))
	return err
}

// applySuggestion replaces lines start_line..line of the finding's file
// with its one suggestion block.
func applySuggestion(f agentFinding) error {
	blocks := fix.ParseSuggestions(f.Body)
	if len(blocks) != 1 || f.Path == "" || f.Line < 1 {
		return fmt.Errorf("the finding has %d suggestion blocks on %s line %d, want one", len(blocks), f.Path, f.Line)
	}
	start := f.StartLine
	if start < 1 {
		start = f.Line
	}
	content, err := os.ReadFile(f.Path)
	if err != nil {
		return err
	}
	edited, err := fix.ApplyEdits(content, []fix.Edit{{StartLine: start, EndLine: f.Line, Lines: blocks[0].Lines}})
	if err != nil {
		return err
	}
	return os.WriteFile(f.Path, edited, 0o644)
}

// TestMain lets this test binary serve as the act job's claude, and sets
// up agentDir and the Messages API for the tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == helperAgent {
		if err := runAgent(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "acttest:", err)
		os.Exit(1)
	}
	stop, err := setupAgent(exe)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acttest: the agent:", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	if n := len(messages.Bodies()); n > 0 {
		fmt.Fprintf(os.Stderr, "acttest: the built-in judge called the Messages API %d times, but no act world installs Claude\n", n)
		code = 1
	}
	os.Exit(code)
}

// TestAgent_AppliesTheSuggestionAndReplies runs the act job's claude the
// way internal/fix does, on Copilot's finding of the act worlds: the
// suggestion lands on the file, and the reply file and the JSON result
// name the finding fixed.
func TestAgent_AppliesTheSuggestionAndReplies(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "calc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calc", "calc.go"), []byte(calcBug), 0o644); err != nil {
		t.Fatal(err)
	}
	findings, _ := json.Marshal(map[string]any{"findings": []map[string]any{
		{"id": "copilot-1", "path": "calc/calc.go", "line": 5, "body": "Add subtracts instead of adding.\n\n```suggestion\n\treturn a + b\n```"},
		{"id": "copilot-2", "path": "calc/calc.go", "line": 4, "body": "Name the result."},
	}})
	input, replyPath := filepath.Join(tmp, "findings.json"), filepath.Join(tmp, "reply.json")
	if err := os.WriteFile(input, findings, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(key string) ([]byte, error) {
		argv := fix.ClaudeCodeArgs(fmt.Sprintf(fix.AgentPrompt, input, replyPath), tmp, "", 0)
		cmd := exec.Command(filepath.Join(agentDir, "agent", "claude"), argv...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "ANTHROPIC_API_KEY="+key)
		return cmd.Output()
	}
	if _, err := run("sk-ant-other"); err == nil {
		t.Error("the agent ran with a key that is not the workflow's secret")
	}
	out, err := run(agentAPIKey)
	if err != nil {
		t.Fatalf("the agent failed: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "calc", "calc.go")); !strings.Contains(string(got), "\treturn a + b\n") || strings.Contains(string(got), "a - b") {
		t.Errorf("calc.go after the agent:\n%s", got)
	}
	data, err := os.ReadFile(replyPath)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := fix.ParseFixerReply(data)
	if err != nil {
		t.Fatalf("reply %s: %v", data, err)
	}
	if fmt.Sprint(reply.Fixed) != "[copilot-1]" || len(reply.Disagreed) != 1 || reply.Disagreed[0].ID != "copilot-2" {
		t.Errorf("reply = %+v", reply)
	}
	var res struct {
		Type, Subtype, Result string
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Type != "result" || res.Subtype != "success" || !strings.Contains(res.Result, `"fixed":["copilot-1"]`) {
		t.Errorf("stdout is not claude's JSON result: %s (%v)", out, err)
	}
}
