package loop

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// HumanKind is the kind of a person's activity on the PR (HY1).
type HumanKind string

// What a person did that review-loop yields to.
const (
	// HumanChangesRequested is a CHANGES_REQUESTED review by a person.
	HumanChangesRequested HumanKind = "changes-requested"
	// HumanReply is a person's reply in a review thread.
	HumanReply HumanKind = "reply"
)

// HumanActivity is a person's review or thread reply (HY1): never one by
// a bot or by review-loop's own identity (the orchestrator leaves those out).
type HumanActivity struct {
	Kind HumanKind
	// ID is the review's or the reply's database id.
	ID    int64
	Login string
	At    time.Time
	// ThreadID is the review thread of a reply.
	ThreadID string
	// Unentitled: the person is neither the PR's author nor a user with
	// write permission on the repository (or that could not be read), so
	// the act changes nothing; it is reported once (TB15). The driver
	// reads the permission for every act the loop has not seen yet.
	Unentitled bool
}

// YieldNeedsWrite says, as TB15 reports it, that only the PR's author or a
// user with write permission makes the loop yield.
const YieldNeedsWrite = "only the PR's author or a user with write permission makes the loop yield (TB15)"

// yieldToHumans is rule HY1's bookkeeping, once per cycle after the
// engines are read: an outside push by someone not known to be a bot, or
// a person's changes-requested review since the last cycle, pauses the
// fixing half of the loop for YieldFor; a person's reply in a finding's
// thread pauses that finding. Pauses end when their time is up or on
// `@review-loop resume`. Activity from before the loop started is history,
// not work in progress.
func (d *decider) yieldToHumans() {
	s, now, y := &d.s, d.obs.Now, d.cfg.YieldFor
	// CV5: an engine's own fixer pushing is yielded to as a person is.
	fixer := EngineFixer(d.obs.HeadPusher, "")
	if d.outsidePush && y > 0 && d.obs.HeadPusherUnentitled && fixer == "" {
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("ignored the push by @%s (head %s): %s", d.obs.HeadPusher, short(d.head), YieldNeedsWrite))
	} else if d.outsidePush && y > 0 && (!(d.obs.HeadPusher != "" && d.obs.HeadPusherBot) || fixer != "") {
		who := "an outside push by someone review-loop cannot name"
		switch {
		case fixer != "":
			who = "a push by " + fixer + " (@" + d.obs.HeadPusher + ")"
		case d.obs.HeadPusher != "":
			who = "a push by @" + d.obs.HeadPusher
		}
		if s.Yield == nil || !s.Yield.Until.Equal(now.Add(y)) {
			d.yield(who + " (head " + short(d.head) + ")")
		}
	}
	seen := s.HumanSeenID
	acts := slices.Clone(d.obs.Humans)
	slices.SortFunc(acts, func(a, b HumanActivity) int { return cmp.Compare(a.ID, b.ID) })
	// GitHub's times are whole seconds: an act in the loop's first second
	// is not from before it (TB15, NotBeforeOurs).
	for _, h := range acts {
		if h.ID <= s.HumanSeenID || !NotBeforeOurs(h.At, s.StartedAt) {
			continue
		}
		seen = max(seen, h.ID)
		if y <= 0 {
			continue
		}
		if h.Unentitled {
			what := "a changes-requested review"
			if h.Kind == HumanReply {
				what = "a thread reply"
			}
			d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("ignored %s by @%s: %s", what, h.Login, YieldNeedsWrite))
			continue
		}
		switch h.Kind {
		case HumanChangesRequested:
			d.yield("a changes-requested review by @" + h.Login)
		case HumanReply:
			d.pauseThread(h)
		}
	}
	s.HumanSeenID = seen
	if s.Yield != nil && !now.Before(s.Yield.Until) {
		d.plan.Notices = append(d.plan.Notices, "review-loop stopped yielding to "+s.Yield.Reason+": its pause is over (HY1)")
		s.Yield = nil
	}
	s.Paused = slices.DeleteFunc(s.Paused, func(p state.Pause) bool { return !now.Before(p.Until) })
	if s.Yield != nil {
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("yielding to %s until %s (HY1): no fix is made meanwhile; `@review-loop resume` ends the pause",
			s.Yield.Reason, s.Yield.Until.UTC().Format("15:04 UTC")))
	}
	for _, p := range s.Paused {
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("finding %s paused: yielding to @%s's reply in its thread until %s (HY1); `@review-loop resume` ends the pause",
			p.FindingID, p.By, p.Until.UTC().Format("15:04 UTC")))
	}
}

// yield pauses the fixing half for YieldFor from now; a later reason
// replaces an earlier one and the pause runs from the latest.
func (d *decider) yield(reason string) {
	d.s.Yield = &state.Yield{Until: d.obs.Now.Add(d.cfg.YieldFor), Reason: reason}
}

// pauseThread pauses the active findings whose thread (their own, or a
// merged source's) the person replied in.
func (d *decider) pauseThread(h HumanActivity) {
	if h.ThreadID == "" {
		return
	}
	for _, e := range d.ev {
		for _, f := range e.active {
			if f.ThreadID != h.ThreadID {
				continue
			}
			d.s.Paused = slices.DeleteFunc(d.s.Paused, func(p state.Pause) bool { return p.FindingID == f.ID })
			start, line := span(*f)
			d.s.Paused = append(d.s.Paused, state.Pause{FindingID: f.ID, ThreadID: f.ThreadID, Path: f.Path, StartLine: start, Line: line,
				By: h.Login, Until: d.obs.Now.Add(d.cfg.YieldFor)})
		}
	}
}

// holdForHumans applies HY1 to the findings about to go to triage: a
// paused finding (or one merged with a paused source) is held back, and
// while the fixing half yields nothing is fixed. When it holds back
// everything there is to fix, it plans a wait until the pause ends and
// reports true.
func (d *decider) holdForHumans(fresh *[]Finding) bool {
	s := &d.s
	paused := func(f Finding) (state.Pause, bool) {
		for _, p := range s.Paused {
			if p.FindingID == f.ID || slices.ContainsFunc(f.Sources, func(r SourceRef) bool { return r.ID == p.FindingID }) {
				return p, true
			}
			// The same place, re-posted in a new thread (ST1 engines).
			if fs, fl := span(f); p.Path != "" && p.Path == f.Path && f.Line > 0 && fs <= p.Line && p.StartLine <= fl {
				return p, true
			}
		}
		return state.Pause{}, false
	}
	var until time.Time
	var why string
	kept := *fresh
	if len(s.Paused) > 0 {
		kept = (*fresh)[:0] // fresh is this cycle's own slice
		for _, f := range *fresh {
			if p, ok := paused(f); ok {
				if until.IsZero() || p.Until.Before(until) {
					until, why = p.Until, fmt.Sprintf("finding %s is paused for @%s's reply in its thread", f.ID, p.By)
				}
				continue
			}
			kept = append(kept, f)
		}
		*fresh = kept
	}
	if s.Yield != nil && len(kept) > 0 {
		until, why = s.Yield.Until, "yielding to "+s.Yield.Reason
	} else if len(kept) > 0 || until.IsZero() {
		return false
	}
	d.plan.Action, d.plan.WakeAt, d.plan.Wait = ActionWait, until, until.Sub(d.obs.Now)
	d.plan.Why = fmt.Sprintf("HY1: %s until %s; no fix is made meanwhile", why, until.UTC().Format(time.RFC3339))
	return true
}
