package loop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/state"
)

// This file holds S11's answer to an UNPROVEN engine: a maintainer's
// `accept <engine>` recorded as proof for one head, and how that word
// stands in for the engine's own proof.

// accept applies `accept <engine>` (S11): the maintainer's word is proof
// that the engine finished reviewing cmd.Head, for that head only. An
// engine the loop does not drive, or no head, is an error and records
// nothing. The engine's mark on that head (UNPROVEN, or ERRORED) is
// lifted and a loop that handed back at a bound or for an error goes on:
// the next cycle reads the engine again, where the word stands in only
// for its proof (withAcceptance), so a real error marks it again.
func accept(s state.State, cmd Command) (state.State, error) {
	engine := strings.ToLower(strings.TrimSpace(cmd.Engine))
	switch {
	case engine == "":
		return s, fmt.Errorf("accept: an engine name is required")
	case !slices.Contains(s.Engines, engine):
		known := strings.Join(s.Engines, ", ")
		if known == "" {
			known = "none yet"
		}
		return s, fmt.Errorf("accept: `%s` is not an engine of this loop (engines: %s)", clipQuote(engine), known)
	case cmd.Head == "":
		return s, fmt.Errorf("accept: the head of the PR could not be read; nothing recorded")
	case strings.TrimSpace(cmd.By) == "":
		return s, fmt.Errorf("accept: who accepted is unknown; nothing recorded")
	}
	s.Accepted = slices.DeleteFunc(s.Accepted, func(a state.Acceptance) bool { return a.Engine == engine })
	s.Accepted = append(s.Accepted, state.Acceptance{Engine: engine, SHA: cmd.Head, By: cmd.By, At: cmd.At})
	es := s.EngineStates[engine]
	if (es.Mark == state.MarkUnproven || es.Mark == state.MarkErrored) && es.MarkSHA == cmd.Head {
		// The mark the word answers (UNPROVEN, or S7's completed run with
		// nothing of the head) is lifted; the next cycle reads the engine
		// again, and a real error marks it again.
		es.Mark, es.MarkSHA, es.MarkNote, es.ConsecutiveErrors = "", "", "", 0
		if s.EngineStates == nil {
			s.EngineStates = map[string]state.EngineState{}
		}
		s.EngineStates[engine] = es
		if s.Status == state.StatusDone && (s.EndReason == string(EndBound) || s.EndReason == string(EndError)) {
			s.Status, s.EndReason = state.StatusActive, ""
		}
	}
	s.Events = append(s.Events, state.Event{Time: cmd.At, Name: state.EventRunStart, Iteration: s.Iteration, Engine: engine,
		SHA: cmd.Head, Reason: "accept", Detail: "by " + cmd.By})
	return s, nil
}

// Acceptance is the maintainer's word in force for engine on head (S11),
// nil when there is none.
func Acceptance(st state.State, engine, head string) *state.Acceptance {
	for i := len(st.Accepted) - 1; i >= 0; i-- {
		if a := st.Accepted[i]; a.Engine == engine && head != "" && a.SHA == head {
			return &a
		}
	}
	return nil
}

// withAcceptance is the engine's view with a maintainer's accept in force
// for head standing in for its proof (S11): the review is taken as
// finished (a "not proven" completion becomes readable material). It
// never touches an engine with its own proof of the head, nor one that is
// running, errored, silent, in quota or a draft: the word answers only
// "is the review finished", never what it found.
func withAcceptance(st state.State, v EngineView, head string) EngineView {
	a := Acceptance(st, v.Engine, head)
	if a == nil || Proven(v, head) || v.Signal != SignalDone {
		return v
	}
	switch v.Material {
	case MaterialOK:
	case MaterialUnproven:
		v.Material, v.MaterialNote = MaterialOK, ""
	default:
		return v
	}
	v.Proof = &Proof{Kind: KindAccepted, SHA: head, By: a.By}
	return v
}

// acceptNote is the status comment's line for a verdict given on a
// maintainer's word (S11): the gate's summary repeats it.
func acceptNote(v EngineView) string {
	return fmt.Sprintf("no proof of its own: accepted by @%s for %s (S11)", v.Proof.By, short(v.Proof.SHA))
}

// acceptOffer is the line that offers the accept command on an UNPROVEN
// engine (S11).
func acceptOffer(engine string) string {
	return "a maintainer who judges it finished answers `@review-loop accept " + engine + "`"
}
