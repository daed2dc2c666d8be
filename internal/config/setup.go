package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file is a run's configuration judged as a whole (C2): first what
// needs no request (the event, its payload, the bounds, the engine names
// as far as the built-in engines know them: NewSetup), then what the
// repository's config file adds (WithRepo), and from both which signals
// of the event wake the loop (Wake) and how the GitHub clients are set up.

// ErrNoEventName: the run cannot know what woke it.
var ErrNoEventName = errors.New("GITHUB_EVENT_NAME is not set: review-loop runs as a step of a workflow, where the runner sets it to the name of the event that started the run")

// ErrNoEventPath: inside Actions the runner always sets GITHUB_EVENT_PATH;
// without it the run cannot know what woke it, and guessing would act on
// the wrong thing.
var ErrNoEventPath = errors.New("GITHUB_EVENT_PATH is not set: inside GitHub Actions the runner sets it to the event payload; do not override it in the workflow's env")

// Setup is a run's configuration judged: the inputs, the loop's settings,
// the engine registry and the repository's config file. NewSetup makes it
// with the built-in engines only; WithRepo adds the config file.
type Setup struct {
	Config Config
	// Loop is the loop's configuration; its PathsIgnore are the input's
	// globs and, after WithRepo, the config file's (CV6).
	Loop loop.Config
	// Registry are the engines: the built-in ones until WithRepo, then
	// with the config file's definitions.
	Registry *engines.Registry
	// Repo is the config file as WithRepo adopted it; zero before.
	Repo Repo
	// NotBuiltin are the `engines` names no built-in engine has: only the
	// config file can define them, so they are checked by WithRepo.
	NotBuiltin []string
	// Payload is the event payload (GITHUB_EVENT_PATH); "{}" without one.
	Payload []byte
	// SelfWorkflow is the running workflow's name (GITHUB_WORKFLOW): its
	// own runs never wake the loop.
	SelfWorkflow string
}

// NewSetup judges what needs no request (C2): the event name and payload,
// the bounds, and the engine names as far as the built-in engines know
// them. getenv reads the Actions context (GITHUB_ACTIONS,
// GITHUB_WORKFLOW).
func NewSetup(cfg Config, getenv func(string) string) (Setup, error) {
	if cfg.EventName == "" {
		return Setup{}, ErrNoEventName
	}
	if cfg.EventPath == "" && getenv("GITHUB_ACTIONS") == "true" {
		return Setup{}, ErrNoEventPath
	}
	lc, err := Loop(cfg)
	if err != nil {
		return Setup{}, err
	}
	payload, err := readPayload(cfg.EventPath)
	if err != nil {
		return Setup{}, err
	}
	base, err := BuildRegistry(cfg, Repo{})
	if err != nil {
		return Setup{}, err
	}
	s := Setup{Config: cfg, Loop: lc, Registry: base, Payload: payload, SelfWorkflow: getenv("GITHUB_WORKFLOW")}
	for _, n := range cfg.Engines {
		n = strings.TrimSpace(n)
		if _, ok := base.Lookup(n); !ok && n != "" {
			s.NotBuiltin = append(s.NotBuiltin, n)
		}
	}
	return s, nil
}

