package fixcycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/prepared"
	"github.com/review-loop/review-loop/internal/secret"
)

// This file works in the checkout: it puts it on the PR head (W3), runs
// the fix pipeline there, or applies the patch the prepare job made, and
// diffs what a fix changed.

// Checkout is the fix pipeline's set-up in the checkout.
type Checkout struct {
	// Git is the checkout's git, tokens kept out of its environment.
	Git *git.Runner
	Dir string
	// Env is the base environment of the pipeline's children
	// (fix.ChildEnv).
	Env []string
	// HeadRef and HeadSHA are the PR head as observed; BaseRef its base.
	HeadRef, HeadSHA, BaseRef string
	// FetchToken fetches the branches: the run's GitHub token, never the
	// push token, which only the push path uses (TB13).
	FetchToken string
	Fork       bool
	// Fixer is the fixer input; anything but command, claude-code or
	// codex applies the engines' suggestions.
	Fixer                                            string
	TestCommand, SetupCommand, LintCommand, FixerCmd string
	FixerTimeout                                     time.Duration
	ContextFiles                                     []string
	// Agent is the agent fixer's set-up with its pinned CLI (TB11).
	Agent fix.Agent
	// Secrets are the run's secrets: no fix that holds one is handed
	// over or committed (TB14).
	Secrets *secret.Set
}

// Ran is what a run of the fix pipeline did to the checkout.
type Ran struct {
	Result fix.CycleResult
	// Baseline is the checkout's git config and hooks before any command
	// ran; the push is checked against it (TB2). Nil when the pipeline
	// stopped before it was read.
	Baseline *git.Snapshot
	// Warnings are for the workflow log.
	Warnings []string
}

// RunPipeline puts the checkout on the PR head and runs the fix pipeline
// on todo.
func RunPipeline(ctx context.Context, co Checkout, todo []loop.Finding, directions map[string]string) (Ran, error) {
	var ran Ran
	g := co.Git
	dropped, err := g.DropPersistedCredentials(ctx)
	if err != nil {
		return ran, err
	}
	if len(dropped) > 0 {
		ran.Warnings = append(ran.Warnings, fmt.Sprintf("removed the credential the checkout persisted in .git/config (%s), where every command could read it; check out with persist-credentials: false", strings.Join(dropped, ", ")))
	}
	if ran.Baseline, err = g.Snapshot(ctx); err != nil {
		return ran, fmt.Errorf("reading the checkout's git config and hooks: %w", err)
	}
	if err := CheckoutHead(ctx, co); err != nil {
		return ran, err
	}
	argv := func(name, s string) ([]string, error) {
		if s == "" {
			return nil, nil
		}
		a, err := fix.SplitCommand(s)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
		return a, nil
	}
	var errs []error
	test, err := argv("test-command", co.TestCommand)
	errs = append(errs, err)
	setup, err := argv("setup-command", co.SetupCommand)
	errs = append(errs, err)
	lint, err := argv("lint-command", co.LintCommand)
	errs = append(errs, err)
	fixer, err := argv("fixer-command", co.FixerCmd)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return ran, err
	}
	provider := fix.ProviderSuggestions
	if !fix.SuggestionsOnly(co.Fixer) {
		provider = co.Fixer
	}
	// An agent reads its instruction files from the base branch, never
	// from the PR: fetch it first.
	agentBase := ""
	if provider == fix.ProviderClaudeCode || provider == fix.ProviderCodex {
		if err := g.FetchBranch(ctx, co.BaseRef, co.FetchToken); err != nil {
			return ran, fmt.Errorf("fetching the base branch %s for the agent's instruction files: %w", co.BaseRef, err)
		}
		agentBase = "refs/remotes/origin/" + co.BaseRef
	}
	p := fix.NewPipeline(fix.Config{
		Dir: co.Dir, Git: g, Env: co.Env,
		TestCommand: test, SetupCommand: setup, LintCommand: lint, FixerCommand: fixer,
		FixerTimeout: co.FixerTimeout, ContextFiles: co.ContextFiles,
		Agent: co.Agent, AgentBase: agentBase,
	})
	ran.Result, err = p.RunCycle(ctx, fix.CycleInput{Findings: todo, Directions: directions, Provider: provider, Fork: co.Fork})
	return ran, err
}

