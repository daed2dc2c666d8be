// Package config reads and checks review-loop's configuration: the
// action's inputs and the Actions context (Config, Load), the
// repository's config file (Repo, LoadRepo, ParseRepo) and the engine
// registry they make (BuildRegistry), the loop's bounds (Loop), and a
// run's whole configuration judged from them (Setup: Judge, WithRepo).
// Every problem is reported at load, before the first request (C2).
package config

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/secret"
	"github.com/sethvargo/go-githubactions"
)

// This file reads the action's inputs and the Actions context into
// Config, and the config values that need parsing (prices, CI workflows).

// Config is every input of the action and the Actions context it runs in,
// read once by Load and passed down as a typed value.
type Config struct {
	// Tokens. PushToken and TriggerToken fall back as documented.
	GitHubToken  string
	PushToken    string
	TriggerToken string

	Engines             []string // empty: every installed engine
	PR                  int      // 0: from the event
	TriggerPhrase       string
	AllowedAssociations []string

	MaxCommits       int
	MaxActiveMinutes int
	MaxIdleMinutes   int
	YieldMinutes     int // how long review-loop yields to a person (HY1)
	// DivergenceStop, ProseRounds and PathsIgnore are the convergence
	// rules' settings (CV2, CV3, CV6).
	DivergenceStop bool
	ProseRounds    int
	PathsIgnore    []string
	// CleanAt is the severity floor (EQ3) the input names; empty when the
	// input is unset, and then the config file's clean_at, else any.
	CleanAt              string
	StallFactor          int
	MaxConsecutiveErrors int
	CopilotOnly          bool
	MaxIterations        int
	WaitInitial          time.Duration
	PollInterval         time.Duration
	PollTimeout          time.Duration
	InJobWait            time.Duration
	KeepDraft            bool

	ContextFiles      []string
	SetupCommand      string
	TestCommand       string
	LintCommand       string
	RegressionCommand string
	Fixer             string // "suggestions" or "command"
	FixerCommand      string
	FixerTimeout      time.Duration
	JudgeCommand      string
	AnthropicAPIKey   string
	JudgeModel        string
	// OpenAIAPIKey, FixerModel and FixerMaxTurns configure the agent
	// fixers (claude-code, codex).
	OpenAIAPIKey      string
	FixerModel        string
	FixerMaxTurns     int
	NonBlocking       string // "report" or "issue"
	ClaudeWorkflowJob string
	ConfigFile        string
	AuthorName        string
	AuthorEmail       string
	DryRun            bool
	Version           string
	// Mode is single, or prepare or publish for the two jobs of hardened
	// mode (TB1); ArtifactDir is where prepare writes and publish reads.
	Mode        string
	ArtifactDir string
	// Prepared is the prepare job's hand-over as the publish job receives
	// it (needs.prepare.outputs.prepared, TB16); empty: read ArtifactDir.
	Prepared string
	// MaxPatchFiles and MaxPatchBytes cap one fix commit's patch: a larger
	// one is refused with a hand-back, never pushed.
	MaxPatchFiles int
	MaxPatchBytes int
	// StartOn is the start policy (`start-on`): command or auto.
	StartOn string
	// SharedPaths are globs of shared helpers besides the default names
	// and Go packages imported by two or more packages (TR2).
	SharedPaths []string
	// CIWorkflows are the repository's CI workflow files the loop
	// dispatches on the PR head after a push GITHUB_TOKEN made (CI1).
	CIWorkflows []string
	// SweepFanout is how the scheduled sweep advances the live loops it
	// finds (`sweep-fanout`): dispatch (one workflow run per loop, each in
	// its own concurrency group) or inline (cycled in the sweep's job,
	// at most sweepBudget of them).
	SweepFanout string
	// RateLimitFloor and RateLimitFloorPercent are `rate-limit-floor` (an
	// absolute number of requests, or a percentage of the limit): under it
	// a waiting or triggering cycle defers to the budget's reset (B7).
	RateLimitFloor        int
	RateLimitFloorPercent int

	// Actions context.
	EventName   string
	EventPath   string
	Repository  string // owner/name
	Owner, Repo string
	APIURL      string
	GraphQLURL  string
	ServerURL   string
	Workspace   string
	RunID       int64
	WorkflowRef string // owner/repo/.github/workflows/file.yml@ref
	Actor       string
	// EnvSecrets are the environment's secret variables by name (set by
	// the command from procenv, not read by Load): checked like the secret
	// inputs before anything is written (TB14).
	EnvSecrets map[string]string
}

