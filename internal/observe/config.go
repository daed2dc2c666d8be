package observe

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/github"
)

// This file reads the repository config file: from the checkout, or with
// no checkout from the default branch.

// ConfigOnDefaultBranch reports whether the config file is read from the
// default branch through the API: the run has no checkout (treeless) and
// the file is a path in the repository.
func ConfigOnDefaultBranch(treeless bool, file string) bool {
	return treeless && file != "" && !filepath.IsAbs(file)
}

// RepoConfig reads the repository config file: from the checkout in dir,
// or when ConfigOnDefaultBranch from the default branch through the API
// (one request with gh).
func RepoConfig(ctx context.Context, gh *github.Client, owner, repo, dir, file string, treeless bool, log *slog.Logger) (config.Repo, error) {
	if !ConfigOnDefaultBranch(treeless, file) {
		return config.LoadRepo(dir, file)
	}
	raw, found, err := gh.FileContent(ctx, owner, repo, filepath.ToSlash(filepath.Clean(file)), "")
	if err != nil {
		return config.Repo{}, fmt.Errorf("no checkout in the workspace, so the config is read from the default branch: %w", err)
	}
	return DefaultBranchConfig(raw, found, file, log)
}

// DefaultBranchConfig parses the config file as read from the default
// branch (found false: there is none, and the built-in defaults hold).
func DefaultBranchConfig(raw []byte, found bool, file string, log *slog.Logger) (config.Repo, error) {
	if !found {
		return config.LoadRepo("", "")
	}
	log.Info("no checkout in the workspace: read the config from the default branch", "file", file)
	rc, err := config.ParseRepo(raw, file)
	if err != nil {
		return rc, fmt.Errorf("%w (read from the default branch: there is no checkout)", err)
	}
	return rc, nil
}
