package fix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/review-loop/review-loop/internal/procenv"
	"github.com/review-loop/review-loop/internal/reap"
)

// SplitCommand splits a configured command into argv the way a POSIX
// shell splits words (spaces, single and double quotes, backslashes),
// without running a shell and without expanding anything: `$(...)`,
// backticks, `;` and `|` stay literal characters.
func SplitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command %q: unclosed single quote", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("command %q: unclosed double quote", s)
			}
			inWord = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}

// ExpandPlaceholders replaces {files}, {dirs} and {packages} in argv: an
// element that is exactly a placeholder becomes one element per value; a
// placeholder inside a longer element is replaced by the values joined
// with spaces. Every value is a ./-prefixed relative path (`./a.go`,
// `./internal/foo`), so a PR file named like an option (`--x=…`) can
// never become one (TB5).
func ExpandPlaceholders(argv, files []string) []string {
	var rel, dirs, pkgs []string
	for _, f := range files {
		rel = append(rel, dotSlash(f))
		d := path.Dir(f)
		if !slices.Contains(dirs, dotSlash(d)) {
			dirs = append(dirs, dotSlash(d))
			pkgs = append(pkgs, dotSlash(d))
		}
	}
	values := map[string][]string{"{files}": rel, "{dirs}": dirs, "{packages}": pkgs}
	var out []string
	for _, a := range argv {
		if v, ok := values[a]; ok {
			out = append(out, v...)
			continue
		}
		for k, v := range values {
			a = strings.ReplaceAll(a, k, strings.Join(v, " "))
		}
		out = append(out, a)
	}
	return out
}

// dotSlash prefixes a relative path with ./ ("." stays ".").
func dotSlash(p string) string {
	p = path.Clean(p)
	if p == "." || strings.HasPrefix(p, "/") {
		return p
	}
	return "./" + p
}

// StripTokens returns the environment a child process gets from env: the
// one allow-list of procenv.Child (TB1), which keeps no token and no key.
func StripTokens(env []string) []string {
	return procenv.Child(env)
}

// ChildEnv is the base environment of the fix pipeline's children: env
// with tokens stripped, and first (when set) first on PATH.
func ChildEnv(env []string, first string) []string {
	out := StripTokens(env)
	if first == "" {
		return out
	}
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + first + string(os.PathListSeparator) + v
			return out
		}
	}
	return append(out, "PATH="+first)
}

// ProcessError is a child command that failed, timed out or could not start.
type ProcessError struct {
	What     string // "test-command", "fixer", ...
	Argv     []string
	TimedOut bool
	Output   string
	Err      error
}

// Error gives the command's role, the reason and the end of its output.
func (e *ProcessError) Error() string {
	why := e.Err.Error()
	if e.TimedOut {
		why = "timed out"
	}
	out := strings.TrimSpace(e.Output)
	if len(out) > 600 {
		out = "…" + out[len(out)-600:]
	}
	if out == "" {
		return fmt.Sprintf("%s %q: %s", e.What, strings.Join(e.Argv, " "), why)
	}
	return fmt.Sprintf("%s %q: %s: %s", e.What, strings.Join(e.Argv, " "), why, out)
}

// Unwrap returns the process error.
func (e *ProcessError) Unwrap() error { return e.Err }

// Public is the error without the command's output: its role, argv and
// exit status or reason, for records other people read (SC5). The output
// belongs in the job log only.
func (e *ProcessError) Public() string {
	why := e.Err.Error()
	if e.TimedOut {
		why = "timed out"
	}
	return fmt.Sprintf("%s %q: %s", e.What, strings.Join(e.Argv, " "), why)
}

// runProcess runs argv in dir with env (tokens stripped) and a timeout
// (0: none), returning stdout and stderr+stdout for messages.
func runProcess(ctx context.Context, what, dir string, argv, env []string, timeout time.Duration) (stdout []byte, err error) {
	return runProcessWith(ctx, what, dir, argv, env, nil, timeout)
}

// runProcessWith is runProcess with extra variables added after the tokens
// are stripped: an agent's own API key, for that child only.
func runProcessWith(ctx context.Context, what, dir string, argv, env, extra []string, timeout time.Duration) (stdout []byte, err error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s: empty command", what)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(StripTokens(env), extra...)
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var out, combined bytes.Buffer
	var mu sync.Mutex
	cmd.Stdout = &lockedWriter{mu: &mu, a: &out, b: &combined}
	cmd.Stderr = &lockedWriter{mu: &mu, b: &combined}
	runErr := reap.RunCommand(cmd)
	if runErr != nil {
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		return out.Bytes(), &ProcessError{What: what, Argv: argv, TimedOut: timedOut, Output: combined.String(), Err: runErr}
	}
	return out.Bytes(), nil
}

// lockedWriter lets stdout and stderr share one combined buffer.
type lockedWriter struct {
	mu   *sync.Mutex
	a, b *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.a != nil {
		w.a.Write(p)
	}
	return w.b.Write(p)
}

// testFailure is why a fix whose targeted test failed was reverted, the
// refusal first when the command tampered with the runner's file
// commands (TB11): a long command line must not push it out of sight.
func testFailure(err error) string {
	var te *reap.TamperError
	if errors.As(err, &te) {
		return "refused: " + te.Error() + "; the fix was reverted"
	}
	return "targeted test failed: " + err.Error()
}
