package loop

import (
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// OutcomeRefused is a fix made in the checkout that a guardrail (B5) did
// not let the loop push: it was never applied to the PR.
const OutcomeRefused = "refused"

// RecordRefusal is B5 with H9: the cycle's fixes were refused at the
// commit or the push (a protected or default branch). The loop hands back
// in this same cycle with end reason "bound" (B5 is a hard bound); this
// cycle's fixed rows become refused and no longer count as fixed (H1), and
// the commit that was about to be pushed is no pending push. p is the
// cycle's fix plan; the returned plan is its hand-back.
func RecordRefusal(st state.State, p Plan, why string, now time.Time) (Plan, state.State) {
	s := st.Clone()
	approved := approvedIDs(s)
	for i, r := range s.Triage {
		if r.Cycle != s.Iteration || r.Outcome != OutcomeFixed {
			continue
		}
		s.Triage[i].Outcome = OutcomeRefused
		scoreOutcome(&s, s.Triage[i], &r) // EQ1: no longer fixed
		if s.Totals.Fixed > 0 {
			s.Totals.Fixed--
		}
		es := *engineState(&s, r.Engine)
		if es.Fixed > 0 {
			es.Fixed--
		}
		if approved[r.FindingID] && es.Approved > 0 {
			es.Approved--
		}
		s.EngineStates[r.Engine] = es
	}
	s.PendingPushSHA = ""
	s.Status, s.EndReason = state.StatusDone, string(EndBound)
	ev := state.Event{Time: now, Name: state.EventTerminate, Iteration: s.Iteration, Reason: string(EndBound), Detail: why}
	s.Events = append(s.Events, ev)
	p.Action, p.EndReason, p.Why = ActionHandBack, EndBound, why
	p.Events = append(p.Events, ev)
	p.Engines = append([]EngineReport(nil), p.Engines...)
	for i := range p.Engines {
		if p.Engines[i].Verdict == "" {
			p.Engines[i].Verdict = VerdictStillFinding
		}
	}
	return p, s
}

// RecordWriteRefusal hands the PR back in this cycle when a write was
// refused because it held a secret (TB14), with the refusal (which names
// the input, never the value) as the reason. Before the cycle's push it is
// a refusal of the cycle's fixes (RecordRefusal); after it the pushed
// fixes stand and only the hand-back is recorded.
func RecordWriteRefusal(st state.State, p Plan, why string, pushed bool, now time.Time) (Plan, state.State) {
	if !pushed {
		return RecordRefusal(st, p, why, now)
	}
	s := st.Clone()
	s.Status, s.EndReason = state.StatusDone, string(EndBound)
	ev := state.Event{Time: now, Name: state.EventTerminate, Iteration: s.Iteration, Reason: string(EndBound), Detail: why}
	s.Events = append(s.Events, ev)
	p.Action, p.EndReason, p.Why = ActionHandBack, EndBound, why
	p.Events = append(p.Events, ev)
	return p, s
}
