package fix

import (
	"path"
	"slices"
	"strings"
)

// agentFiles are file names, at any depth, that coding agents read as
// instructions or settings: a PR can carry them aimed at the fixer.
var agentFiles = []string{"claude.md", "claude.local.md", ".mcp.json", "agents.md", "agents.override.md"}

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
