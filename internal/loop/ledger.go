package loop

import (
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// The cost ledger (CL1) counts what the loop caused: the reviews it asked
// for, the reviews its pushes made engines run by themselves, its own
// Actions minutes and API requests.

func ledgerOf(s *state.State) *state.Ledger {
	if s.Ledger == nil {
		s.Ledger = &state.Ledger{}
	}
	l := s.Ledger
	if l.Requested == nil {
		l.Requested = map[string]int{}
	}
	if l.Automatic == nil {
		l.Automatic = map[string]int{}
	}
	if l.AskedSHA == nil {
		l.AskedSHA = map[string]string{}
	}
	if l.AutoSHA == nil {
		l.AutoSHA = map[string]string{}
	}
	return l
}

// LedgerRequested counts the reviews the loop asked for: engines whose
// trigger for sha was sent (not skipped as a duplicate, not refused, not
// unavailable). Each engine and head is counted once.
func LedgerRequested(st state.State, engines []string, sha string) state.State {
	if len(engines) == 0 {
		return st
	}
	s := st.Clone()
	l := ledgerOf(&s)
	for _, e := range engines {
		if l.AskedSHA[e] == sha {
			continue
		}
		l.Requested[e]++
		l.AskedSHA[e] = sha
	}
	return s
}

// LedgerAutomatic counts the automatic reviews the loop's pushes caused:
// on a head the loop pushed (st.LastPushSHA), an engine the loop did not
// ask for a review of that head shows a review signal there (a check run
// or a review), as Bugbot and CodeRabbit do on every push and Copilot
// does under the "review new pushes" ruleset. Each engine and head is
// counted once; a review of a head someone else pushed is not the loop's.
func LedgerAutomatic(st state.State, views []EngineView, head string) state.State {
	if head == "" || head != st.LastPushSHA {
		return st
	}
	var due []string
	for _, v := range sortedViews(views) {
		if v.Signal == SignalNone || !v.Installed {
			continue
		}
		if st.Ledger != nil && (st.Ledger.AskedSHA[v.Engine] == head || st.Ledger.AutoSHA[v.Engine] == head) {
			continue
		}
		due = append(due, v.Engine)
	}
	if len(due) == 0 {
		return st
	}
	s := st.Clone()
	l := ledgerOf(&s)
	for _, e := range due {
		l.Automatic[e]++
		l.AutoSHA[e] = head
	}
	return s
}

// JobMinutes is what GitHub bills for one job of wall time d: whole
// minutes, rounded up, at least one.
func JobMinutes(d time.Duration) int {
	if d <= 0 {
		return 1
	}
	m := int(d / time.Minute)
	if d%time.Minute != 0 {
		m++
	}
	return m
}

// LedgerCycle adds to the ledger a cycle's job minutes (JobMinutes of its
// wall time; a cycle that writes twice adds the difference), a new cycle
// when cycle is set, and its API requests.
func LedgerCycle(st state.State, minutes int, cycle bool, reads, writes int64) state.State {
	s := st.Clone()
	l := ledgerOf(&s)
	l.JobMinutes += max(minutes, 0)
	if cycle {
		l.Cycles++
	}
	l.APIReads += max(reads, 0)
	l.APIWrites += max(writes, 0)
	return s
}

// RequestsAhead are the API requests a cycle still makes from effects[0]
// on, when effects[0] is the status comment's write: the write itself (a
// checked write reads the comment before and after it; a new comment is
// created, then written again with its own id, SC4) and the single
// writes planned after it (label, re-dispatch). The ledger written with
// the comment counts them (CL1), since no later write of the cycle may
// count them; effects of unknown cost after it are not counted.
func RequestsAhead(effects []Effect, newComment bool) (reads, writes int64) {
	for i, e := range effects {
		switch e.Kind {
		case EffectSave, EffectClaim:
			if i > 0 {
				return reads, writes // a later write counts what comes after it
			}
			switch {
			case newComment:
				writes += 2
			case e.Checked:
				reads, writes = reads+2, writes+1
			default:
				writes++
			}
		case EffectLabel, EffectRedispatch:
			writes++
		}
	}
	return reads, writes
}
