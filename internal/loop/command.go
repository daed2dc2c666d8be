package loop

import "github.com/review-loop/review-loop/internal/state"

// This file says what a maintainer's command changes in the state, once
// the shell has read who gave it (CommandRefusal) and what it names;
// PlanCommand then plans its effects.

// CommandRequest is a maintainer's command as the shell read it.
type CommandRequest struct {
	// Word is the command's word as PlanCommand takes it: start, stop,
	// status, resolve-stale, unknown…
	Word string
	// Denied is why the sender may not give it (CommandRefusal); "" when
	// they may.
	Denied string
	// Unknown says, for a command not understood, what is understood.
	Unknown string
	// Command is the command to apply; for approve, Known holds the
	// findings the engines show.
	Command Command
	// Engines are the engines a start names, as the registry knows them;
	// EnginesErr says why they are no known engines.
	Engines    []string
	EnginesErr error
}

// CommandChange is the state a command leaves, and why it failed ("" when
// it did not). A command its sender may not give (TB3), status and
// resolve-stale change nothing; one not understood fails with what is
// understood; the others are applied (ApplyCommand), and a start that
// names engines sets them. A command that fails changes nothing.
func CommandChange(st state.State, r CommandRequest) (state.State, string) {
	switch {
	case r.Denied != "" || r.Word == CommandStatus || r.Word == CommandResolveStale:
		return st, ""
	case r.Word == CommandUnknown:
		return st, r.Unknown
	}
	next, err := ApplyCommand(st, r.Command)
	switch {
	case err != nil:
		return st, err.Error()
	case r.EnginesErr != nil:
		return st, "start: " + r.EnginesErr.Error()
	case len(r.Engines) > 0:
		next.Engines = r.Engines
	}
	return next, ""
}
