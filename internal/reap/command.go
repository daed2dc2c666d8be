package reap

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// Runner-owned files a repository command must not change (TB11): the
// runner's file-command files (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT,
// GITHUB_STATE, GITHUB_STEP_SUMMARY), which the runner reads after the
// step to set later steps' environment and PATH, and RUNNER_TEMP, which
// commands never get as their temporary directory.
var (
	protected  []string
	runnerTemp string
)

// generation counts the starts and ends of repository commands.
var generation atomic.Uint64

// Generation changes each time a repository command starts or ends
// (RunCommand): an answer read from the checkout under one generation
// may not hold under another.
func Generation() uint64 { return generation.Load() }

// Protect names the runner's file-command files and RUNNER_TEMP; only the
// top layer calls it, once, with what the runner set.
func Protect(fileCommands []string, runnerTempDir string) {
	mu.Lock()
	defer mu.Unlock()
	protected = nil
	for _, f := range fileCommands {
		if f != "" {
			protected = append(protected, f)
		}
	}
	runnerTemp = runnerTempDir
}

// TamperError names the runner files a command changed; they were put
// back as they were before it ran.
type TamperError struct {
	Files []string
}

func (e *TamperError) Error() string {
	// The rule and what happened first, the files last: a reason shown
	// on the PR is cut to a row's width, and runner paths are long.
	names := make([]string, len(e.Files))
	for i, f := range e.Files {
		names[i] = filepath.Base(f)
	}
	return fmt.Sprintf("the command changed the runner's file-command files (TB11), which set later steps' environment and PATH; they were restored: %s", strings.Join(names, ", "))
}

type fileState struct {
	path   string
	exists bool
	mode   fs.FileMode
	data   []byte
}

// RunCommand runs a repository command (test, lint, setup, fixer, judge):
// in a temporary directory of its own (TMPDIR, TMP and TEMP, removed
// after), never RUNNER_TEMP; with the runner's file-command files put back
// as they were if it changed them; and, once Enable succeeded, with every
// process it left behind ended before RunCommand returns (TB8). cmd.Env
// must be set.
func RunCommand(cmd *exec.Cmd) error {
	mu.Lock()
	base, files := tempBase(), append([]string(nil), protected...)
	mu.Unlock()
	tmp, err := os.MkdirTemp(base, "review-loop-cmd-")
	if err != nil {
		return fmt.Errorf("creating the command's temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	before := snapshot(files)
	// A command may change anything in the checkout: what review-loop
	// remembered of it (the git answers internal/git keeps between its own
	// writes) is stale from the moment it starts until it has ended.
	generation.Add(1)
	defer generation.Add(1)
	err = Run(cmd)
	// Every process the command left behind ends before anything else
	// runs (TB8); one that cannot be ended fails the command.
	if serr := Clear(); serr != nil {
		err = errors.Join(err, serr)
	}
	if changed := restore(before); len(changed) > 0 {
		err = errors.Join(err, &TamperError{Files: changed})
	}
	return err
}

// tempBase is where commands' temporary directories go: this process's
// temporary directory unless that is inside RUNNER_TEMP.
func tempBase() string {
	base := os.TempDir()
	if runnerTemp != "" && within(base, runnerTemp) {
		if os.PathSeparator == '/' {
			return "/tmp"
		}
		return filepath.Dir(runnerTemp)
	}
	return base
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func snapshot(paths []string) []fileState {
	out := make([]fileState, 0, len(paths))
	for _, p := range paths {
		st := fileState{path: p}
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() {
			if b, err := os.ReadFile(p); err == nil {
				st.exists, st.mode, st.data = true, info.Mode().Perm(), b
			}
		}
		out = append(out, st)
	}
	return out
}

// restore puts every file back as the snapshot held it and returns the
// ones that had changed. A file replaced by a symbolic link or another
// kind of file is removed first, so the restore never writes through it.
func restore(states []fileState) []string {
	var changed []string
	for _, st := range states {
		info, err := os.Lstat(st.path)
		switch {
		case !st.exists && errors.Is(err, fs.ErrNotExist):
			continue
		case !st.exists:
			changed = append(changed, st.path)
			_ = os.RemoveAll(st.path)
			continue
		case err == nil && info.Mode().IsRegular():
			if b, rerr := os.ReadFile(st.path); rerr == nil && bytes.Equal(b, st.data) {
				continue
			}
		}
		changed = append(changed, st.path)
		_ = os.RemoveAll(st.path)
		f, err := os.OpenFile(st.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.mode)
		if err == nil {
			_, _ = f.Write(st.data)
			_ = f.Close()
		}
	}
	return changed
}
