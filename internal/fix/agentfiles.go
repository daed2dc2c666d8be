package fix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// agentFiles are file names, at any depth, that coding agents read as
// instructions or settings: a PR can carry them aimed at the fixer.
var agentFiles = []string{"claude.md", "claude.local.md", ".mcp.json", ".claude.json", "agents.md", "agents.override.md"}

// agentStartupRoots are the top-level paths an agent CLI reads from its
// working directory when it starts, as anthropics/claude-code-action's
// restore step lists them, plus Codex's: the PR's versions are replaced by
// the base branch's before an agent runs.
var agentStartupRoots = []string{".claude", ".claude.json", ".mcp.json", "CLAUDE.md", "CLAUDE.local.md", ".ripgreprc",
	".gitmodules", ".husky", ".codex", "AGENTS.md", "AGENTS.override.md"}

// agentDirs are directory names, at any depth, that hold an agent's
// project settings, hooks, commands and skills.
var agentDirs = []string{".claude", ".codex"}

// IsAgentInstruction reports whether p (a repository path) is a file an
// agent fixer would read as instructions or settings: CLAUDE.md,
// CLAUDE.local.md, AGENTS.md, AGENTS.override.md and .mcp.json anywhere,
// and anything under a .claude or .codex directory. Compared
// case-insensitively.
func IsAgentInstruction(p string) bool {
	l := strings.ToLower(path.Clean(strings.ReplaceAll(p, `\`, "/")))
	if slices.Contains(agentFiles, path.Base(l)) {
		return true
	}
	parts := strings.Split(l, "/")
	for _, c := range parts[:len(parts)-1] {
		if slices.Contains(agentDirs, c) {
			return true
		}
	}
	return false
}

// isAgentStartup reports whether p is read by an agent CLI at startup or
// as instructions: an agent instruction file anywhere, or a path under
// one of agentStartupRoots.
func isAgentStartup(p string) bool {
	if IsAgentInstruction(p) {
		return true
	}
	l := strings.ToLower(p)
	return slices.ContainsFunc(agentStartupRoots, func(r string) bool { return under(l, strings.ToLower(r)) })
}

// useBaseAgentFiles replaces, in the checkout, every agent startup file
// (isAgentStartup) with the base branch's version, deleting those the base
// has none of, so that the agent reads no instructions, settings, hooks or
// MCP servers from the PR. putBackAgentFiles undoes it after the run.
func (c *cycle) useBaseAgentFiles(ctx context.Context) error {
	g := c.p.cfg.Git
	base := c.p.cfg.AgentBase
	if base == "" || strings.HasPrefix(base, "-") {
		return errors.New("no base branch to take the agent instruction files from; an agent never runs with the PR's own")
	}
	head, err := g.Run(ctx, "ls-files", "-z")
	if err != nil {
		return fmt.Errorf("listing the checkout's files: %w", err)
	}
	fromBase, err := g.Run(ctx, "ls-tree", "-r", "-z", "--name-only", base)
	if err != nil {
		return fmt.Errorf("listing the base branch's files: %w", err)
	}
	root, err := os.OpenRoot(c.p.cfg.Dir)
	if err != nil {
		return fmt.Errorf("opening the checkout: %w", err)
	}
	defer root.Close()
	for _, r := range agentStartupRoots {
		if err := root.RemoveAll(r); err != nil {
			return fmt.Errorf("removing %s before the agent runs: %w", r, err)
		}
	}
	for _, p := range strings.Split(head, "\x00") {
		if p != "" && isAgentStartup(p) {
			if err := root.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("removing %s before the agent runs: %w", p, err)
			}
		}
	}
	var keep []string
	for _, p := range strings.Split(fromBase, "\x00") {
		if p != "" && isAgentStartup(p) {
			keep = append(keep, p)
		}
	}
	if len(keep) > 0 {
		if _, err := g.Run(ctx, append([]string{"checkout", base, "--"}, keep...)...); err != nil {
			return fmt.Errorf("taking the agent instruction files from the base branch: %w", err)
		}
	}
	c.logf("agent instruction files from the base branch: %d; the PR's own are set aside while the agent runs", len(keep))
	return nil
}

// putBackAgentFiles returns every agent startup file to the PR head after
// the agent ran: the base branch's versions and anything the agent wrote
// there never reach the commit.
func (c *cycle) putBackAgentFiles(ctx context.Context) error {
	changed, err := c.p.cfg.Git.ChangedFiles(ctx)
	if err != nil {
		return err
	}
	var back []string
	for _, p := range changed {
		if isAgentStartup(p) {
			back = append(back, p)
		}
	}
	if err := c.p.cfg.Git.RestoreFiles(ctx, back); err != nil {
		return fmt.Errorf("putting back the PR's agent instruction files: %w", err)
	}
	return nil
}
