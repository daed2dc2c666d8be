package action

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/engines/copilot"
	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/internal/triage"
)

// repoConfig is what the repository's own config file (.github/review-loop.yml)
// adds: engine definitions and triage patterns. A missing file is no error.
type repoConfig struct {
	raw       []byte
	engines   []engines.Engine
	catalogue *triage.Catalogue
}

// loadRepoConfig reads the repository config file from the checkout.
func loadRepoConfig(workspace, file string) (repoConfig, error) {
	rc := repoConfig{catalogue: triage.Builtin()}
	if file == "" {
		return rc, nil
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(workspace, file)
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return rc, nil
	}
	if err != nil {
		return rc, fmt.Errorf("reading %s: %w", file, err)
	}
	rc.raw = raw
	defs, err := declarative.ParseDefinitions(raw)
	if err != nil {
		return rc, fmt.Errorf("%s: %w", file, err)
	}
	if rc.engines, err = declarative.Engines(defs); err != nil {
		return rc, fmt.Errorf("%s: %w", file, err)
	}
	if rc.catalogue, err = triage.LoadCatalogue(raw); err != nil {
		return rc, fmt.Errorf("%s: %w", file, err)
	}
	return rc, nil
}

// buildRegistry returns the built-in engines plus the repository's own
// definitions (a repository definition of the same name replaces a built-in).
func buildRegistry(cfg Config, rc repoConfig) (*engines.Registry, error) {
	all := []engines.Engine{
		bugbot.New(),
		copilot.New(),
		claude.New(claude.Options{JobName: cfg.ClaudeWorkflowJob}),
	}
	defs, err := declarative.Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in engine definitions: %w", err)
	}
	builtins, err := declarative.Engines(defs)
	if err != nil {
		return nil, fmt.Errorf("built-in engine definitions: %w", err)
	}
	all = append(all, builtins...)
	all = append(all, rc.engines...)
	return engines.NewRegistry(all...), nil
}
