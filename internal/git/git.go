// Package git wraps the git command line for the fix cycle: the checkout,
// its diffs and restores, token-authenticated fetches, and the
// branch-safety guardrails of rule B5. It pushes nothing: the fix commit
// is made through GitHub's API by internal/push (TB13). Every git invocation goes through a Runner, as an argv and never a
// shell string, so tests can drive a real temporary repository and inspect
// what was run.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/review-loop/review-loop/internal/reap"
)

// Runner runs git in one working directory and records every argv it ran.
type Runner struct {
	// Dir is the checkout git runs in.
	Dir string
	// Env is the environment git children pick their few pass-through
	// variables from (locale, proxies); nil: this process's. Nothing else
	// of it reaches git (TB7): PATH is SystemPath whatever it says.
	Env []string
	// Git is the git binary; empty means SystemGit, never a name looked
	// up on PATH.
	Git string
	// ServerURL is the GitHub server (GITHUB_SERVER_URL; empty:
	// https://github.com): the only host the token is ever sent to (TB2).
	ServerURL string

	mu    sync.Mutex
	calls [][]string
	// memo holds the answers of the queries only a write can change (see
	// memoKey), all read in the epoch memoAt; writes counts this Runner's
	// git writes begun and ended.
	memo   map[string]string
	memoAt epoch
	writes uint64
}

// epoch names a stretch of time in which nothing changed the checkout: no
// repository command started or ended (reap.Generation) and no git write
// of this Runner began or ended.
type epoch struct{ commands, writes uint64 }

func (r *Runner) epochLocked() epoch { return epoch{reap.Generation(), r.writes} }

// Calls returns a copy of every argv run so far, without the binary name.
func (r *Runner) Calls() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([][]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = slices.Clone(c)
	}
	return out
}

// CommandError is a failed git invocation with its argv and output.
type CommandError struct {
	Args   []string
	Output string
	Err    error
}

// Error reports the git subcommand and its trimmed output.
func (e *CommandError) Error() string {
	out := strings.TrimSpace(e.Output)
	if out == "" {
		return fmt.Sprintf("git %s: %v", strings.Join(e.Args, " "), e.Err)
	}
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, out)
}

// Unwrap returns the process error.
func (e *CommandError) Unwrap() error { return e.Err }

// Run runs git with args and returns its standard output.
func (r *Runner) Run(ctx context.Context, args ...string) (string, error) {
	return r.run(ctx, nil, nil, args...)
}

func (r *Runner) run(ctx context.Context, extraEnv []string, stdin []byte, args ...string) (string, error) {
	return r.exec(ctx, execOpts{dir: r.Dir, extraEnv: extraEnv, stdin: stdin}, args...)
}

// execOpts are one git run's working directory, the variables review-loop
// adds for it, its standard input and the files it inherits from fd 3 on.
type execOpts struct {
	dir      string
	home     string // HOME for this run; empty: the process's private one
	extraEnv []string
	stdin    []byte
	files    []*os.File
	stdout   io.Writer // nil: buffered and returned
}

// exec runs git with the hardening flags in an isolated environment
// (TB7), registered with the reaper (TB8).
func (r *Runner) exec(ctx context.Context, o execOpts, args ...string) (string, error) {
	if err := forbidden(args); err != nil {
		return "", err
	}
	key, memoizable := r.memoKey(o, args)
	write := !readOnly(args)
	r.mu.Lock()
	if write {
		r.writes++
		r.memo = nil
	}
	at := r.epochLocked()
	if out, ok := r.memo[key]; ok && memoizable && r.memoAt == at {
		r.mu.Unlock()
		return out, nil
	}
	r.calls = append(r.calls, slices.Clone(args))
	r.mu.Unlock()
	out, err := r.execGit(ctx, o, args)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case write:
		r.writes++
		r.memo = nil
	case memoizable && err == nil && r.epochLocked() == at:
		if r.memo == nil || r.memoAt != at {
			r.memo, r.memoAt = map[string]string{}, at
		}
		r.memo[key] = out
	}
	return out, err
}

// execGit runs one git child.
func (r *Runner) execGit(ctx context.Context, o execOpts, args []string) (string, error) {

	env, err := r.environ(o.extraEnv, o.home)
	if err != nil {
		return "", err
	}
	bin := r.Git
	if bin == "" {
		if bin, err = SystemGit(); err != nil {
			return "", err
		}
	}
	cmd := exec.CommandContext(ctx, bin, append(hardening(), args...)...)
	cmd.Dir = o.dir
	cmd.Env = env
	cmd.ExtraFiles = o.files
	if o.stdin != nil {
		cmd.Stdin = bytes.NewReader(o.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if o.stdout != nil {
		cmd.Stdout = o.stdout
	}
	cmd.Stderr = &stderr
	if err := reap.Run(cmd); err != nil {
		return stdout.String(), &CommandError{Args: slices.Clone(args), Output: stderr.String() + stdout.String(), Err: err}
	}
	return stdout.String(), nil
}

// Head returns the SHA of HEAD.
func (r *Runner) Head(ctx context.Context) (string, error) {
	out, err := r.Run(ctx, "rev-parse", "--verify", "HEAD")
	return strings.TrimSpace(out), err
}

// Show returns the content of path at commit (git show commit:path).
func (r *Runner) Show(ctx context.Context, commit, path string) ([]byte, error) {
	if commit == "" || strings.HasPrefix(commit, "-") {
		return nil, fmt.Errorf("git show: invalid commit %q", commit)
	}
	out, err := r.Run(ctx, "show", commit+":"+path)
	if err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// ChangedFiles lists the paths that differ from HEAD in the working tree,
// untracked files included, relative to the repository root.
func (r *Runner) ChangedFiles(ctx context.Context) ([]string, error) {
	out, err := r.Run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var files []string
	entries := strings.Split(out, "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		files = append(files, e[3:])
		if e[0] == 'R' || e[0] == 'C' {
			i++ // the source path of a rename follows
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// RestoreFiles puts files back to their HEAD content and removes the ones
// HEAD does not have, to abort a cycle's edits.
func (r *Runner) RestoreFiles(ctx context.Context, files []string) error {
	if len(files) == 0 {
		return nil
	}
	var tracked, untracked []string
	for _, f := range files {
		if _, err := r.Run(ctx, "cat-file", "-e", "HEAD:"+f); err == nil {
			tracked = append(tracked, f)
		} else {
			untracked = append(untracked, f)
		}
	}
	if len(tracked) > 0 {
		args := append([]string{"checkout", "HEAD", "--"}, tracked...)
		if _, err := r.Run(ctx, args...); err != nil {
			return fmt.Errorf("restoring files: %w", err)
		}
	}
	if len(untracked) > 0 {
		args := append([]string{"rm", "-r", "--cached", "--ignore-unmatch", "-q", "--"}, untracked...)
		if _, err := r.Run(ctx, args...); err != nil {
			return fmt.Errorf("unstaging new files: %w", err)
		}
		args = append([]string{"clean", "-q", "-f", "--"}, untracked...)
		if _, err := r.Run(ctx, args...); err != nil {
			return fmt.Errorf("removing new files: %w", err)
		}
	}
	return nil
}

// RestoreAll restores every changed file to HEAD; the tree is clean after.
func (r *Runner) RestoreAll(ctx context.Context) error {
	files, err := r.ChangedFiles(ctx)
	if err != nil {
		return err
	}
	return r.RestoreFiles(ctx, files)
}

// ErrNothingToCommit is returned by Commit when no file differs from HEAD.
var ErrNothingToCommit = errors.New("nothing to commit")
