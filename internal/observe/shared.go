package observe

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/reap"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file finds the shared helper packages a Tier 1 fix must not touch
// (TR2, TR3), from the checkout.

// goListTimeout bounds the `go list` that finds shared Go packages.
const goListTimeout = time.Minute

// SharedHelpers are the globs of shared-helper files for triage (TR2):
// the built-in directory names, those of the `shared-paths` input and
// of the config file's `shared_paths` key, and for a Go module in
// the checkout dir every package two or more of its packages import. A
// package graph that cannot be read is logged: only the named ones count.
func SharedHelpers(ctx context.Context, dir string, inputPaths, configPaths []string, log *slog.Logger) []string {
	globs := slices.Concat(triage.DefaultSharedHelpers, inputPaths, configPaths)
	dirs, err := goSharedDirs(ctx, dir)
	if err != nil {
		log.Warn("reading the Go package graph for shared helpers; only the named ones count", "err", err)
	}
	return append(globs, triage.DirGlobs(dirs)...)
}

// goSharedDirs runs `go list -e -json=… ./...` in the checkout of a Go
// module. It reads the package graph only: no network (GOPROXY=off), no
// toolchain download, no token in its environment (TB1). No go.mod or no
// go binary: no shared packages, and no error.
func goSharedDirs(ctx context.Context, dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return nil, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, goListTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "list", "-e", triage.GoListJSON, "./...")
	cmd.Dir = dir
	cmd.Env = append(fix.StripTokens(os.Environ()), "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=-mod=mod")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := reap.RunCommand(cmd); err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		root = dir
	}
	dirs, err := triage.SharedGoDirs(&out, root)
	if err == nil && len(dirs) == 0 && root != dir {
		dirs, err = triage.SharedGoDirs(bytes.NewReader(out.Bytes()), dir)
	}
	return dirs, err
}
