package loop

import (
	"fmt"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
	"pgregory.net/rapid"
)

// sim drives Decide like the orchestrator does, against engines whose
// behaviour rapid draws: per head SHA each engine's signal only moves
// forward (NONE → RUNNING → DONE), and its findings arrive with its review,
// as real engines post them. There are no outside pushes.
type sim struct {
	t         *rapid.T
	cfg       Config
	engines   []string
	st        state.State
	head      string
	shas      int
	now       time.Time
	nextID    int64
	signal    map[string]Signal
	findings  map[string][]Finding
	review    map[string]int64
	unproven  map[string]bool // S8: the engine's post is no finished review
	triggered map[[2]string]bool
	cycles    int
	maxStep   time.Duration
}

func newSim(t *rapid.T) *sim {
	all := []string{"bugbot", "claude", "copilot"}
	n := rapid.IntRange(1, 3).Draw(t, "engines")
	cfg := DefaultConfig()
	cfg.MaxCommits = rapid.IntRange(0, 4).Draw(t, "maxCommits")
	cfg.MaxIdle = time.Duration(rapid.IntRange(0, 25).Draw(t, "maxIdleMinutes")) * time.Minute
	cfg.MaxActiveMinutes = rapid.IntRange(0, 120).Draw(t, "maxActiveMinutes")
	s := &sim{t: t, cfg: cfg, engines: all[:n], st: state.New(), now: t0, nextID: 1000, maxStep: 30 * time.Minute,
		triggered: map[[2]string]bool{}}
	s.newHead()
	return s
}

func (s *sim) newHead() {
	s.shas++
	s.head = fmt.Sprintf("sha-%d", s.shas)
	s.signal = map[string]Signal{}
	s.findings = map[string][]Finding{}
	s.review = map[string]int64{}
	s.unproven = map[string]bool{}
}

// advance moves each engine's signal forward at random and returns the views.
func (s *sim) views() []EngineView {
	var out []EngineView
	for _, e := range s.engines {
		switch s.signal[e] {
		case "", SignalNone:
			s.signal[e] = rapid.SampledFrom([]Signal{SignalNone, SignalRunning, SignalDone}).Draw(s.t, "signal")
		case SignalRunning:
			s.signal[e] = rapid.SampledFrom([]Signal{SignalRunning, SignalDone}).Draw(s.t, "signal")
		}
		v := none(e)
		v.Signal = s.signal[e]
		if v.Signal == SignalDone {
			if s.review[e] == 0 {
				s.nextID++
				s.review[e] = s.nextID
				s.unproven[e] = rapid.IntRange(0, 2).Draw(s.t, "unproven") == 0
				for range rapid.IntRange(0, 2).Draw(s.t, "findings") {
					s.nextID++
					fd := f(s.nextID)
					fd.Category = rapid.SampledFrom([]string{"nil", "race", "leak"}).Draw(s.t, "category")
					s.findings[e] = append(s.findings[e], fd)
				}
			}
			v = done(e, s.head, s.review[e], s.findings[e]...)
			if s.unproven[e] {
				v.Proof, v.Unproven = nil, "I'm currently reviewing this pull request"
			}
			if rapid.IntRange(0, 9).Draw(s.t, "errored") == 0 {
				v.Material = MaterialErrored
			}
		}
		out = append(out, v)
	}
	return out
}

func (s *sim) trigger(reqs []TriggerRequest) {
	var res []TriggerResult
	for _, r := range reqs {
		k := [2]string{r.Engine, r.SHA}
		if s.triggered[k] {
			s.t.Fatalf("(a) %s triggered twice for %s", r.Engine, r.SHA)
		}
		s.triggered[k] = true
		tr := TriggerResult{Engine: r.Engine, SHA: r.SHA, SignalID: s.nextID}
		if rapid.IntRange(0, 9).Draw(s.t, "triggerFails") == 0 {
			tr.Err = "HTTP 502"
		}
		res = append(res, tr)
	}
	s.st = RecordTriggers(s.st, res, s.now)
}