// CheckoutHead makes sure the checkout is the PR head branch at the
// observed head SHA; anything else is refused (W3).
func CheckoutHead(ctx context.Context, co Checkout) error {
	g := co.Git
	head, err := g.Head(ctx)
	if err == nil && head == co.HeadSHA {
		if branch, berr := g.Run(ctx, "rev-parse", "--abbrev-ref", "HEAD"); berr == nil && strings.TrimSpace(branch) == co.HeadRef {
			return nil
		}
	}
	ref := "refs/remotes/origin/" + co.HeadRef
	if err := g.FetchBranch(ctx, co.HeadRef, co.FetchToken); err != nil {
		return fmt.Errorf("fetching the PR head branch %s: %w", co.HeadRef, err)
	}
	if _, err := g.Run(ctx, "checkout", "-B", co.HeadRef, ref); err != nil {
		return fmt.Errorf("checking out the PR head branch %s: %w", co.HeadRef, err)
	}
	if head, err = g.Head(ctx); err != nil {
		return err
	}
	if head != co.HeadSHA {
		return &git.RefusedError{Rule: "W3", Reason: fmt.Sprintf("the branch head %s is not the observed PR head %s: someone pushed", head[:min(len(head), 7)], co.HeadSHA[:min(len(co.HeadSHA), 7)])}
	}
	return nil
}

// Diff returns the checkout's changes to files as a plain git patch: no
// renames, no external diff or textconv, the standard a/ b/ prefixes
// whatever the repository's configuration says.
func Diff(ctx context.Context, g *git.Runner, files []string) ([]byte, error) {
	if _, err := g.Run(ctx, append([]string{"add", "--"}, files...)...); err != nil {
		return nil, fmt.Errorf("staging the prepared changes: %w", err)
	}
	out, err := g.Run(ctx, append([]string{"diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
		"--src-prefix=a/", "--dst-prefix=b/", "HEAD", "--"}, files...)...)
	if err != nil {
		return nil, fmt.Errorf("diffing the prepared changes: %w", err)
	}
	return []byte(out), nil
}

// Prepared is what the prepare job handed the publish job: its fix and
// the patch prepared.Read checked.
type Prepared struct {
	Fix   *prepared.Fix
	Patch []byte
}

// ApplyPrepared is the publish job's fix: it checks that the prepare job
// fixed exactly these findings, puts the checkout on the PR head, and
// applies the validated patch there, never through a symlink. The
// warnings name findings reported fixed whose files the patch does not
// touch (TB10).
func ApplyPrepared(ctx context.Context, co Checkout, todo []loop.Finding, pr Prepared) (fix.CycleResult, []string, error) {
	p := pr.Fix
	if p == nil {
		return fix.CycleResult{}, nil, fmt.Errorf("%w: no fix was prepared", prepared.ErrStale)
	}
	acc, err := prepared.Accept(todo, p, pr.Patch)
	if errors.Is(err, prepared.ErrOtherFindings) {
		return fix.CycleResult{}, nil, fmt.Errorf("%w: %v", prepared.ErrStale, err)
	}
	if err != nil {
		return fix.CycleResult{Results: acc.Results}, nil, err
	}
	var warnings []string
	for _, id := range acc.NotTouched {
		warnings = append(warnings, fmt.Sprintf("%s was reported fixed by the prepare job, but the patch does not touch its files; it is not counted fixed (TB10)", id))
	}
	res := fix.CycleResult{Results: acc.Results, Changed: acc.Files, Commit: p.Commit && len(acc.Files) > 0, Reverted: acc.Reverted}
	if !res.Commit {
		res.Changed = nil
		return res, warnings, nil
	}
	if err := applyPatch(ctx, co, p.Changed, pr.Patch); err != nil {
		return fix.CycleResult{}, warnings, err
	}
	return res, warnings, nil
}

// applyPatch applies the prepare job's patch on the PR head; it must
// change exactly the files claimed, none through a symlink.
func applyPatch(ctx context.Context, co Checkout, claimed []string, patch []byte) error {
	g := co.Git
	if err := CheckoutHead(ctx, co); err != nil {
		return err
	}
	if err := prepared.CheckTree(co.Dir, claimed); err != nil {
		return fmt.Errorf("refusing the prepared patch: %w", err)
	}
	f, err := os.CreateTemp("", "review-loop-*.patch")
	if err != nil {
		return fmt.Errorf("writing the prepared patch: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(patch)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return fmt.Errorf("writing the prepared patch: %w", errors.Join(werr, cerr))
	}
	if _, err := g.Run(ctx, "apply", "--whitespace=nowarn", f.Name()); err != nil {
		return fmt.Errorf("applying the prepared patch: %w", err)
	}
	changed, err := g.ChangedFiles(ctx)
	if err != nil {
		return err
	}
	for _, ch := range changed {
		if !slices.Contains(claimed, ch) {
			_ = g.RestoreAll(ctx)
			return fmt.Errorf("refusing the prepared patch: it changed %s, which it does not claim", ch)
		}
	}
	if err := prepared.CheckTree(co.Dir, claimed); err != nil {
		_ = g.RestoreAll(ctx)
		return fmt.Errorf("refusing the prepared patch: %w", err)
	}
	return nil
}
