package event

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/review-loop/review-loop/internal/markdown"
)

// CommandKind is a maintainer command's sub-command.
type CommandKind string

// The commands a maintainer can give in a PR comment.
const (
	// CommandStart starts (or restarts, rule H8) the loop, optionally on a
	// subset of engines.
	CommandStart CommandKind = "start"
	// CommandStatus refreshes the status comment without acting.
	CommandStatus CommandKind = "status"
	// CommandStop ends the loop and hands the PR back.
	CommandStop CommandKind = "stop"
	// CommandApprove approves a Tier 2 finding, optionally with directions
	// for the fixer.
	CommandApprove CommandKind = "approve"
	// CommandSkip marks a finding as not to be fixed.
	CommandSkip CommandKind = "skip"
	// CommandReset forgets the loop's state for the PR.
	CommandReset CommandKind = "reset"
	// CommandResolveStale resolves the open threads of engine findings
	// that no longer appear (rule E9).
	CommandResolveStale CommandKind = "resolve-stale"
	// CommandResume ends review-loop's pause while it yields to a person
	// (rule HY1).
	CommandResume CommandKind = "resume"
	// CommandAccept takes a maintainer's word that an engine finished
	// reviewing the head when the loop could not prove it (rule S11).
	CommandAccept CommandKind = "accept"
	// CommandUnknown is a line that starts with the trigger phrase but is
	// not a valid command; Message says what is understood.
	CommandUnknown CommandKind = "unknown"
)

// Command is a maintainer's command, read from a PR comment.
type Command struct {
	// Kind is the sub-command.
	Kind CommandKind
	// Engines are the engines named after start, lower case; empty means
	// the configured set.
	Engines []string
	// FindingID is the finding an approve or skip is about, as written.
	FindingID string
	// Direction is the free text after an approve's finding id.
	Direction string
	// Engine is the engine an accept names, lower case.
	Engine string
	// Line is the command line as written, trigger phrase included.
	Line string
	// Message explains an unknown or incomplete command and lists the
	// commands; empty for a valid one.
	Message string
}

// Usage lists the commands review-loop understands, written with phrase.
func Usage(phrase string) string {
	return fmt.Sprintf("commands: `%[1]s start [engines…]`, `%[1]s status`, `%[1]s stop`, "+
		"`%[1]s approve <id> [direction…]`, `%[1]s skip <id>`, `%[1]s reset`, `%[1]s resolve-stale`, `%[1]s resume`, `%[1]s accept <engine>`", phrase)
}

// ParseCommand finds the first command in a comment body, read as GitHub
// renders it (rule TB4). A command is a line of a top-level paragraph that
// starts with running text beginning with phrase (compared
// case-insensitively) followed by a space, a colon or the end of the line.
// Lines in code blocks (fenced or indented), HTML comments, block quotes
// (lazy continuation lines included), lists and code spans are not
// commands, nor is a mention in running text. ok is false when the body
// holds no command line; a command line that does not parse is a
// CommandUnknown with a Message.
func ParseCommand(body, phrase string) (cmd Command, ok bool) {
	phrase = strings.TrimSpace(phrase)
	if phrase == "" {
		phrase = DefaultTriggerPhrase
	}
	for _, line := range markdown.LineStarts(body) {
		t := strings.TrimSpace(line)
		rest, found := cutPhrase(t, phrase)
		if !found {
			continue
		}
		return parseArgs(t, rest, phrase), true
	}
	return Command{}, false
}

// cutPhrase returns what follows phrase when t starts with it as a whole
// word.
func cutPhrase(t, phrase string) (string, bool) {
	if len(t) < len(phrase) || !strings.EqualFold(t[:len(phrase)], phrase) {
		return "", false
	}
	rest := t[len(phrase):]
	if rest == "" {
		return "", true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	if !unicode.IsSpace(r) && r != ':' && r != ',' {
		return "", false
	}
	return strings.TrimLeft(rest, ":, \t"), true
}

func parseArgs(line, rest, phrase string) Command {
	cmd := Command{Line: line}
	fields := strings.Fields(rest)
	for i, f := range fields {
		fields[i] = strings.Trim(f, "`")
	}
	if len(fields) == 0 || fields[0] == "" {
		cmd.Kind = CommandUnknown
		cmd.Message = fmt.Sprintf("%s needs a command; %s", phrase, Usage(phrase))
		return cmd
	}
	sub := strings.ToLower(fields[0])
	args := fields[1:]
	switch CommandKind(sub) {
	case CommandStart:
		cmd.Kind = CommandStart
		cmd.Engines = splitList(strings.Join(args, " "))
	case CommandStatus, CommandStop, CommandReset, CommandResolveStale, CommandResume:
		cmd.Kind = CommandKind(sub)
	case CommandApprove, CommandSkip:
		cmd.Kind = CommandKind(sub)
		if len(args) == 0 || args[0] == "" {
			cmd.Kind = CommandUnknown
			cmd.Message = fmt.Sprintf("%s %s needs a finding id; %s", phrase, sub, Usage(phrase))
			return cmd
		}
		cmd.FindingID = args[0]
		if cmd.Kind == CommandApprove {
			cmd.Direction = strings.Join(args[1:], " ")
		}
	case CommandAccept:
		cmd.Kind = CommandAccept
		if len(args) != 1 || args[0] == "" {
			cmd.Kind = CommandUnknown
			cmd.Message = fmt.Sprintf("%s accept needs exactly one engine name; %s", phrase, Usage(phrase))
			return cmd
		}
		cmd.Engine = strings.ToLower(args[0])
	default:
		cmd.Kind = CommandUnknown
		cmd.Message = fmt.Sprintf("unknown command %q; %s", fields[0], Usage(phrase))
	}
	return cmd
}

// splitList splits an engine list written with spaces and/or commas,
// lower-cased and without duplicates.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		f = strings.ToLower(strings.Trim(f, "`"))
		if f != "" && !containsFold(out, f) {
			out = append(out, f)
		}
	}
	return out
}