// inputNames lists every input Load reads; action.yml must map each of
// them to its INPUT_ variable (checked by a test).
var inputNames = []string{
	"github-token", "push-token", "trigger-token", "engines", "pr",
	"trigger-phrase", "allowed-associations", "max-commits",
	"max-active-minutes", "max-idle-minutes", "stall-factor",
	"max-consecutive-errors", "copilot-only", "max-iterations",
	"wait-initial", "poll-interval", "poll-timeout", "wait-seconds",
	"keep-draft", "context-files", "setup-command", "test-command",
	"lint-command", "regression-command", "fixer", "fixer-command",
	"fixer-timeout", "judge-command", "anthropic-api-key", "judge-model",
	"non-blocking", "claude-workflow-job", "config-file",
	"commit-author-name", "commit-author-email", "dry-run", "binary-path",
	"version", "mode", "artifact-dir", "prepared", "start-on", "shared-paths",
	"sweep-fanout", "rate-limit-floor",
	"openai-api-key", "fixer-model", "fixer-max-turns",
	"yield-minutes", "ci-workflows",
	"divergence-stop", "prose-rounds", "paths-ignore", "clean-at",
	"max-patch-files", "max-patch-bytes",
}

// InputNames returns the names of every input Load reads.
func InputNames() []string { return append([]string(nil), inputNames...) }

