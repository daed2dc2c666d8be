package event

import (
	"strings"
	"testing"
)

// TestRule_TB4_commandsOnlyWhereGitHubShowsThem: a maintainer command counts
// only where GitHub renders it as running text at the start of a line —
// never inside an indented code block, a block quote (lazy continuation
// lines included), a code span or an HTML comment that spans lines.
func TestRule_TB4_commandsOnlyWhereGitHubShowsThem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		body string
		ok   bool
		kind CommandKind
	}{
		{"an indented code block is not a command", "Try this:\n\n    @review-loop stop\n", false, ""},
		{"a tab-indented code block is not a command", "\t@review-loop stop", false, ""},
		{"an indented code block after a list is not a command", "- a\n\n\n    @review-loop reset", false, ""},
		{"a quoted continuation line is not a command", "> quoting the bot\n@review-loop stop", false, ""},
		{"a lazy line deep in a nested quote is not a command", "> > a\n> b\n@review-loop reset", false, ""},
		{"a code span over two lines is not a command", "see `x\n@review-loop stop`", false, ""},
		{"an inline html comment over lines is not a command", "hello <!--\n@review-loop stop\n-->", false, ""},
		{"a command in a list item is not a command", "- @review-loop stop", false, ""},
		{"a command after an indented block counts", "    code\n\n@review-loop status", true, CommandStatus},
		{"a four-space continuation line of a paragraph counts", "thanks!\n    @review-loop stop", true, CommandStop},
		{"a command after a closed quote counts", "> quote\n\n@review-loop status", true, CommandStatus},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd, ok := ParseCommand(c.body, "@review-loop")
			if ok != c.ok || cmd.Kind != c.kind {
				t.Fatalf("ParseCommand(%q) = %+v, %v; want kind %q, %v", c.body, cmd, ok, c.kind, c.ok)
			}
		})
	}
}

// FuzzRule_TB4_ParseCommand: whatever the body, quoting every line of it
// leaves no command.
func FuzzRule_TB4_ParseCommand(f *testing.F) {
	for _, s := range []string{
		"@review-loop stop", "thanks\n@review-loop approve F1 do it", "```\n@review-loop stop\n```",
		"a `b\n@review-loop stop`", "x <!--\n@review-loop stop\n-->", "\t@review-loop reset",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
		quoted := "> " + strings.ReplaceAll(body, "\n", "\n> ")
		if cmd, ok := ParseCommand(quoted, "@review-loop"); ok {
			t.Fatalf("command %+v in a quote %q", cmd, quoted)
		}
	})
}
