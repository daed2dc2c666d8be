// Package fix applies the fixes of one cycle (rules E1–E3, E8, IN4, IN6):
// GitHub suggestion blocks deterministically, or a user-configured fixer
// command that only ever receives review text through a file. Each finding
// is applied, tested with the targeted test-command, and kept or reverted
// on its own; nothing here commits or pushes.
package fix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/triage"
)

// Providers by name.
const (
	ProviderSuggestions = "suggestions"
	ProviderCommand     = "command"
)

// SuggestionsOnly reports whether the fixer input names the provider that
// applies the engines' suggestion blocks only: anything but command,
// claude-code or codex (the empty input included).
func SuggestionsOnly(fixer string) bool {
	switch fixer {
	case ProviderCommand, ProviderClaudeCode, ProviderCodex:
		return false
	}
	return true
}

// DefaultFixerTimeout is the fixer-timeout default.
const DefaultFixerTimeout = 15 * time.Minute

// Outcome is what happened to one finding in the cycle.
type Outcome string

// Per-finding outcomes.
const (
	OutcomeFixed     Outcome = "fixed"
	OutcomeReverted  Outcome = "reverted"
	OutcomeOutdated  Outcome = "outdated"
	OutcomeDisagreed Outcome = "disagreed"
	OutcomeFailed    Outcome = "failed"
)

// Config is the fix set-up, read once from the inputs. Commands are argv
// (see SplitCommand); an empty one is not configured.
type Config struct {
	// Dir is the checkout.
	Dir string
	// Git runs git in Dir.
	Git *git.Runner
	// Env is the base environment of every child; tokens are stripped.
	Env []string
	// TestCommand is the targeted test, with {files}, {dirs}, {packages}.
	TestCommand []string
	// SetupCommand runs once per cycle before the first targeted test (IN6).
	SetupCommand []string
	// LintCommand is the self-check before the commit (E8).
	LintCommand []string
	// FixerCommand is the command provider's fixer.
	FixerCommand []string
	// FixerTimeout bounds the fixer (0: DefaultFixerTimeout).
	FixerTimeout time.Duration
	// ContextFiles are the context-files globs passed to the fixer (IN4).
	ContextFiles []string
	// Agent configures the claude-code and codex providers.
	Agent Agent
	// AgentBase is a commit of the PR's base branch: the agent
	// instruction files come from there while an agent runs.
	AgentBase string
}

// Pipeline runs fix cycles in one checkout.
type Pipeline struct {
	cfg Config
}

// NewPipeline returns a pipeline for cfg.
func NewPipeline(cfg Config) *Pipeline {
	if cfg.Git == nil {
		cfg.Git = &git.Runner{Dir: cfg.Dir}
	}
	if cfg.FixerTimeout <= 0 {
		cfg.FixerTimeout = DefaultFixerTimeout
	}
	return &Pipeline{cfg: cfg}
}

// CycleInput is one cycle's work: the Tier 1 and approved Tier 2 findings
// in the order to fix them.
type CycleInput struct {
	Findings []loop.Finding
	// Directions are the approved fix directions by finding id.
	Directions map[string]string
	// Provider is ProviderSuggestions (default) or ProviderCommand.
	Provider string
	// Fork is true for a fork PR: the cycle refuses to run.
	Fork bool
}

// Result is one finding's outcome, with a reason (for the log) and, for
// outdated and disagreed findings, a reply to post.
type Result struct {
	ID      string
	Outcome Outcome
	Reason  string
	Reply   string
	Files   []string
}

// CycleResult is what a cycle did: per-finding results in input order, the
// files left changed, and whether there is anything to commit.
type CycleResult struct {
	Results []Result
	Changed []string
	Commit  bool
	// Log holds one line per step, for the job log.
	Log []string
	// Tests are the targeted test commands run, as argv joined by spaces;
	// TestFindings[i] is the finding Tests[i] ran for, and TestPassed[i]
	// whether it passed (a failed one reverted its fix, E1).
	Tests        []string
	TestFindings []string
	TestPassed   []bool
	// Reverted are the changes left out of the commit, with why (TB9).
	Reverted []Revert
}

