package watch

import (
	"encoding/json"
	"fmt"

	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/action"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
)

// This file is what the user sees, in the shape of `gh pr checks
// --watch`: one line per engine with its review state and how long it
// has taken, the current effect, and the time to the next poll. On a
// terminal the block is redrawn in place; on a pipe each change is one
// plain line; with --json each event is one line of the event log's
// schema (state.Event: ts, event, iter, engine, sha, reason, detail):
// the loop's own events as its state records them, and watch's
// (watch-start, watch-poll, watch-cycle, watch-effect,
// watch-interrupted, watch-end).

type status struct {
	o     Options
	drawn int // lines of the block on screen (TTY)
	// seen are the loop's events already streamed (--json).
	seen    map[string]bool
	cycle   int
	current string
	kind    loop.EffectKind
	// said is set once this cycle said what Ctrl-C leaves it to do.
	said bool
	// engines are the engine lines last shown (TTY: kept while an
	// effect is drawn).
	engines []string
}

func newStatus(o Options) *status { return &status{o: o, seen: map[string]bool{}} }

// event streams one event with --json; the other modes show what
// matters of it in their own shape.
func (s *status) event(e state.Event) {
	if s.o.JSON {
		b, _ := json.Marshal(e)
		fmt.Fprintf(s.o.Out, "%s\n", b)
		return
	}
	switch e.Name {
	case "watch-start":
		s.line(fmt.Sprintf("watching %s — Ctrl-C stops between cycles", e.Detail))
	case "watch-end", "watch-interrupted":
		// The last block stays on the screen: the engines as they ended.
		s.drawn = 0
		s.line(fmt.Sprintf("%s: %s", strings.TrimPrefix(e.Name, "watch-"), cmpOr(join(e.Reason, e.Detail), "done")))
	case "watch-poll":
		if !s.o.TTY && e.Reason == "changed" {
			s.line("poll: something changed on the PR")
		}
	}
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " — " + b
}

// line prints a line above the live block.
func (s *status) line(l string) {
	s.clear()
	fmt.Fprintln(s.o.Out, l)
}

// note is a line the user must read (an unpushed commit, a failed poll).
func (s *status) note(l string) {
	if s.o.JSON {
		s.event(state.Event{Time: s.o.Now(), Name: "watch-note", Detail: l})
		return
	}
	s.line("note: " + l)
}

func (s *status) cycleStart(n int) {
	s.cycle = n
	s.current, s.kind, s.said = "", "", false
	if s.o.JSON {
		return
	}
	if !s.o.TTY {
		fmt.Fprintf(s.o.Out, "cycle %d: observing\n", n)
	}
}

// effect shows the effect the executor starts; interrupted says Ctrl-C
// came during the cycle. The first boundary after Ctrl-C says what the
// cycle finishes and why: the effect that was running when it came (a
// commit is always followed by its push), and the rest of the plan
// through the state's save.
func (s *status) effect(e loop.Effect, interrupted bool) {
	if interrupted {
		s.interrupted(s.kind)
	}
	s.current, s.kind = e.String(), e.Kind
	if s.o.JSON {
		s.event(state.Event{Time: s.o.Now(), Name: "watch-effect", Iteration: s.cycle, Reason: e.Rule, Detail: e.String()})
		return
	}
	if s.o.TTY {
		s.draw(nil, "effect: "+s.current, "")
		return
	}
	fmt.Fprintf(s.o.Out, "  %s\n", s.current)
}

// interrupted says, once per cycle, that Ctrl-C came and what the cycle
// still does before watch stops; during names the effect it came in.
func (s *status) interrupted(during loop.EffectKind) {
	if s.said {
		return
	}
	s.said = true
	what := "Ctrl-C: finishing this cycle's plan through the save of the state comment, then stopping"
	if during == loop.EffectCommit || during == loop.EffectFix {
		what = "Ctrl-C: interrupted during a fix: finishing its commit and its push, then the rest of the plan through the save of the state comment, so the PR and the state agree; then stopping"
	}
	if s.o.JSON {
		s.event(state.Event{Time: s.o.Now(), Name: "watch-interrupt", Iteration: s.cycle, Detail: what})
		return
	}
	s.line(what)
}

