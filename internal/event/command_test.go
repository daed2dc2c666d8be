package event

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		body      string
		ok        bool
		kind      CommandKind
		engines   []string
		id        string
		direction string
		msgHas    string
	}{
		{name: "start alone runs every configured engine", body: "@review-loop start", ok: true, kind: CommandStart},
		{name: "start names engines with spaces and commas", body: "@review-loop start bugbot, Copilot claude", ok: true, kind: CommandStart,
			engines: []string{"bugbot", "copilot", "claude"}},
		{name: "the phrase and sub-command are case-insensitive", body: "@Review-Loop STATUS", ok: true, kind: CommandStatus},
		{name: "a colon may follow the phrase", body: "@review-loop: stop", ok: true, kind: CommandStop},
		{name: "reset takes no argument", body: "@review-loop reset", ok: true, kind: CommandReset},
		{name: "resolve-stale resolves threads of findings that no longer appear", body: "@review-loop resolve-stale", ok: true, kind: CommandResolveStale},
		{name: "resume ends a yield to a person (HY1)", body: "@review-loop resume", ok: true, kind: CommandResume},
		{name: "resume in a code block is no command (TB4)", body: "```\n@review-loop resume\n```", ok: false},
		{name: "approve takes an id and a direction", body: "@review-loop approve 2233029557 keep the old name, add an alias", ok: true,
			kind: CommandApprove, id: "2233029557", direction: "keep the old name, add an alias"},
		{name: "approve takes an id alone", body: "@review-loop approve F3", ok: true, kind: CommandApprove, id: "F3"},
		{name: "an id in inline code is read without the backticks", body: "@review-loop skip `F3`", ok: true, kind: CommandSkip, id: "F3"},
		{name: "skip takes an id", body: "@review-loop skip F7", ok: true, kind: CommandSkip, id: "F7"},
		{name: "approve without an id is an unknown command that explains", body: "@review-loop approve", ok: true,
			kind: CommandUnknown, msgHas: "approve needs a finding id"},
		{name: "skip without an id is an unknown command that explains", body: "@review-loop skip  ", ok: true,
			kind: CommandUnknown, msgHas: "skip needs a finding id"},
		{name: "an unknown sub-command lists the commands", body: "@review-loop merge now", ok: true, kind: CommandUnknown,
			msgHas: "unknown command \"merge\"; commands: `@review-loop start [engines…]`, `@review-loop status`, `@review-loop stop`, `@review-loop approve <id> [direction…]`, `@review-loop skip <id>`, `@review-loop reset`"},
		{name: "the phrase alone lists the commands", body: "@review-loop", ok: true, kind: CommandUnknown, msgHas: "needs a command"},
		{name: "leading whitespace before the phrase is allowed", body: "thanks!\n   @review-loop stop\n", ok: true, kind: CommandStop},
		{name: "windows line endings are fine", body: "hello\r\n@review-loop status\r\n", ok: true, kind: CommandStatus},
		{name: "the first command line wins", body: "@review-loop stop\n@review-loop start", ok: true, kind: CommandStop},
		{name: "a mention inside running text is not a command", body: "I think @review-loop stop would help", ok: false},
		{name: "a longer word starting with the phrase is not a command", body: "@review-loopy stop", ok: false},
		{name: "a quoted command is not a command", body: "> @review-loop stop", ok: false},
		{name: "an indented quoted command is not a command", body: "  > @review-loop stop", ok: false},
		{name: "a nested quote is not a command", body: "> > @review-loop stop", ok: false},
		{name: "a command in a backtick fence is not a command", body: "```\n@review-loop stop\n```", ok: false},
		{name: "a command in a fence with an info string is not a command", body: "```text\n@review-loop stop\n```", ok: false},
		{name: "a command in a tilde fence is not a command", body: "~~~\n@review-loop stop\n~~~", ok: false},
		{name: "a shorter run does not close a longer fence", body: "````\n```\n@review-loop stop\n````", ok: false},
		{name: "a tilde run does not close a backtick fence", body: "```\n~~~\n@review-loop stop\n```", ok: false},
		{name: "an unclosed fence runs to the end of the comment", body: "```\n@review-loop stop", ok: false},
		{name: "a command after a closed fence counts", body: "```\ncode\n```\n@review-loop stop", ok: true, kind: CommandStop},
		{name: "a command in inline code is not a command", body: "`@review-loop stop`", ok: false},
		{name: "a command in an html comment is not a command", body: "<!--\n@review-loop stop\n-->", ok: false},
		{name: "a command after an html comment counts", body: "<!-- note -->\n@review-loop status", ok: true, kind: CommandStatus},
		{name: "an empty body holds no command", body: "", ok: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd, ok := ParseCommand(c.body, "@review-loop")
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (cmd %+v)", ok, c.ok, cmd)
			}
			if !ok {
				return
			}
			if cmd.Kind != c.kind || cmd.FindingID != c.id || cmd.Direction != c.direction || !slices.Equal(cmd.Engines, c.engines) {
				t.Errorf("got %+v, want kind %s id %q direction %q engines %v", cmd, c.kind, c.id, c.direction, c.engines)
			}
			if !strings.Contains(cmd.Message, c.msgHas) || (c.msgHas == "") != (cmd.Message == "") {
				t.Errorf("Message = %q, want one containing %q", cmd.Message, c.msgHas)
			}
			if !strings.HasPrefix(strings.ToLower(cmd.Line), "@review-loop") {
				t.Errorf("Line = %q", cmd.Line)
			}
		})
	}
}