func readPayload(path string) ([]byte, error) {
	if path == "" {
		return []byte("{}"), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	return b, nil
}

// WithRepo adopts the repository's config file: its engine definitions,
// patterns and prices, checked against the inputs, and its paths_ignore
// globs after the input's (CV6).
func (s Setup) WithRepo(rc Repo) (Setup, error) {
	cfg := s.Config
	reg, err := BuildRegistry(cfg, rc)
	if err != nil {
		return s, err
	}
	if err := CheckPriceEngines(rc.Prices, reg); err != nil {
		return s, fmt.Errorf("%s: %w", cfg.ConfigFile, err)
	}
	if len(cfg.Engines) > 0 {
		if _, err := reg.ParseNames(strings.Join(cfg.Engines, ",")); err != nil {
			return s, fmt.Errorf("input engines: %w", err)
		}
	}
	s.Repo, s.Registry = rc, reg
	s.Loop.PathsIgnore = append(slices.Clone(cfg.PathsIgnore), rc.PathsIgnore...)
	if cfg.CleanAt == "" {
		// EQ3: the file's floor (or any), when the input names none.
		floor, err := loop.ParseCleanAt(rc.CleanAt)
		if err != nil {
			return s, fmt.Errorf("%s: %w", cfg.ConfigFile, err)
		}
		s.Loop.CleanAt = floor
	}
	return s, nil
}

// EventConfig tells the event parser which signals wake the loop: the
// check runs and apps of every engine of the registry. watchAll watches
// every check run and suite, for an event judged before the config file
// that may define more engines is read.
func (s Setup) EventConfig(watchAll bool) event.Config {
	ec := event.Config{
		TriggerPhrase:       s.Config.TriggerPhrase,
		AllowedAssociations: s.Config.AllowedAssociations,
		SelfWorkflow:        s.SelfWorkflow,
		WatchAll:            watchAll,
	}
	if s.Config.PR > 0 {
		ec.PR = fmt.Sprint(s.Config.PR)
	}
	for _, n := range s.Registry.Names() {
		e, _ := s.Registry.Lookup(n)
		c := e.Capabilities()
		if c.CheckRunName != "" {
			ec.WatchedCheckRuns = append(ec.WatchedCheckRuns, c.CheckRunName)
		}
		if c.CheckRunApp != "" && c.CheckRunApp != "github-actions" {
			ec.WatchedApps = append(ec.WatchedApps, c.CheckRunApp)
		}
	}
	ec.WatchedWorkflows = append(ec.WatchedWorkflows, "Claude Code Review", "Claude Code", "claude-code-review")
	return ec
}

// Wake is what the event means with this setup's engines; watchAll as
// for EventConfig. Judged with the built-in engines only and every check
// run watched, an ignored event is ignored whatever the config file adds
// (engine definitions only add watched check runs and apps).
func (s Setup) Wake(watchAll bool) (event.Wake, error) {
	return event.Parse(s.Config.EventName, s.Payload, s.EventConfig(watchAll))
}

// DefersRepo reports whether the config file is read with the first
// observation, in the observation's own query (C2: an idle wake is one
// read), rather than before it: with no checkout (treeless), a config
// file in the repository, and no engine name that needs its definitions
// before the first request.
func (s Setup) DefersRepo(treeless bool) bool {
	return treeless && s.Config.RepoConfigPath() != "" && len(s.NotBuiltin) == 0
}

// RepoUnreadable is the error of a config file that could not be read:
// an engine name only the file could define says so.
func (s Setup) RepoUnreadable(err error) error {
	if len(s.NotBuiltin) == 0 {
		return err
	}
	return fmt.Errorf("input engines: %s is no built-in engine, and the config file that could define it could not be read: %w",
		strings.Join(s.NotBuiltin, ", "), err)
}

// RepoConfigPath is the config file's path in the repository, slashed
// and clean; "" without one, or when the input names an absolute path
// (a file of the runner, never read from the repository).
func (c Config) RepoConfigPath() string {
	if c.ConfigFile == "" || filepath.IsAbs(c.ConfigFile) {
		return ""
	}
	return filepath.ToSlash(filepath.Clean(c.ConfigFile))
}

// ClientOptions are the options of a GitHub client acting with token:
// base (timeouts, retries, transport) with the run's API endpoints and
// the config file the observation reads from the default branch.
func (c Config) ClientOptions(base github.Options, token string) github.Options {
	base.Token, base.APIURL, base.GraphQLURL = token, c.APIURL, c.GraphQLURL
	base.Secrets = c.SecretSet()
	if f := c.RepoConfigPath(); f != "" {
		base.ConfigFile = f
	}
	return base
}

// WorkflowFile is the running workflow's file name from
// GITHUB_WORKFLOW_REF (owner/repo/.github/workflows/file.yml@ref); ""
// outside a workflow run.
func (c Config) WorkflowFile() string {
	path, _, _ := strings.Cut(c.WorkflowRef, "@")
	if i := strings.Index(path, ".github/workflows/"); i >= 0 {
		return path[i+len(".github/workflows/"):]
	}
	return ""
}