// Load reads every input and the Actions context through getenv and
// validates them, joining every problem into one error.
func Load(getenv func(string) string) (Config, error) {
	a := githubactions.New(githubactions.WithGetenv(getenv))
	in := func(name, def string) string {
		if v := a.GetInput(name); v != "" {
			return v
		}
		return def
	}
	var errs []error
	num := func(name string, def int) int {
		raw := in(name, strconv.Itoa(def))
		n, err := strconv.Atoi(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("input %s: %q is not a whole number", name, raw))
			return def
		}
		if n < 0 {
			errs = append(errs, fmt.Errorf("input %s: %d must not be negative", name, n))
		}
		return n
	}
	boolean := func(name string) bool {
		raw := in(name, "false")
		b, err := strconv.ParseBool(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("input %s: %q is not true or false", name, raw))
		}
		return b
	}
	seconds := func(name string, def int) time.Duration {
		return time.Duration(num(name, def)) * time.Second
	}

	c := Config{
		GitHubToken:          in("github-token", getenv("GITHUB_TOKEN")),
		PushToken:            in("push-token", ""),
		TriggerToken:         in("trigger-token", ""),
		Engines:              splitList(in("engines", "")),
		TriggerPhrase:        in("trigger-phrase", "@review-loop"),
		AllowedAssociations:  splitList(strings.ToUpper(in("allowed-associations", "OWNER,MEMBER,COLLABORATOR"))),
		MaxCommits:           num("max-commits", 20),
		MaxActiveMinutes:     num("max-active-minutes", 240),
		MaxIdleMinutes:       num("max-idle-minutes", 45),
		YieldMinutes:         num("yield-minutes", 30),
		ProseRounds:          num("prose-rounds", 2),
		PathsIgnore:          splitList(in("paths-ignore", "")),
		CleanAt:              strings.ToLower(strings.TrimSpace(in("clean-at", ""))),
		StallFactor:          num("stall-factor", 3),
		MaxConsecutiveErrors: num("max-consecutive-errors", 2),
		CopilotOnly:          boolean("copilot-only"),
		MaxIterations:        num("max-iterations", 5),
		WaitInitial:          seconds("wait-initial", 180),
		PollInterval:         seconds("poll-interval", 30),
		PollTimeout:          seconds("poll-timeout", 600),
		InJobWait:            seconds("wait-seconds", 0),
		KeepDraft:            boolean("keep-draft"),
		ContextFiles:         splitList(in("context-files", "")),
		SetupCommand:         in("setup-command", ""),
		TestCommand:          in("test-command", ""),
		LintCommand:          in("lint-command", ""),
		RegressionCommand:    in("regression-command", ""),
		Fixer:                in("fixer", "suggestions"),
		FixerCommand:         in("fixer-command", ""),
		JudgeCommand:         in("judge-command", ""),
		AnthropicAPIKey:      in("anthropic-api-key", ""),
		JudgeModel:           in("judge-model", ""),
		OpenAIAPIKey:         in("openai-api-key", ""),
		FixerModel:           in("fixer-model", ""),
		FixerMaxTurns:        num("fixer-max-turns", fix.DefaultAgentMaxTurns),
		MaxPatchFiles:        num("max-patch-files", prepared.DefaultLimits.MaxFiles),
		MaxPatchBytes:        num("max-patch-bytes", prepared.DefaultLimits.MaxBytes),
		NonBlocking:          in("non-blocking", "report"),
		ClaudeWorkflowJob:    in("claude-workflow-job", "claude-review"),
		ConfigFile:           in("config-file", ".github/review-loop.yml"),
		AuthorName:           in("commit-author-name", "github-actions[bot]"),
		AuthorEmail:          in("commit-author-email", "41898282+github-actions[bot]@users.noreply.github.com"),
		DryRun:               boolean("dry-run"),
		Version:              in("version", ""),
		Mode:                 in("mode", ModeSingle),
		ArtifactDir:          in("artifact-dir", ""),
		Prepared:             in("prepared", ""),
		StartOn:              strings.ToLower(in("start-on", "command")),
		SharedPaths:          splitList(in("shared-paths", "")),
		CIWorkflows:          splitList(in("ci-workflows", "")),
		SweepFanout:          strings.ToLower(in("sweep-fanout", SweepDispatch)),

		EventName:   getenv("GITHUB_EVENT_NAME"),
		EventPath:   getenv("GITHUB_EVENT_PATH"),
		Repository:  getenv("GITHUB_REPOSITORY"),
		APIURL:      orDefault(getenv("GITHUB_API_URL"), "https://api.github.com"),
		GraphQLURL:  orDefault(getenv("GITHUB_GRAPHQL_URL"), "https://api.github.com/graphql"),
		ServerURL:   orDefault(getenv("GITHUB_SERVER_URL"), "https://github.com"),
		Workspace:   getenv("GITHUB_WORKSPACE"),
		WorkflowRef: getenv("GITHUB_WORKFLOW_REF"),
		Actor:       getenv("GITHUB_ACTOR"),
	}
	_ = in("binary-path", "") // consumed by action.yml before the binary runs
	if _, err := loop.ParseCleanAt(c.CleanAt); err != nil {
		errs = append(errs, fmt.Errorf("input %w", err))
	}
	if raw := in("divergence-stop", "true"); raw != "" {
		b, err := strconv.ParseBool(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("input divergence-stop: %q is not true or false", raw))
		}
		c.DivergenceStop = b
	}

	if raw := in("pr", ""); raw != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(raw, "#"))
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("input pr: %q is not a pull request number", raw))
		} else {
			c.PR = n
		}
	}
	if raw := in("fixer-timeout", "15m"); raw != "" {
		d, err := time.ParseDuration(raw)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("input fixer-timeout: %q is not a positive duration such as 15m", raw))
		}
		c.FixerTimeout = d
	}
	if c.MaxPatchFiles < 1 || c.MaxPatchFiles > prepared.DefaultLimits.MaxFiles {
		errs = append(errs, fmt.Errorf("input max-patch-files: %d is not between 1 and %d", c.MaxPatchFiles, prepared.DefaultLimits.MaxFiles))
	}
	if c.MaxPatchBytes < 1 || c.MaxPatchBytes > prepared.DefaultLimits.MaxBytes {
		errs = append(errs, fmt.Errorf("input max-patch-bytes: %d is not between 1 and %d", c.MaxPatchBytes, prepared.DefaultLimits.MaxBytes))
	}
	if raw := getenv("GITHUB_RUN_ID"); raw != "" {
		c.RunID, _ = strconv.ParseInt(raw, 10, 64)
	}
	if c.PushToken == "" {
		c.PushToken = c.GitHubToken
	}
	if c.GitHubToken == "" {
		errs = append(errs, errors.New("input github-token: no token given (set github-token, or GITHUB_TOKEN in the environment)"))
	}
	owner, repo, ok := strings.Cut(c.Repository, "/")
	if !ok || owner == "" || repo == "" {
		errs = append(errs, fmt.Errorf("GITHUB_REPOSITORY: %q is not owner/name", c.Repository))
	}
	c.Owner, c.Repo = owner, repo
	for _, k := range []struct{ input, value string }{{"anthropic-api-key", c.AnthropicAPIKey}, {"openai-api-key", c.OpenAIAPIKey}} {
		if n := len(k.value); n > 0 && n < secret.MinLen {
			errs = append(errs, fmt.Errorf("input %s: %d characters is too short for an API key, and too short to keep out of everything review-loop writes (TB14 needs at least %d); give the key itself", k.input, n, secret.MinLen))
		}
	}
	switch c.Fixer {
	case "suggestions":
	case "command":
		if c.FixerCommand == "" {
			errs = append(errs, errors.New("input fixer-command: required when fixer is command"))
		}
	case fix.ProviderClaudeCode:
		if c.AnthropicAPIKey == "" {
			errs = append(errs, errors.New("input anthropic-api-key: required when fixer is claude-code"))
		}
	case fix.ProviderCodex:
		if c.OpenAIAPIKey == "" {
			errs = append(errs, errors.New("input openai-api-key: required when fixer is codex"))
		}
	default:
		errs = append(errs, fmt.Errorf("input fixer: %q is not suggestions, command, claude-code or codex", c.Fixer))
	}
	switch c.Mode {
	case ModeSingle, ModePrepare, ModePublish, ModeDoctor:
	default:
		errs = append(errs, fmt.Errorf("input mode: %q is not single, prepare, publish or doctor", c.Mode))
	}
	if c.ArtifactDir == "" {
		c.ArtifactDir = filepath.Join(orDefault(getenv("RUNNER_TEMP"), os.TempDir()), "review-loop-prepared")
	}
	switch c.NonBlocking {
	case "report", "issue":
	default:
		errs = append(errs, fmt.Errorf("input non-blocking: %q is not report or issue", c.NonBlocking))
	}
	switch c.SweepFanout {
	case SweepDispatch, SweepInline:
	default:
		errs = append(errs, fmt.Errorf("input sweep-fanout: %q is not dispatch or inline", c.SweepFanout))
	}
	if err := c.parseRateLimitFloor(in("rate-limit-floor", "10%")); err != nil {
		errs = append(errs, err)
	}
	switch c.StartOn {
	case "command", "auto":
	default:
		errs = append(errs, fmt.Errorf("input start-on: %q is not command or auto", c.StartOn))
	}
	if c.TriggerPhrase == "" {
		errs = append(errs, errors.New("input trigger-phrase: must not be empty"))
	}
	errs = append(errs, checkCommands(c)...)
	var ciErr error
	c.CIWorkflows, ciErr = ciWorkflowFiles(c.CIWorkflows)
	errs = append(errs, ciErr)
	if c.PollInterval == 0 && c.InJobWait > 0 {
		errs = append(errs, errors.New("input poll-interval: must be positive when wait-seconds is set"))
	}
	return c, errors.Join(errs...)
}