func TestParseCommand_emptyPhraseMeansTheDefault(t *testing.T) {
	t.Parallel()
	if cmd, ok := ParseCommand("@review-loop stop", "  "); !ok || cmd.Kind != CommandStop {
		t.Errorf("got %+v, %v", cmd, ok)
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		"@review-loop start bugbot,copilot",
		"@review-loop approve 12 do it",
		"> @review-loop stop",
		"```\n@review-loop stop\n```",
		"~~~~\n~~~\n@review-loop reset\n~~~~\n@review-loop skip `x`",
		"<!-- @review-loop\n-->@review-loop status",
		"@review-loop\t:,",
		"@REVIEW-LOOP é",
		"\xff@review-loop",
	} {
		f.Add(s, "@review-loop")
	}
	f.Add("/loop approve", "/loop")
	f.Fuzz(func(t *testing.T, body, phrase string) {
		cmd, ok := ParseCommand(body, phrase)
		if !ok {
			if cmd.Kind != "" {
				t.Fatalf("no command but kind %q", cmd.Kind)
			}
			return
		}
		switch cmd.Kind {
		case CommandStart, CommandStatus, CommandStop, CommandReset:
		case CommandApprove, CommandSkip:
			if cmd.FindingID == "" || strings.ContainsFunc(cmd.FindingID, unicode.IsSpace) {
				t.Fatalf("%s with finding id %q", cmd.Kind, cmd.FindingID)
			}
		case CommandUnknown:
			if cmd.Message == "" {
				t.Fatal("unknown command without a message")
			}
		default:
			t.Fatalf("kind %q", cmd.Kind)
		}
		if cmd.Kind != CommandApprove && cmd.Direction != "" {
			t.Fatalf("direction on %s", cmd.Kind)
		}
		if cmd.Kind != CommandStart && len(cmd.Engines) > 0 {
			t.Fatalf("engines on %s", cmd.Kind)
		}
		if !strings.Contains(body, cmd.Line) {
			t.Fatalf("line %q is not in the body", cmd.Line)
		}
	})
}

func TestRule_S11_AcceptNamesOneEngine(t *testing.T) {
	t.Parallel()
	cmd, ok := ParseCommand("@review-loop accept CodeRabbit", "")
	if !ok || cmd.Kind != CommandAccept || cmd.Engine != "coderabbit" {
		t.Fatalf("accept coderabbit = %+v (%v), want accept of coderabbit", cmd, ok)
	}
	for _, body := range []string{"@review-loop accept", "@review-loop accept bugbot copilot"} {
		if cmd, ok := ParseCommand(body, ""); !ok || cmd.Kind != CommandUnknown || !strings.Contains(cmd.Message, "accept needs exactly one engine") {
			t.Fatalf("%q = %+v, want an unknown command that explains", body, cmd)
		}
	}
	if cmd, ok := ParseCommand("> @review-loop accept bugbot", ""); ok {
		t.Fatalf("a quoted accept counted: %+v", cmd)
	}
	if !strings.Contains(Usage("@review-loop"), "`@review-loop accept <engine>`") {
		t.Fatal("the usage does not list accept")
	}
}