// step runs one cycle and reports whether the loop handed back.
func (s *sim) step() bool {
	s.cycles++
	// A wake is a workflow run: at least a minute after the last one.
	s.now = s.now.Add(time.Duration(rapid.Int64Range(int64(time.Minute), int64(20*time.Minute)).Draw(s.t, "elapsed")))
	views := s.views()
	p, st := Decide(s.st, Observation{Now: s.now, HeadSHA: s.head, PRState: "OPEN", Engines: views}, s.cfg)
	s.st = st
	ended := false
	switch p.Action {
	case ActionTrigger:
		s.trigger(p.Triggers)
	case ActionFix:
		var rows []state.TriageRow
		for _, fd := range p.Triage {
			out := rapid.SampledFrom([]string{OutcomeFixed, OutcomeEscalated, OutcomeReverted}).Draw(s.t, "outcome")
			rows = append(rows, state.TriageRow{FindingID: fd.ID, Engine: fd.Engine, CommentID: fd.CommentID, Tier: 1, Outcome: out, Key: NoProgressKey(fd)})
		}
		s.st = RecordFixCycle(s.st, FixResult{Rows: rows}, s.now)
		if s.st.Status == state.StatusActive {
			s.newHead()
			s.st = RecordPendingPush(s.st, s.head)
			s.st = RecordPush(s.st, s.head)
			var fresh []EngineView
			for _, e := range s.engines {
				fresh = append(fresh, none(e))
			}
			s.trigger(RetriggerAfterPush(s.st, fresh, s.head, s.cfg))
		} else {
			ended = true
		}
	case ActionHandBack:
		ended = true
		if p.EndReason == EndClean {
			for _, v := range views {
				if v.Signal != SignalDone {
					s.t.Fatalf("(b) CLEAN while %s is %s", v.Engine, v.Signal)
				}
				if !Proven(v, s.head) {
					s.t.Fatalf("(b) CLEAN while %s has no proof of a finished review of the head (S8)", v.Engine)
				}
			}
			for _, r := range p.Engines {
				if r.State != Done || r.Verdict != VerdictClean {
					s.t.Fatalf("(b) CLEAN while %s is %s/%s", r.Engine, r.State, r.Verdict)
				}
			}
		}
	case ActionNone:
		s.t.Fatalf("an active loop planned none: %s", p.Why)
	}
	s.st = AddActiveWork(s.st, time.Duration(rapid.Int64Range(0, int64(s.maxStep)).Draw(s.t, "active")))
	// (c) counters exceed their bounds by at most the step that trips
	// them: B1 is checked before the fix that would pass it, so commits
	// never pass; no work is planned once active work reached its bound, so it
	// passes by at most the cycle that crossed it plus the hand-back cycle.
	if s.st.Commits > s.cfg.MaxCommits {
		s.t.Fatalf("(c) commits %d over the bound %d", s.st.Commits, s.cfg.MaxCommits)
	}
	if p.Action != ActionHandBack && st.ActiveSeconds >= int64(s.cfg.MaxActiveMinutes)*60 {
		s.t.Fatalf("(c) planned %s with %d active seconds, bound %d minutes", p.Action, st.ActiveSeconds, s.cfg.MaxActiveMinutes)
	}
	if lim := int64(s.cfg.MaxActiveMinutes)*60 + 2*int64(s.maxStep/time.Second); s.st.ActiveSeconds > lim {
		s.t.Fatalf("(c) active seconds %d > %d", s.st.ActiveSeconds, lim)
	}
	return ended
}

func TestProperty_LoopInvariants(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := newSim(t)
		e := len(s.engines)
		// (d) Bound on cycles with no outside push. Per head SHA there is at
		// most one trigger cycle (every NOT_TRIGGERED engine is triggered in
		// the same cycle and then TRIGGERED for that SHA) and at most one fix
		// cycle (it either pushes a new SHA or hands back, E3). Wait cycles:
		// wakes are a minute apart at least and B3 trips MaxIdle after the
		// last progress, so at most MaxIdle/1min+1 wait cycles in a row;
		// progress (a new push, new findings, which each engine posts once
		// per SHA with its review, or a trigger) restarts the idle clock at
		// most 2E+1 times per SHA, so at most (2E+2)×(MaxIdle/1min+1) wait
		// cycles.
		// A new SHA exists only after a fix commit, and B1 hands back at
		// MaxCommits, so there are at most MaxCommits+1 SHAs; one more cycle
		// for the final hand-back.
		perSHA := 2 + (2*e+2)*(int(s.cfg.MaxIdle/time.Minute)+1)
		bound := (s.cfg.MaxCommits+1)*perSHA + 1
		for !s.step() {
			if s.cycles > bound {
				t.Fatalf("(d) loop still running after %d cycles (bound %d)", s.cycles, bound)
			}
		}
		if s.st.Commits > s.cfg.MaxCommits {
			t.Fatalf("(c) finished with %d commits, bound %d", s.st.Commits, s.cfg.MaxCommits)
		}
	})
}
