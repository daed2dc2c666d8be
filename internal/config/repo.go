package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/builtin"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file reads the repository's config file and builds the engine
// registry from it and the built-in engines.

// Repo is what the repository's own config file (.github/review-loop.yml)
// adds: engine definitions and triage patterns. A missing file is no error.
type Repo struct {
	Definitions []declarative.Definition
	Catalogue   *triage.Catalogue
	// SharedPaths are the `shared_paths` globs of shared helpers (TR2).
	SharedPaths []string
	// PathsIgnore are the `paths_ignore` globs of files never fixed (CV6).
	PathsIgnore []string
	// Prices are the `prices` of the cost ledger's estimate (CL1).
	Prices report.Prices
	// Texts are the `engine_texts` the repository adds to each engine's
	// words: proof, quota, error, skip (S12).
	Texts map[string][]engines.TextPattern
	// Severities are the `engine_severity_markers` the repository adds
	// to each engine's severity mapping (EQ3).
	Severities map[string]engines.SeverityMarkers

	// CleanAt is the `clean_at` severity floor (EQ3), "" when unset; the
	// clean-at input, when given, wins over it.
	CleanAt string
}

// LoadRepo reads the repository config file from the checkout.
func LoadRepo(workspace, file string) (Repo, error) {
	rc := Repo{Catalogue: triage.Builtin()}
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
	return ParseRepo(raw, file)
}

// ParseRepo reads the repository config file's content. Every
// problem is reported at once, one line each, each line naming the file
// once: a YAML syntax error is one line with its line and column, an
// unknown key is an error with the nearest known one.
func ParseRepo(raw []byte, file string) (rc Repo, err error) {
	defer func() {
		// The YAML decoder panics on some malformed input (a bare "!" tag
		// under a typed list): a bad file is an error naming it, never a
		// crash of the cycle.
		if r := recover(); r != nil {
			rc, err = Repo{Catalogue: triage.Builtin()}, fmt.Errorf("%s: the file could not be read as YAML (%v)", file, r)
		}
	}()
	rc = Repo{Catalogue: triage.Builtin()}
	var top map[string]any
	if err := yaml.Unmarshal(raw, &top); err != nil {
		return rc, fileProblems(file, ProblemLines(err))
	}
	problems := checkRepoKeys(top)
	if rc.Definitions, err = declarative.ParseDefinitions(raw); err != nil {
		problems = append(problems, ProblemLines(err)...)
	}
	// Unknown keys inside a definition (author, severity_markers,
	// body_sections…), which ParseDefinitions checks at the top of each
	// definition only, named by their path.
	problems = append(problems, newProblems(problems, unknownKeys(top, "engines"))...)
	if rc.Texts, err = engines.ParseEngineTexts(raw, engines.OriginRepository); err != nil {
		problems = append(problems, ProblemLines(err)...)
	}
	if rc.Severities, err = engines.ParseSeverityMarkers(raw); err != nil {
		problems = append(problems, ProblemLines(err)...)
	}
	if rc.Catalogue, err = triage.LoadCatalogue(raw); err != nil {
		rc.Catalogue = triage.Builtin()
		problems = append(problems, ProblemLines(err)...)
	}
	var shared struct {
		SharedPaths []string `yaml:"shared_paths"`
		PathsIgnore []string `yaml:"paths_ignore"`
	}
	if err := yaml.Unmarshal(raw, &shared); err != nil {
		problems = append(problems, ProblemLines(fmt.Errorf("shared_paths, paths_ignore: %w (want lists of globs)", err))...)
	}
	rc.SharedPaths = shared.SharedPaths
	rc.PathsIgnore = shared.PathsIgnore
	var floor struct {
		CleanAt string `yaml:"clean_at"`
	}
	if err := yaml.Unmarshal(raw, &floor); err != nil {
		problems = append(problems, ProblemLines(fmt.Errorf("clean_at: %w (want any, low, medium or high)", err))...)
	} else if _, err := loop.ParseCleanAt(floor.CleanAt); err != nil {
		problems = append(problems, "clean_at: "+strings.TrimPrefix(err.Error(), "clean-at: "))
	} else {
		rc.CleanAt = strings.ToLower(strings.TrimSpace(floor.CleanAt))
	}
	if rc.Prices, err = parsePrices(raw); err != nil {
		problems = append(problems, ProblemLines(err)...)
	}
	return rc, fileProblems(file, problems)
}

// newProblems are the lines of more whose key path no line of have
// names already.
func newProblems(have, more []string) []string {
	var out []string
	for _, m := range more {
		path, _, _ := strings.Cut(m, ": ")
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, path+": ") }) {
			out = append(out, m)
		}
	}
	return out
}

// ValidateRepo checks a config file completely, as a cycle would adopt
// it: every problem ParseRepo finds and those that need the engine
// registry the file makes (a `prices` key that names no engine), one line
// each. `review-loop doctor --config-file` runs it on a local file.
func ValidateRepo(raw []byte, file string) error {
	rc, err := ParseRepo(raw, file)
	if err != nil {
		return err
	}
	reg, err := BuildRegistry(Config{}, rc)
	if err != nil {
		return fileProblems(file, ProblemLines(err))
	}
	if err := CheckPriceEngines(rc.Prices, reg); err != nil {
		return fileProblems(file, ProblemLines(err))
	}
	return nil
}

var yamlPosition = regexp.MustCompile(`^[0-9]+:[0-9]+: `)

// fileProblems is one error of one line per problem, each naming the file.
func fileProblems(file string, problems []string) error {
	errs := make([]error, 0, len(problems))
	for _, p := range problems {
		if yamlPosition.MatchString(p) {
			errs = append(errs, fmt.Errorf("%s:%s", file, p)) // file:LINE:COL: message
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s", file, p))
	}
	return errors.Join(errs...)
}

// BuildRegistry returns the built-in engines plus the repository's own
// definitions (a repository definition of the same name replaces a built-in).
func BuildRegistry(cfg Config, rc Repo) (*engines.Registry, error) {
	r, err := builtin.Registry(builtin.Options{Claude: claude.Options{JobName: cfg.ClaudeWorkflowJob}, Definitions: rc.Definitions})
	if err != nil {
		return nil, fmt.Errorf("engine definitions: %w", err)
	}
	// S12: phrases for an engine review-loop does not know would be read
	// nowhere: a typo in a name is an error, not silence.
	var errs []error
	for _, e := range slices.Sorted(maps.Keys(rc.Texts)) {
		if _, ok := r.Lookup(e); !ok {
			errs = append(errs, fmt.Errorf("engine_texts.%s: unknown engine (known: %s)", e, strings.Join(r.Names(), ", ")))
		}
	}
	for _, e := range slices.Sorted(maps.Keys(rc.Severities)) {
		if _, ok := r.Lookup(e); !ok {
			errs = append(errs, fmt.Errorf("engine_severity_markers.%s: unknown engine (known: %s)", e, strings.Join(r.Names(), ", ")))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return r, nil
}