// Revert is one path the cycle put back before the commit and why: a
// command changed it and no fix claimed it, or no fix may commit it.
type Revert struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// Fixed returns the ids of the findings kept as fixed.
func (r CycleResult) Fixed() []string {
	var ids []string
	for _, x := range r.Results {
		if x.Outcome == OutcomeFixed {
			ids = append(ids, x.ID)
		}
	}
	return ids
}

// ErrFork refuses a fix cycle on a fork PR (report-only).
var ErrFork = errors.New("fix cycle refused: fork pull requests are report-only")

// RunCycle runs setup, then each finding through its provider, targeted
// test and keep/revert, then the lint self-check. On an error the cycle's
// edits are reverted, the tree is left clean and nothing is to commit.
func (p *Pipeline) RunCycle(ctx context.Context, in CycleInput) (CycleResult, error) {
	if in.Fork {
		return CycleResult{}, ErrFork
	}
	var res CycleResult
	if len(in.Findings) == 0 {
		return res, nil
	}
	dirty, err := p.cfg.Git.ChangedFiles(ctx)
	if err != nil {
		return res, fmt.Errorf("reading the working tree: %w", err)
	}
	if len(dirty) > 0 {
		return res, fmt.Errorf("fix cycle refused: the working tree has changes before the cycle: %s", strings.Join(dirty, ", "))
	}
	c := &cycle{p: p, res: &res, directions: in.Directions, kept: map[string]produced{}, paths: map[string]string{}}
	for _, f := range in.Findings {
		c.paths[f.ID] = f.Path
	}
	switch in.Provider {
	case "", ProviderSuggestions:
		err = c.suggestions(ctx, in.Findings)
	case ProviderCommand:
		err = c.command(ctx, in.Findings)
	case ProviderClaudeCode, ProviderCodex:
		err = c.agent(ctx, in.Provider, in.Findings)
	default:
		err = fmt.Errorf("unknown fix provider %q (suggestions, command, claude-code, codex)", in.Provider)
	}
	if err == nil && len(res.Fixed()) > 0 && len(p.cfg.LintCommand) > 0 {
		if _, lerr := runProcess(ctx, "lint-command", p.cfg.Dir, p.cfg.LintCommand, p.cfg.Env, 0); lerr != nil {
			for i := range res.Results {
				if res.Results[i].Outcome == OutcomeFixed {
					res.Results[i].Outcome, res.Results[i].Reason = OutcomeReverted, "lint-command failed after the cycle (E8)"
				}
			}
			err = fmt.Errorf("lint-command failed; the cycle's fixes are reverted: %w", lerr)
		}
	}
	if err == nil {
		err = c.confine(ctx)
	}
	if err != nil {
		if rerr := p.cfg.Git.RestoreAll(ctx); rerr != nil {
			err = errors.Join(err, fmt.Errorf("reverting the cycle: %w", rerr))
		}
		res.Changed, res.Commit = nil, false
		res.Log = append(res.Log, "cycle aborted: "+err.Error())
		return res, err
	}
	if res.Changed, err = p.cfg.Git.ChangedFiles(ctx); err != nil {
		return res, fmt.Errorf("reading the working tree: %w", err)
	}
	res.Commit = len(res.Changed) > 0 && len(res.Fixed()) > 0
	return res, nil
}

type cycle struct {
	p          *Pipeline
	res        *CycleResult
	directions map[string]string
	setupDone  bool
	shown      map[showKey]showResult
	// kept is the content each fix kept gave its files (TB9).
	kept map[string]produced
	// paths are the findings' own paths by id.
	paths map[string]string
}

func (c *cycle) logf(format string, args ...any) {
	c.res.Log = append(c.res.Log, fmt.Sprintf(format, args...))
}

