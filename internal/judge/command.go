package judge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/review-loop/review-loop/internal/procenv"
	"github.com/review-loop/review-loop/internal/reap"
)

// InputEnv is the environment variable naming the material file.
const InputEnv = "REVIEW_LOOP_JUDGE_INPUT"

// secretEnv are variables never passed to a judge command.
var secretEnv = []string{"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "INPUT_TOKEN", "INPUT_TRIGGER-TOKEN", "INPUT_TRIGGER_TOKEN", "REVIEW_LOOP_TRIGGER_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"}

// Command is the judge-command provider: any executable, run with its
// arguments (never through a shell). The material is written as JSON to a
// file whose path is in REVIEW_LOOP_JUDGE_INPUT; the verdict is the JSON
// object on the last non-empty line of its standard output.
type Command struct {
	Path string
	Args []string
	// Env is the child's base environment (nil: this process's); only
	// procenv's allow-list of it reaches the command, never a token or key.
	Env []string
	// Dir is the working directory; TempDir holds the material file.
	Dir, TempDir string
	// Stderr receives the command's standard error (discarded when nil).
	Stderr io.Writer
}

var _ Judge = (*Command)(nil)

// Judge implements Judge.
func (c *Command) Judge(ctx context.Context, m Material) (Result, error) {
	res := Result{Provider: "judge-command"}
	in, err := Input(m)
	if err != nil {
		return res, fmt.Errorf("encoding judge input: %w", err)
	}
	f, err := os.CreateTemp(c.TempDir, "review-loop-judge-*.json")
	if err != nil {
		return res, fmt.Errorf("writing judge input: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(in); err != nil {
		f.Close()
		return res, fmt.Errorf("writing judge input: %w", err)
	}
	if err := f.Close(); err != nil {
		return res, fmt.Errorf("writing judge input: %w", err)
	}

	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	base := c.Env
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(scrub(procenv.Child(base)), InputEnv+"="+f.Name())
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = c.Stderr
	if err := reap.RunCommand(cmd); err != nil {
		return res, fmt.Errorf("judge command %s: %w", c.Path, err)
	}
	line := lastLine(out.String())
	if line == "" {
		return res, fmt.Errorf("judge command %s: %w: no output", c.Path, ErrMalformed)
	}
	r, err := ParseVerdict([]byte(line))
	if err != nil {
		return res, fmt.Errorf("judge command %s: last stdout line: %w", c.Path, err)
	}
	r.Provider = res.Provider
	return r, nil
}

func scrub(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		secret := k == InputEnv
		for _, s := range secretEnv {
			if strings.EqualFold(k, s) {
				secret = true
			}
		}
		if !secret {
			out = append(out, kv)
		}
	}
	return out
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\r\n\t "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