// Secrets returns every secret value in the config, for masking.
func (c Config) Secrets() []string {
	var out []string
	for _, s := range []string{c.GitHubToken, c.PushToken, c.TriggerToken, c.AnthropicAPIKey, c.OpenAIAPIKey} {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// SecretSet is every secret input of the config, each named by its
// input, for the check of everything review-loop writes (TB14).
// The environment's other secret variables follow, each named by its
// variable; a value an input holds too is named by the input.
func (c Config) SecretSet() *secret.Set {
	ns := []secret.Named{
		{Input: "github-token", Value: c.GitHubToken},
		{Input: "push-token", Value: c.PushToken},
		{Input: "trigger-token", Value: c.TriggerToken},
		{Input: "anthropic-api-key", Value: c.AnthropicAPIKey},
		{Input: "openai-api-key", Value: c.OpenAIAPIKey},
	}
	for _, k := range slices.Sorted(maps.Keys(c.EnvSecrets)) {
		ns = append(ns, secret.Named{Input: k, Value: c.EnvSecrets[k]})
	}
	return secret.NewSet(ns...)
}

// UnprotectedSecrets are the names of the secret inputs and variables
// whose values are too short to be kept out of what review-loop writes
// (shorter than secret.MinRaw, not empty): the run warns of each. The
// API key inputs never are: Load refuses them shorter than secret.MinLen.
func (c Config) UnprotectedSecrets() []string {
	var out []string
	for in, v := range map[string]string{"github-token": c.GitHubToken, "push-token": c.PushToken, "trigger-token": c.TriggerToken} {
		if v != "" && len(v) < secret.MinRaw {
			out = append(out, in)
		}
	}
	for k, v := range c.EnvSecrets {
		if v != "" && len(v) < secret.MinRaw {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == ' ' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// ciWorkflowFiles checks the `ci-workflows` input: workflow file names
// (ci.yml), with or without the .github/workflows/ prefix.
func ciWorkflowFiles(list []string) ([]string, error) {
	var out []string
	var errs []error
	for _, f := range list {
		f = strings.TrimPrefix(f, ".github/workflows/")
		ext := path.Ext(f)
		if strings.Contains(f, "/") || (ext != ".yml" && ext != ".yaml") || f == ext {
			errs = append(errs, fmt.Errorf("input ci-workflows: %q is not a workflow file name such as ci.yml", f))
			continue
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, errors.Join(errs...)
}

// parsePrices reads `prices:` from the repository config: a price per
// review for each engine, and `actions_minute` for a job minute (CL1).
func parsePrices(raw []byte) (report.Prices, error) {
	var doc struct {
		Prices map[string]float64 `yaml:"prices"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return report.Prices{}, fmt.Errorf("prices: %w (want a map of engine or actions_minute to a number)", err)
	}
	var p report.Prices
	for _, k := range slices.Sorted(maps.Keys(doc.Prices)) {
		v := doc.Prices[k]
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return report.Prices{}, fmt.Errorf("prices.%s: %v is not a price (a number, zero or more)", k, v)
		}
		if k == "actions_minute" {
			p.ActionsMinute = v
			continue
		}
		if p.Review == nil {
			p.Review = map[string]float64{}
		}
		p.Review[k] = v
	}
	return p, nil
}

// CheckPriceEngines names a priced engine this review-loop does not know.
func CheckPriceEngines(p report.Prices, r *engines.Registry) error {
	for _, k := range slices.Sorted(maps.Keys(p.Review)) {
		if _, ok := r.Lookup(k); !ok {
			known := append(r.Names(), "actions_minute")
			if s := didYouMean(k, known); s != "" {
				return fmt.Errorf("prices.%s: unknown engine (did you mean %s? known: %s, and actions_minute)", k, s, strings.Join(r.Names(), ", "))
			}
			return fmt.Errorf("prices.%s: unknown engine (known: %s, and actions_minute)", k, strings.Join(r.Names(), ", "))
		}
	}
	return nil
}