func (c *cycle) add(r Result) {
	c.res.Results = append(c.res.Results, r)
	c.logf("%s: %s%s", r.ID, r.Outcome, prefixed(": ", r.Reason))
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// setup runs the setup-command once, before the first targeted test (IN6).
func (c *cycle) setup(ctx context.Context) error {
	if c.setupDone || len(c.p.cfg.SetupCommand) == 0 {
		c.setupDone = true
		return nil
	}
	c.setupDone = true
	if _, err := runProcess(ctx, "setup-command", c.p.cfg.Dir, c.p.cfg.SetupCommand, c.p.cfg.Env, 0); err != nil {
		return fmt.Errorf("setup-command failed; no fix this cycle: %w", err)
	}
	c.logf("setup-command ok")
	return nil
}

// test runs the targeted test for files; a nil error means it passed or
// there is no test-command (only approved Tier 2 findings get here then).
func (c *cycle) test(ctx context.Context, finding string, files []string) error {
	if err := c.setup(ctx); err != nil {
		return &setupError{err}
	}
	if len(c.p.cfg.TestCommand) == 0 {
		return nil
	}
	argv := ExpandPlaceholders(c.p.cfg.TestCommand, files)
	c.res.Tests = append(c.res.Tests, strings.Join(argv, " "))
	c.res.TestFindings = append(c.res.TestFindings, finding)
	_, err := runProcess(ctx, "test-command", c.p.cfg.Dir, argv, c.p.cfg.Env, 0)
	c.res.TestPassed = append(c.res.TestPassed, err == nil)
	return err
}

type setupError struct{ error }

func (e *setupError) Unwrap() error { return e.error }

// readFile reads a file of the checkout through os.Root, never through a
// symlink (TB5).
func (c *cycle) readFile(rel string) ([]byte, error) {
	root, name, err := c.openRoot(rel)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(name)
}

// writeFile replaces a file of the checkout through os.Root: nothing is
// written outside the repository or through a symlink (TB5), and the
// file keeps its mode.
func (c *cycle) writeFile(rel string, b []byte) error {
	root, name, err := c.openRoot(rel)
	if err != nil {
		return err
	}
	defer root.Close()
	mode := os.FileMode(0o644)
	if info, err := root.Lstat(name); err == nil {
		mode = info.Mode().Perm()
	}
	return root.WriteFile(name, b, mode)
}

// openRoot opens the checkout as an os.Root and checks rel: inside the
// checkout, outside .git, and no component of it a symlink (os.Root
// follows links that stay inside the root, such as cfg -> .git/config).
func (c *cycle) openRoot(rel string) (*os.Root, string, error) {
	if err := safePath(rel); err != nil {
		return nil, "", err
	}
	root, err := os.OpenRoot(c.p.cfg.Dir)
	if err != nil {
		return nil, "", fmt.Errorf("opening the checkout: %w", err)
	}
	name := filepath.FromSlash(path.Clean(filepath.ToSlash(rel)))
	parts := strings.Split(filepath.ToSlash(name), "/")
	for i := range parts {
		sub := filepath.FromSlash(strings.Join(parts[:i+1], "/"))
		info, err := root.Lstat(sub)
		if err != nil {
			if os.IsNotExist(err) {
				break
			}
			root.Close()
			return nil, "", err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			root.Close()
			return nil, "", fmt.Errorf("path %q: %s is a symlink; review-loop never writes through one (TB5)", rel, filepath.ToSlash(sub))
		}
	}
	return root, name, nil
}

// safePath refuses paths that leave the checkout or enter .git.
func safePath(p string) error {
	clean := filepath.ToSlash(filepath.Clean(p))
	if p == "" || filepath.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") || clean == ".git" || strings.HasPrefix(clean, ".git/") {
		return fmt.Errorf("path %q is not a file of the checkout", p)
	}
	return nil
}

func files(f loop.Finding) []string { return triage.Files(f) }
