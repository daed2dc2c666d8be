package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/judge/judgetest"
	"github.com/review-loop/review-loop/internal/loop"
)

// helperAgent is the simulated agent CLI: the demo world's `claude` and
// `codex` on the fixer's PATH run this program with it.
const helperAgent = "__scenario-agent"

// judgeMode is how the world's Messages API judges: BLOCKING while the
// engine has inline findings, CLEAN otherwise.
const judgeMode = "clean-unless-findings"

// setupAgents writes the simulated agent CLIs and, when the scenario's
// inputs set anthropic-api-key without a judge-command, starts the local
// Messages API the built-in judge is pointed at.
func (r *run) setupAgents() error {
	if len(r.opts.Self) > 0 {
		r.agentDir = filepath.Join(r.dir, "agent-bin")
		if err := os.MkdirAll(r.agentDir, 0o755); err != nil {
			return err
		}
		self := strings.Join(quoteAll(r.opts.Self), " ")
		for _, name := range []string{"claude", "codex"} {
			script := "#!/bin/sh\n# The demo world's " + name + ": the simulated agent.\nexec " + self + " " + helperAgent + " " + r.fixerSrv.URL + " " + name + " \"$@\"\n"
			if err := os.WriteFile(filepath.Join(r.agentDir, name), []byte(script), 0o755); err != nil {
				return err
			}
		}
	}
	if key := r.sc.Inputs["anthropic-api-key"]; key != "" && r.sc.Inputs["judge-command"] == "" {
		r.judgeSrv = httptest.NewServer(&judgetest.MessagesServer{APIKey: key, Answer: answerMessages})
	}
	return nil
}

// answerMessages judges the material of a Messages API request the way
// the scripted judge does.
func answerMessages(body []byte) string {
	var req struct {
		Messages []struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 || len(req.Messages[0].Content) == 0 {
		return "not a judge request"
	}
	text := req.Messages[0].Content[0].Text
	_, rest, ok := strings.Cut(text, "<material>")
	material, _, ok2 := strings.Cut(rest, "</material>")
	if !ok || !ok2 {
		return "no material"
	}
	out, err := scriptedVerdict(judgeMode, []byte(material))
	if err != nil {
		return err.Error()
	}
	return string(out)
}

var (
	promptFindings = regexp.MustCompile(`The findings are in the JSON file (\S+) \(`)
	promptReply    = regexp.MustCompile(`write exactly one JSON object to the file (\S+?):\n`)
)

// runAgent is the simulated agent: it reads its prompt as the real CLI
// would receive it, applies the scenario's fixes through the callback,
// writes the reply file the prompt names, and ends like the CLI does.
func runAgent(args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return errors.New("usage: " + helperAgent + " CALLBACK-URL claude|codex [CLI ARGUMENTS]")
	}
	callback, name, cli := args[0], args[1], args[2:]
	prompt, lastMessage := "", ""
	for i, a := range cli {
		switch {
		case a == "-p" && i+1 < len(cli) && name == "claude":
			prompt = cli[i+1]
		case a == "--output-last-message" && i+1 < len(cli):
			lastMessage = cli[i+1]
		}
	}
	if name == "codex" && len(cli) > 0 {
		prompt = cli[len(cli)-1]
	}
	if name == "claude" && !strings.Contains(strings.Join(cli, " "), "--disallowedTools Bash") {
		return errors.New("simulated claude: refusing to run with a shell tool allowed")
	}
	fm, rm := promptFindings.FindStringSubmatch(prompt), promptReply.FindStringSubmatch(prompt)
	if fm == nil || rm == nil {
		return fmt.Errorf("simulated %s: the prompt names no findings or reply file:\n%s", name, prompt)
	}
	reply, err := callScenario(callback, fm[1], "simulated "+name)
	if err != nil {
		return err
	}
	reply = bytes.TrimSpace(reply)
	if err := os.WriteFile(rm[1], reply, 0o600); err != nil {
		return fmt.Errorf("simulated %s: writing the reply: %w", name, err)
	}
	final := "Applied the fixes I agree with.\n" + string(reply)
	if name == "codex" {
		if lastMessage != "" {
			return os.WriteFile(lastMessage, []byte(final), 0o600)
		}
		return nil
	}
	out, _ := json.Marshal(map[string]any{"type": "result", "subtype": "success", "is_error": false, "num_turns": 3, "result": final})
	_, err = fmt.Fprintln(stdout, string(out))
	return err
}

// findingsNote lists the active findings of an engine: engine, severity,
// path:line and title.
func (r *run) findingsNote(e loop.EngineReport) string {
	var b strings.Builder
	for _, id := range e.Active {
		f, ok := r.w.PostedFinding(id)
		if !ok {
			fmt.Fprintf(&b, "\n     · %s comment %d", e.Engine, id)
			continue
		}
		loc := f.Path
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
		}
		fmt.Fprintf(&b, "\n     · %s %s %s — %s", e.Engine, orDash(f.Severity), loc, f.Title)
	}
	return b.String()
}

// fixNote says what a fix cycle did: the commit, the tests, the threads.
func (r *run) fixNote(pr action.PRResult) {
	if pr.Pushed == "" && len(pr.Tests) == 0 && pr.Resolved == 0 {
		return
	}
	if pr.Pushed != "" {
		r.progress("   fix commit %s pushed to the PR branch\n", short(pr.Pushed))
	}
	for i, t := range pr.Tests {
		result := "— result unknown"
		if i < len(pr.TestPassed) {
			result = "— fail: the fix is reverted (E1)"
			if pr.TestPassed[i] {
				result = "— pass"
			}
		}
		if i < len(pr.TestFindings) && pr.TestFindings[i] != "" {
			r.progress("   test for %s: %s %s\n", r.findingName(pr, pr.TestFindings[i]), t, result)
			continue
		}
		r.progress("   test: %s %s\n", t, result)
	}
	r.progress("   %d review thread(s) resolved\n", pr.Resolved)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// findingName is a finding's engine and title as the cycle's list shows
// them, or its id when the plan does not hold it.
func (r *run) findingName(pr action.PRResult, id string) string {
	for _, f := range pr.Plan.Triage {
		if f.ID != id {
			continue
		}
		if p, ok := r.w.PostedFinding(f.CommentID); ok {
			return fmt.Sprintf("%s %q", f.Engine, p.Title)
		}
		return fmt.Sprintf("%s %q", f.Engine, f.Title)
	}
	return id
}