// cycleEnd shows the cycle's outcome and streams the loop's new events;
// interrupted says Ctrl-C came during it.
func (s *status) cycleEnd(r action.PRResult, err error, interrupted bool) {
	if interrupted {
		s.interrupted(s.kind)
	}
	now := s.o.Now()
	if s.o.JSON {
		for _, e := range r.State.Events {
			b, _ := json.Marshal(e)
			if s.seen[string(b)] {
				continue
			}
			s.seen[string(b)] = true
			fmt.Fprintf(s.o.Out, "%s\n", b)
		}
		ev := state.Event{Time: now, Name: "watch-cycle", Iteration: s.cycle, Reason: string(r.Plan.Action), Detail: report.WhySentence(r.Plan.Why)}
		if err != nil {
			ev.Reason, ev.Detail = "error", err.Error()
		}
		s.event(ev)
		return
	}
	head := fmt.Sprintf("cycle %d: %s — %s", s.cycle, r.Plan.Action, report.WhySentence(r.Plan.Why))
	switch {
	case err != nil:
		head = fmt.Sprintf("cycle %d: error: %v", s.cycle, err)
	case r.Skipped != "":
		head += " (" + r.Skipped + ")"
	case r.Unchanged:
		head += " (nothing new: nothing written)"
	}
	if r.Pushed != "" {
		head += " · pushed " + short(r.Pushed)
	}
	s.line(head)
	s.engines = engineLines(r, now)
	if s.o.TTY {
		s.draw(s.engines, "effect: none", "")
		return
	}
	for _, l := range s.engines {
		fmt.Fprintln(s.o.Out, l)
	}
}

// waiting shows the engines and the time to the next poll.
func (s *status) waiting(r action.PRResult, next time.Duration) {
	if s.o.JSON {
		return
	}
	poll := fmt.Sprintf("next poll in %s", next.Round(time.Second))
	if s.o.TTY {
		s.engines = engineLines(r, s.o.Now())
		s.draw(s.engines, "effect: none (waiting for the engines)", poll)
		return
	}
	fmt.Fprintln(s.o.Out, poll)
}

// dryRun prints the plan as `plan` does.
func (s *status) dryRun(r action.PRResult) {
	if s.o.JSON {
		for i, e := range r.Effects {
			s.event(state.Event{Time: s.o.Now(), Name: "watch-plan", Iteration: i + 1, Reason: e.Rule, Detail: e.String()})
		}
		return
	}
	s.clear()
	fmt.Fprintf(s.o.Out, "dry run: the next cycle would %s; nothing was written\n", r.Plan.Action)
	if r.DryRun != "" {
		fmt.Fprint(s.o.Out, r.DryRun)
	}
}

// engineLines are one line per engine: its review state, how long it
// has been at it, its verdict and active findings.
func engineLines(r action.PRResult, now time.Time) []string {
	var out []string
	for _, e := range r.Plan.Engines {
		l := fmt.Sprintf("  %-12s %-14s", e.Engine, e.State)
		if es, ok := r.State.EngineStates[e.Engine]; ok && (e.State == loop.Triggered || e.State == loop.Running) {
			since := es.WaitSince
			if since.IsZero() {
				since = es.TriggeredAt
			}
			if !since.IsZero() {
				l += fmt.Sprintf(" %8s", now.Sub(since).Round(time.Second))
			}
		} else {
			l += fmt.Sprintf(" %8s", "")
		}
		if e.Verdict != "" {
			l += "  " + string(e.Verdict)
		}
		l += fmt.Sprintf("  %d active finding(s)", len(e.Active))
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

// draw redraws the live block on a terminal: engines, effect, poll; a
// nil part keeps what the block showed.
func (s *status) draw(engines []string, effect, poll string) {
	if engines == nil {
		engines = s.engines
	}
	s.clear()
	lines := append(append([]string{}, engines...), effect)
	if poll != "" {
		lines = append(lines, poll)
	}
	for _, l := range lines {
		fmt.Fprintln(s.o.Out, l)
	}
	s.drawn = len(lines)
}

// clear erases the live block (TTY): cursor up, erase each line.
func (s *status) clear() {
	if !s.o.TTY || s.drawn == 0 {
		return
	}
	fmt.Fprintf(s.o.Out, "\x1b[%dA\x1b[J", s.drawn)
	s.drawn = 0
}

func (s *status) close() { s.drawn = 0 }
