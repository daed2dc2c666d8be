package loop

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// eval is one engine's reading for this cycle.
type eval struct {
	view   EngineView
	es     state.EngineState
	rs     ReviewState
	active []*Finding
	// fresh are active findings (or judge items) not yet triaged and not
	// skipped: what (f) sends to triage.
	fresh []*Finding
	// newSeen is set when a finding appeared since the last wake (B3).
	newSeen bool
	// out: excluded from the sync gate (not installed, ERRORED, HUNG).
	out     bool
	verdict EngineVerdict
	note    string
	judge   JudgeVerdict
	// cooling: the engine is in its quota cooldown (T8).
	cooling bool
	// unproven: DONE with readable material but no recognised finished
	// review of the head (S8): awaited like a running engine, within the
	// same waiting bound (T4 stall, B3), then marked UNPROVEN.
	unproven bool
	// recalled are findings raised again after a remembered won't-fix
	// decision (WF1): not active.
	recalled []*Finding
	// tooLarge: the diff is over the engine's own limit (CV6).
	tooLarge bool
	// below are the findings below the severity floor (EQ3): listed for
	// a human, not active.
	below []*Finding
}

type decider struct {
	s    state.State
	obs  Observation
	cfg  Config
	plan Plan
	head string
	ev   []*eval
	// outsidePush: this cycle saw a push that is not ours (W3, HY1).
	outsidePush bool
	// proseRound: the findings sent to triage include prose or nitpick
	// ones (CV3).
	proseRound bool
	// held indexes the findings listed for a human (CV3, CV5, CV6).
	held map[string]bool
	// mem is the won't-fix memory (WF1), built at the first recall.
	mem *memory
	// pushBase is where the commits pushed since the last look are read
	// from (PushesSince before this cycle); pushesUnread says why they
	// could not be read, "" when they were or there were none (CV7).
	pushBase     string
	pushesUnread string
}

// Decide is the loop's one decision per cycle: from the saved state, this
// cycle's observation and the config, it returns the plan and the state to
// save. It runs new-push detection (W3, E5) and then the decision tree W1
// in its exact order. It reads no clock and does no I/O; st is not changed.
func Decide(st state.State, obs Observation, cfg Config) (Plan, state.State) {
	d := &decider{s: st.Clone(), obs: obs, cfg: cfg, head: obs.HeadSHA}
	d.decide()
	d.boundTriage()
	d.notInstalled()
	d.untriggerable()
	d.inducedNotices()
	d.heldNotices()
	d.tooLargeNotices()
	d.report()
	return d.plan, d.s
}

// notInstalled is IN2's notice, repeated every cycle so the status comment
// keeps it: an engine found not installed when the loop chose its default
// set, and not selected, dropped out.
func (d *decider) notInstalled() {
	for _, e := range slices.Sorted(maps.Keys(d.s.Installed)) {
		if d.s.Installed[e] || slices.Contains(d.s.Engines, e) {
			continue
		}
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf(
			"engine %s is not installed on this repository: left out of the default set (IN2); name it in `engines` to attempt it anyway", e))
	}
}

// untriggerable is T1's notice, every cycle: an engine we cannot trigger
// with the tokens we have (a trigger token is missing) is waited for on its
// automatic runs, and the report says so even once it is clean.
func (d *decider) untriggerable() {
	for _, v := range sortedViews(d.obs.Engines) {
		if v.Installed && !v.TriggerAvailable && v.TriggerNote != "" {
			d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("engine %s cannot be triggered by the loop (T1): %s", v.Engine, v.TriggerNote))
		}
	}
}

func (d *decider) decide() {
	s := &d.s
	switch s.Status {
	case "":
		d.startLoop()
	case state.StatusDone, state.StatusStopped:
		// H8: a finished loop is restarted only by a command.
		d.plan.Action = ActionNone
		d.plan.EndReason = EndReason(s.EndReason)
		d.plan.Why = fmt.Sprintf("the loop for this PR ended (%s); `@review-loop start` restarts it (H8)", s.EndReason)
		d.evaluate(false)
		return
	default:
		// H8: an incomplete loop resumes where it was.
	}
	s.Version = state.Version
	if d.obs.PRState != "" && d.obs.PRState != "OPEN" {
		d.evaluate(false)
		d.handBack(EndStopped, fmt.Sprintf("PR #%d is not OPEN — current state: %s", d.obs.PR, d.obs.PRState))
		return
	}
	// H7: large PRs.
	if d.obs.Commits >= d.cfg.LargePRCommits || d.obs.ChangedLines >= d.cfg.LargePRLines {
		s.LargePR = true
	}
	d.plan.LargePR = s.LargePR
	d.pushBase = PushesSince(*s, d.head)
	newPush := d.detectPush()
	d.foldJudges()
	d.evaluate(true)
	if d.obs.IsDraft && !d.cfg.KeepDraft && slices.ContainsFunc(d.ev, func(e *eval) bool {
		return e.view.Material == MaterialDraft || e.view.WithholdUntilFirstReview
	}) {
		d.plan.MarkReady = true
	}
	d.readPushes()
	d.yieldToHumans()
	newFinding := slices.ContainsFunc(d.ev, func(e *eval) bool { return e.newSeen })
	if newPush || newFinding {
		s.IdleSince = d.obs.Now
	}
	d.tree(newPush || newFinding)
	d.budgetFloor()
}

// startLoop begins a new loop for the PR.
func (d *decider) startLoop() {
	s := &d.s
	fresh := state.New()
	fresh.Status = state.StatusActive
	fresh.StartedAt = d.obs.Now
	fresh.Events = s.Events
	fresh.EventsDropped = s.EventsDropped
	fresh.Notices = s.Notices
	fresh.Installed = s.Installed
	*s = fresh
	d.event(state.Event{Name: state.EventRunStart, SHA: d.head})
}

// detectPush is rule W3 with the write-ahead pending push (E5). It reports
// whether the head is a push not seen before, ours or not.
func (d *decider) detectPush() bool {
	s := &d.s
	head, prev := d.head, s.LastObservedSHA
	if head == "" {
		return false
	}
	defer func() { s.LastObservedSHA = head }()
	newPush := false
	switch {
	case s.PendingPushSHA != "" && head == s.PendingPushSHA:
		// Our write-ahead push landed, perhaps by a run killed before it
		// saved: it is our push, counted once; triggers it recorded stand.
		if s.LastPushSHA != head {
			s.LastPushSHA = head
			s.Commits++
		}
		markPushed(s, head)
		s.PendingPushSHA = ""
		newPush = head != prev
	case head == prev:
	case head == s.LastPushSHA:
		newPush = true
	case prev == "":
		// The loop's first look at the PR.
	default:
		newPush = true
		d.outsidePush = true
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("outside push detected: head %s is not our push; observation starts over (W3)", short(head)))
	}
	if newPush {
		for _, e := range slices.Sorted(maps.Keys(s.EngineStates)) {
			es := s.EngineStates[e]
			es.Review = state.ReviewNotTriggered
			es.WaitSHA, es.WaitSince = "", time.Time{}
			if es.MarkSHA != head {
				es.Mark, es.MarkSHA, es.MarkNote = "", "", ""
			}
			s.EngineStates[e] = es
		}
	}
	return newPush
}

// foldJudges caches this cycle's judge verdicts (J4).
func (d *decider) foldJudges() {
	for _, v := range sortedViews(d.obs.Engines) {
		if res, ok := d.obs.Judge[v.Engine]; ok {
			if d.obs.JudgeUntrusted && (res.Verdict == JudgeClean || res.Verdict == JudgeNonBlocking) {
				res = JudgeResult{Verdict: JudgeNone, Reason: "the prepare job said " + string(res.Verdict) +
					"; the publish job runs no judge, and another job's word is no proof of clean (TB10)"}
			}
			d.s = RecordJudge(d.s, v, d.head, res)
		}
	}
}

// evaluate reads every engine for this cycle. With record set it updates
// the engines' saved state (review seen, errors, waits).
func (d *decider) evaluate(record bool) {
	s := &d.s
	triaged := make(map[int64]bool, len(s.Triage))
	triagedID := make(map[string]bool, len(s.Triage))
	for _, r := range s.Triage {
		if r.CommentID != 0 {
			triaged[r.CommentID] = true
		}
		triagedID[r.FindingID] = true
	}
	approved := approvedIDs(*s)
	awaiting := map[string]bool{}
	for _, r := range s.Triage {
		if awaitingApproval(r.Outcome) && approved[r.FindingID] {
			awaiting[r.FindingID] = true
		}
	}
	skipped := map[string]bool{}
	for _, id := range s.Skips {
		skipped[id] = true
	}
	views := sortedViews(d.obs.Engines)
	if record {
		names := make([]string, 0, len(views))
		for _, v := range views {
			names = append(names, v.Engine)
		}
		s.Engines = names
	}
	d.ev = d.ev[:0]
	for _, v := range views {
		// S11: a maintainer's accept stands in for the engine's proof.
		v = withAcceptance(*s, v, d.head)
		es := *engineState(s, v.Engine)
		e := &eval{view: v}
		e.rs = ReviewStateOf(es, v, d.head)
		if record {
			if v.LatestReviewID > es.LastSeenReviewID {
				scoreReviewTime(s, v.Engine, reviewSince(es, v.LatestSHA), reviewAt(v, v.LatestReviewID))
				es.LastSeenReviewID, es.LastSeenReviewSHA = v.LatestReviewID, v.LatestSHA
				d.event(state.Event{Name: state.EventReviewDetected, Engine: v.Engine, SHA: v.LatestSHA,
					Detail: "review " + strconv.FormatInt(v.LatestReviewID, 10)})
			}
			if len(v.Reviews) > 0 || v.LatestReviewID != 0 {
				es.FirstReviewSeen = true
			}
			if unseen(*s, v.Engine) && (es.FirstReviewSeen || v.Signal != SignalNone) {
				// IN2: it answered, so it is installed after all.
				s.Installed = maps.Clone(s.Installed)
				s.Installed[v.Engine] = true
				if notInstalledOut(es) {
					es.Mark, es.MarkSHA, es.MarkNote = "", "", ""
				}
			}
			d.recordQuota(&es, v)
			if !es.QuotaUntil.IsZero() && reviewedSinceQuota(v, d.head) {
				es.QuotaUntil, es.QuotaNote = time.Time{}, ""
			}
			if e.rs == Done && (v.Material == MaterialErrored || v.Material == MaterialUnproven) && !(es.Mark == state.MarkErrored && es.MarkSHA == d.head) {
				es.ConsecutiveErrors++
				es.LastErrorSignalID = v.SignalID
				es.Mark, es.MarkSHA, es.MarkNote = state.MarkErrored, d.head, materialNote(v)
				if v.Material == MaterialUnproven {
					// S11: nothing proves a review of the head; a person may.
					es.MarkNote += "; " + acceptOffer(v.Engine)
				}
			} else if e.rs == Done && v.Material == MaterialOK {
				es.ConsecutiveErrors = 0
			}
		}
		e.rs, e.cooling = d.quotaState(es, v, e.rs)
		e.unproven = e.rs == Done && v.Material == MaterialOK && !Proven(v, d.head)
		if record && es.Mark == state.MarkUnproven && es.MarkSHA == d.head && e.rs == Done && !e.unproven {
			// S8: the finished review came after all; the mark is lifted.
			es.Mark, es.MarkSHA, es.MarkNote = "", "", ""
		}
		if e.rs == NotTriggered && v.Installed && es.ConsecutiveErrors < d.cfg.MaxConsecutiveErrors {
			// The push is the trigger for these: withheld prose engines
			// before their first review (T7) and engines we cannot trigger.
			switch {
			case v.Paused != "" && !v.TriggerAvailable:
				// ST6: no automatic run will come; classify says why.
			case v.WithholdUntilFirstReview && !es.FirstReviewSeen:
				e.rs, e.note = Triggered, "waiting for its push-triggered run (withheld until its first review, T7)"
			case !v.TriggerAvailable:
				e.rs, e.note = Triggered, "cannot be triggered with our tokens; waiting for its automatic run"
				if v.TriggerNote != "" {
					e.note += ": " + v.TriggerNote
				}
			}
		}
		if record && (e.rs == Triggered || e.rs == Running || e.unproven) && es.WaitSHA != d.head {
			since := d.obs.Now
			if es.TriggeredSHA == d.head && !es.TriggeredAt.IsZero() && es.TriggeredAt.Before(since) {
				since = es.TriggeredAt
			}
			if !v.SignalStartedAt.IsZero() && v.SignalStartedAt.Before(since) {
				since = v.SignalStartedAt
			}
			es.WaitSHA, es.WaitSince = d.head, since
		}
		e.active = activeFindings(e.view, d.head)
		for _, f := range e.active {
			if f.CommentID > es.LastSeenCommentID {
				e.newSeen = true
				if record {
					es.LastSeenCommentID = f.CommentID
				}
			}
		}
		e.active, e.below = splitFloor(e.active, d.cfg.CleanAt)
		d.recall(e)
		if record {
			es.Review = string(e.rs)
			s.EngineStates[v.Engine] = es
		}
		e.es = es
		d.classify(e)
		if e.verdict != VerdictStillFinding {
			e.fresh = nil
		} else {
			cands := d.candidates(e)
			e.fresh = make([]*Finding, 0, len(cands))
			for _, f := range cands {
				switch {
				case skipped[f.ID]:
				case awaiting[f.ID]:
					e.fresh = append(e.fresh, f)
				case f.CommentID != 0 && triaged[f.CommentID]:
				case f.CommentID == 0 && triagedID[f.ID]:
				default:
					e.fresh = append(e.fresh, f)
				}
			}
		}
		d.ev = append(d.ev, e)
	}
}

// candidates are the findings an engine would send to triage: its active
// findings, or for a prose engine the judge's blocking items with them (J2).
func (d *decider) candidates(e *eval) []*Finding {
	if !e.view.Prose {
		return e.active
	}
	if e.judge != JudgeBlocking {
		return nil
	}
	out := slices.Clone(e.active)
	if c := e.es.Judge; c != nil {
		for _, it := range c.Items {
			out = append(out, &Finding{ID: it.ID, Engine: e.view.Engine, Title: it.Title, Path: it.Path,
				Line: it.Line, ReviewSHA: it.SHA, Severity: SeverityUnknown})
		}
	}
	return out
}

// classify sets an engine's verdict and whether it is out of the sync
// gate. Past the escape hatches it is rule S3 as verdictOf states it, the
// same function `status` uses (IsClean).
func (d *decider) classify(e *eval) {
	v, es := e.view, e.es
	switch {
	case !v.Installed:
		e.out, e.verdict, e.note = true, VerdictErrored, "not installed: "+v.NotInstalled
	case d.tooLarge(v.Engine) != "":
		// CV6: the engine will not review a diff over its own limit.
		e.out, e.verdict, e.note, e.tooLarge = true, VerdictErrored, d.tooLarge(v.Engine), true
	case notInstalledOut(es) && unseen(d.s, v.Engine):
		// IN2: asked once; it stays out on every head of the loop.
		e.out, e.verdict, e.note = true, VerdictHung, es.MarkNote
	case e.cooling:
		// T8: out of the sync gate, not triggered, not waited on.
		e.out, e.verdict, e.note = true, VerdictErrored, quotaNote(es)
	case es.ConsecutiveErrors >= d.cfg.MaxConsecutiveErrors:
		e.out, e.verdict = true, VerdictErrored
		e.note = fmt.Sprintf("errored %d times in a row; the others go on (T4)", es.ConsecutiveErrors)
		if es.MarkNote != "" {
			e.note += ": " + es.MarkNote
		}
	case es.Mark != "" && es.MarkSHA == d.head:
		e.out, e.note = true, es.MarkNote
		e.verdict = markVerdict(es.Mark)
	case v.Paused != "" && e.rs == NotTriggered && !v.TriggerAvailable:
		// ST6: a paused engine reviews no push by itself, and without a
		// trigger token it cannot be asked for one review: not waited on.
		e.out, e.verdict = true, VerdictPaused
		e.note = "PAUSED: " + v.Paused + "; review-loop has no trigger token to ask it, so no review of the head will come (ST6)"
	case e.rs != Done:
		e.verdict = ""
		if v.Paused != "" {
			e.note = "PAUSED, not pending: " + v.Paused + "; the loop asks it for one review of the head"
		}
		if unseen(d.s, v.Engine) && e.note == "" {
			e.note = "never seen on this repository: asked once; no review within its normal latency means not installed? (IN2)"
		}
	default:
		// WF1: a recalled finding is counted by the engine, not by us;
		// EQ3: nor is a finding below the severity floor.
		v = lessStated(v, len(e.recalled)+len(e.below))
		e.verdict, e.note, e.judge = verdictOf(es, v, d.head, e.rs, e.active)
		if e.verdict == VerdictClean && v.Proof != nil && v.Proof.Kind == KindAccepted {
			e.note = acceptNote(v)
		}
		if e.verdict == VerdictUnproven {
			// S8: awaited only until S11 marks it (its signal is in, or,
			// with none, its latency has passed), or until hand-back.
			e.verdict = ""
		}
	}
	if e.verdict != "" {
		e.unproven = false
	}
}

// markVerdict is the verdict a mark stands for (T4, S8).
func markVerdict(mark string) EngineVerdict {
	switch mark {
	case state.MarkErrored:
		return VerdictErrored
	case state.MarkUnproven:
		return VerdictUnproven
	}
	return VerdictHung
}

// recordQuota is T8's bookkeeping: an engine's usage, rate-limit or quota
// notice sets its cooldown, QuotaUntil = the notice's time plus the wait
// it states, or one hour when it states none. A notice older than our
// last trigger of the engine is superseded: that trigger came after the
// cooldown. Quota is not an engine error (T4 does not count it).
func (d *decider) recordQuota(es *state.EngineState, v EngineView) {
	q := v.Quota
	if q == nil || quotaSuperseded(*es, q) {
		return
	}
	if until := QuotaUntil(*q); until.After(es.QuotaUntil) {
		es.QuotaUntil, es.QuotaNote = until, oneLine(q.Text)
		scoreQuota(&d.s, v.Engine)
		d.event(state.Event{Name: state.EventIterError, Engine: v.Engine, SHA: d.head, Reason: "quota",
			Detail: "cooling down until " + until.UTC().Format(time.RFC3339) + ": " + es.QuotaNote})
	}
}

// QuotaUntil is when a quota notice's cooldown ends (T8): its time plus
// the wait it states, or one hour when it states none.
func QuotaUntil(q QuotaNotice) time.Time {
	w := q.Wait
	if w <= 0 {
		w = time.Hour
	}
	return q.At.Add(w)
}

// quotaSuperseded: our trigger came after the notice, compared at
// GitHub's whole-second resolution (S10): a notice in the trigger's own
// second answers that trigger.
func quotaSuperseded(es state.EngineState, q *QuotaNotice) bool {
	return !es.TriggeredAt.IsZero() && !NotBeforeOurs(q.At, es.TriggeredAt)
}

// quotaState applies T8 to an engine's review state: during its cooldown
// it is cooling (out of the gate, never triggered, never HUNG). Once the
// cooldown is over and the notice is still the engine's latest word, the
// head is NOT_TRIGGERED again so the engine is asked once more; after our
// trigger superseded the notice, the engine is awaited (TRIGGERED) until
// its new run shows.
func (d *decider) quotaState(es state.EngineState, v EngineView, rs ReviewState) (ReviewState, bool) {
	if d.obs.Now.Before(es.QuotaUntil) && !reviewedSinceQuota(v, d.head) {
		return rs, true
	}
	if v.Quota == nil || rs != Done {
		return rs, false
	}
	if quotaSuperseded(es, v.Quota) {
		return Triggered, false
	}
	return NotTriggered, false
}

// reviewedSinceQuota: the engine proved a review of the head (DONE with
// readable material, a recognised finished review of the head (S8), no
// quota notice in force), so it ran again and its cooldown is over early.
// A placeholder or an ack is no such proof.
func reviewedSinceQuota(v EngineView, head string) bool {
	return v.Signal == SignalDone && v.Material == MaterialOK && v.Quota == nil && Proven(v, head)
}

// quotaNote is what the status comment says of an engine in cooldown.
func quotaNote(es state.EngineState) string {
	return fmt.Sprintf("quota: %s (cooling down until %s; not triggered meanwhile, T8)", es.QuotaNote, es.QuotaUntil.UTC().Format(time.RFC3339))
}

// cooldownEnd is the earliest end of a quota cooldown among the engines,
// zero when none is cooling (T8).
func (d *decider) cooldownEnd() (time.Time, []*eval) {
	var end time.Time
	var cooling []*eval
	for _, e := range d.ev {
		if !e.cooling {
			continue
		}
		cooling = append(cooling, e)
		if u := e.es.QuotaUntil; end.IsZero() || u.Before(end) {
			end = u
		}
	}
	return end, cooling
}

// tree is the decision tree W1, in its exact order.
func (d *decider) tree(progress bool) {
	s, cfg := &d.s, d.cfg
	// (a) B1, B2.
	if s.Commits >= cfg.MaxCommits {
		d.handBack(EndBound, fmt.Sprintf("B1: %d fix commits reached the bound of %d", s.Commits, cfg.MaxCommits))
		return
	}
	if s.ActiveSeconds >= int64(cfg.MaxActiveMinutes)*60 {
		d.handBack(EndBound, fmt.Sprintf("B2: %d active minutes reached the bound of %d", s.ActiveSeconds/60, cfg.MaxActiveMinutes))
		return
	}
	// CV1, CV2: findings raised on the loop's own fix; a fixed defect
	// come back on the fix's lines stops the fixing before W2 would.
	var back *state.Induced
	var of state.FixedRef
	if len(s.FixCommits) > 0 { // CV1 reads the findings only after a fix (C1)
		back, of = d.markInduced(d.freshFindings())
	}
	if back != nil && cfg.DivergenceStop {
		d.handBack(EndDiverging, fmt.Sprintf("CV2: %s is the same defect as %s (%s), back on the lines its fix %s changed: %s",
			back.FindingID, of.ID, oneLine(of.Title), short(back.Commit), chain(*back)))
		return
	}
	// (b) W2 no-progress.
	if why := d.noProgress(); why != "" {
		d.handBack(EndNoProgress, why)
		return
	}
	// (c) NOT_TRIGGERED → trigger-only cycle (T1, T2).
	var toTrigger []*eval
	for _, e := range d.ev {
		if e.rs == NotTriggered && !e.out {
			toTrigger = append(toTrigger, e)
		}
	}
	if len(toTrigger) > 0 {
		if cfg.CopilotOnly {
			// W4: the first cycle with no prior review waits without
			// pushing or retriggering.
			first := toTrigger[0]
			if !first.es.InitialWaitDone && !first.es.FirstReviewSeen && s.Iteration == 0 {
				es := s.EngineStates[first.view.Engine]
				es.InitialWaitDone = true
				es.WaitSHA, es.WaitSince = d.head, d.obs.Now
				s.EngineStates[first.view.Engine] = es
				first.note = "first cycle: waiting for the first review (W4)"
				d.plan.Action, d.plan.Wait = ActionWait, cfg.WaitInitial
				d.plan.Why = "W4: first cycle with no prior review waits without pushing or retriggering"
				return
			}
		}
		for _, e := range toTrigger {
			d.plan.Triggers = append(d.plan.Triggers, TriggerRequest{Engine: e.view.Engine, SHA: d.head})
		}
		d.plan.Action, d.plan.Wait = ActionTrigger, cfg.PollInterval
		d.plan.Why = "T1/T2: asking " + names(toTrigger) + " to review the head; a cycle that triggers does nothing else"
		return
	}
	// (d) TRIGGERED or RUNNING → wait; escape hatches (T4); B3. S11 first:
	// an engine whose completion signal is in without proof is not waited
	// on.
	d.unprovenAtOnce()
	b3 := false
	if waiting := d.waiting(); len(waiting) > 0 {
		if cfg.CopilotOnly {
			for _, e := range waiting {
				if since := s.EngineStates[e.view.Engine].WaitSince; !since.IsZero() && d.obs.Now.Sub(since) >= cfg.PollTimeout {
					d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head,
						Reason: "poll-timeout", Detail: "no review within " + cfg.PollTimeout.String()})
					e.out, e.verdict, e.note = true, VerdictHung, "no review within poll-timeout (W4)"
					if e.unproven {
						e.verdict, e.note = VerdictUnproven, UnprovenNote(e.view, d.head)+"; no finished review within poll-timeout (W4)"
					}
					d.handBack(EndTimeout, fmt.Sprintf("W4: no review from %s within poll-timeout %s", e.view.Engine, cfg.PollTimeout))
					return
				}
			}
		} else {
			for _, e := range waiting {
				lim := time.Duration(cfg.StallFactor) * cfg.Latency(e.view.Engine)
				if unseen(*s, e.view.Engine) {
					// IN2: an engine never seen is not given T4's
					// patience: one normal latency, then "not installed?".
					lim = cfg.Latency(e.view.Engine)
					if since := s.EngineStates[e.view.Engine].WaitSince; !since.IsZero() && d.obs.Now.Sub(since) > lim {
						d.mark(e, state.MarkHung, unseenNote(e.view.Engine, lim))
						d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head, Reason: "not-installed"})
					}
					continue
				}
				if since := s.EngineStates[e.view.Engine].WaitSince; !since.IsZero() && d.obs.Now.Sub(since) > lim {
					if e.unproven {
						d.mark(e, state.MarkUnproven, UnprovenNote(e.view, d.head)+fmt.Sprintf("; still none past %d× its normal latency (%s) (T4)", cfg.StallFactor, lim))
						d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head, Reason: "unproven"})
						continue
					}
					d.mark(e, state.MarkHung, fmt.Sprintf("stalled past %d× its normal latency (%s) (T4)", cfg.StallFactor, lim))
					d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head, Reason: "stalled"})
				}
			}
		}
		if waiting = d.waiting(); len(waiting) > 0 {
			if since := d.idleSince(); d.obs.Now.Sub(since) < cfg.MaxIdle {
				d.plan.Action, d.plan.Wait = ActionWait, cfg.PollInterval
				d.plan.Why = "W1(d): waiting for " + names(waiting) + " to finish reviewing the head (T4: no fix while any engine is TRIGGERED or RUNNING)"
				return
			}
			b3 = true
			for _, e := range waiting {
				if e.unproven {
					d.mark(e, state.MarkUnproven, UnprovenNote(e.view, d.head)+fmt.Sprintf("; still none while idle since %s (B3)", stamp(d.idleSince())))
					d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head, Reason: "unproven"})
					continue
				}
				d.mark(e, state.MarkHung, fmt.Sprintf("no review while idle since %s (B3)", stamp(d.idleSince())))
				d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head, Reason: "idle-polls"})
			}
		}
	}
	// (e) prose engines: the judge verdict stands in for the finding count
	// (applied in classify). (f) all DONE and new findings → triage and fix.
	// DD1: one defect flagged by several engines is one finding. The
	// engines' findings are read in place and copied once, by DD1 (C1).
	fresh := d.dedupFresh()
	// CV3, CV5, CV6: what the loop never fixes is listed for a human.
	fresh = d.scopeGuard(fresh)
	if why := d.divergingWhy(); why != "" && cfg.DivergenceStop && len(fresh) > 0 {
		d.plan.Triage = fresh
		d.handBack(EndDiverging, why)
		return
	}
	// HY1: never edit what a person is working on.
	if d.holdForHumans(&fresh) {
		return
	}
	// CV7: what the loop cannot read it does not guess.
	if d.pushesUnread != "" && len(fresh) > 0 {
		if since := d.idleSince(); d.obs.Now.Sub(since) >= cfg.MaxIdle {
			d.plan.Triage = fresh
			d.handBack(EndBound, fmt.Sprintf("CV7: the commits pushed since the last look still could not be read (%s) while idle since %s (B3); nothing was fixed on a guess",
				d.pushesUnread, stamp(since)))
			return
		}
		d.plan.Action, d.plan.Wait = ActionWait, cfg.PollInterval
		d.plan.Why = "CV7: the commits pushed since the last look could not be read (" + d.pushesUnread +
			"); review-loop cannot tell whether they revert its fix or are an engine's own fix, so it fixes nothing this cycle and reads them again on the next wake"
		return
	}
	// CV5: never race an engine's own fixer at work on the head.
	if who := d.racing(); who != "" && len(fresh) > 0 {
		d.plan.Action, d.plan.Wait = ActionWait, cfg.PollInterval
		d.plan.Why = "CV5: " + who + " is at work on the head; review-loop does not race it and fixes nothing meanwhile"
		return
	}
	if a := s.AutofixOff; a != nil && len(fresh) > 0 {
		d.plan.Triage = fresh
		d.handBack(EndNoFixes, fmt.Sprintf("CV4: auto-fix is off for this PR since %s (%s); `@review-loop resume` turns it back on",
			a.At.UTC().Format(time.RFC3339), a.Reason))
		return
	}
	if len(fresh) > 0 {
		switch {
		case cfg.CopilotOnly && s.Iteration >= cfg.MaxIterations:
			d.plan.Triage = fresh
			d.handBack(EndMaxIterations, fmt.Sprintf("W4: %d iterations reached max-iterations", s.Iteration))
		case d.obs.IsFork:
			d.plan.Triage = fresh
			d.handBack(EndNoFixes, "fork PR: report-only, no fixes are made")
		default:
			s.Iteration++
			if d.proseRound {
				s.ProseRounds++
			}
			for _, e := range d.ev {
				if len(e.fresh) > 0 && !e.out {
					es := s.EngineStates[e.view.Engine]
					es.Cycles++
					s.EngineStates[e.view.Engine] = es
				}
			}
			d.event(state.Event{Name: state.EventIterStart, SHA: d.head, Detail: strconv.Itoa(len(fresh)) + " finding(s) to triage"})
			d.plan.Action, d.plan.Triage = ActionFix, fresh
			d.plan.Why = fmt.Sprintf("W1(f): every engine is DONE and %d new finding(s) go to triage", len(fresh))
		}
		return
	}
	// (g) terminal — unless an engine is in its quota cooldown: then the
	// next wake is planned after it (T8), not counted as an idle poll.
	if end, cooling := d.cooldownEnd(); !b3 && !end.IsZero() {
		d.plan.Action, d.plan.WakeAt, d.plan.Wait = ActionWait, end, end.Sub(d.obs.Now)
		d.plan.Why = fmt.Sprintf("T8: waiting for the quota cooldown of %s until %s", names(cooling), end.UTC().Format(time.RFC3339))
		return
	}
	d.terminal(b3)
}

// unprovenAtOnce is rule S11: an engine DONE without a recognised
// finished review of the head is UNPROVEN at once when it has a
// completion signal of its own (that signal is in: nothing more will
// come), and once its normal latency has passed when it has none
// (Gemini's placeholder is followed by its review within it). The mark
// quotes its text and offers `accept`; the stall bound is not waited out.
func (d *decider) unprovenAtOnce() {
	for _, e := range d.ev {
		if e.out || !e.unproven {
			continue
		}
		if e.view.CompletionSignal {
			d.mark(e, state.MarkUnproven, unprovenNote(e.view, d.head, "its completion signal is in, so none will come (S11): "+acceptOffer(e.view.Engine)))
			d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head, Reason: "unproven"})
			continue
		}
		lim := d.cfg.Latency(e.view.Engine)
		if since := d.s.EngineStates[e.view.Engine].WaitSince; !since.IsZero() && d.obs.Now.Sub(since) > lim {
			d.mark(e, state.MarkUnproven, unprovenNote(e.view, d.head, fmt.Sprintf("none past its normal latency (%s), and it has no completion signal (S11): ", lim)+acceptOffer(e.view.Engine)))
			d.event(state.Event{Name: state.EventTimeout, Engine: e.view.Engine, SHA: d.head, Reason: "unproven"})
		}
	}
}

// idleSince is when the loop last made progress (B3): its start, a new
// push or a new finding (state IdleSince), or a trigger fired (an
// engine's wait starts then, after a quota cooldown or a deferral too).
// A loop that recorded none starts its idle clock now.
func (d *decider) idleSince() time.Time {
	s := &d.s
	if s.IdleSince.IsZero() && s.StartedAt.IsZero() {
		s.IdleSince = d.obs.Now
	}
	since := s.IdleSince
	if s.StartedAt.After(since) {
		since = s.StartedAt
	}
	for _, es := range s.EngineStates {
		if es.TriggeredAt.After(since) && !es.TriggeredAt.After(d.obs.Now) {
			since = es.TriggeredAt
		}
	}
	return since
}

// stamp is a time as the status comment shows it.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// terminal is W1(g): every engine DONE (or out) and nothing new. HUNG is
// only ever reached through a waiting bound (B3's idle time, or T4's
// stall of StallFactor × the engine's latency), so a HUNG engine ends the
// loop with "bound"; "error" is left for engines that errored (H5).
func (d *decider) terminal(b3 bool) {
	clean, still, hung := true, false, b3
	var hungNames, unproven, paused []string
	for _, e := range d.ev {
		if e.verdict != VerdictClean {
			clean = false
		}
		switch e.verdict {
		case VerdictStillFinding:
			still = true
		case VerdictHung:
			hung = true
			hungNames = append(hungNames, e.view.Engine)
		case VerdictUnproven:
			unproven = append(unproven, e.view.Engine+" ("+e.note+")")
		case VerdictPaused:
			paused = append(paused, e.view.Engine)
		}
	}
	switch {
	case len(d.ev) == 0:
		d.handBack(EndError, "no engine selected")
	case !slices.ContainsFunc(d.ev, func(e *eval) bool { return !e.tooLarge }):
		d.handBack(EndTooLarge, "CV6: skipped: too large — the diff is over every selected engine's own limit; no review will come")
	case clean && d.cfg.CopilotOnly:
		d.handBack(EndNoComments, "W4: the latest review has no comments")
	case clean:
		d.handBack(EndClean, "W1(g): every engine is DONE with zero active findings (S3)")
	case len(paused) > 0:
		d.handBack(EndError, "W1(g): "+strings.Join(paused, ", ")+" PAUSED its reviews and cannot be asked for one without a trigger token (ST6); give review-loop a trigger token, or ask it yourself")
	case len(unproven) > 0:
		// S8: an engine whose latest text is not a finished review of the
		// head ends the loop at the waiting bound, named with its text.
		d.handBack(EndBound, "W1(g): no proof of a finished review of the head (S8, S11): "+strings.Join(unproven, "; "))
	case b3:
		d.handBack(EndBound, fmt.Sprintf("B3: idle since %s, %s without progress", stamp(d.idleSince()), d.obs.Now.Sub(d.idleSince()).Round(time.Minute)))
	case hung:
		d.handBack(EndBound, fmt.Sprintf("W1(g): %s HUNG at a waiting bound (T4 stall or B3 idle time); the others went on",
			strings.Join(hungNames, ", ")))
	case still:
		d.handBack(EndNoFixes, "W1(g): every engine is DONE, nothing new to fix; residual findings remain")
	default:
		d.handBack(EndError, "W1(g): no engine finished cleanly (ERRORED)")
	}
}

func (d *decider) waiting() []*eval {
	var w []*eval
	for _, e := range d.ev {
		if !e.out && (e.rs == Triggered || e.rs == Running || e.unproven) {
			w = append(w, e)
		}
	}
	return w
}

func (d *decider) mark(e *eval, mark, note string) {
	es := d.s.EngineStates[e.view.Engine]
	es.Mark, es.MarkSHA, es.MarkNote = mark, d.head, note
	d.s.EngineStates[e.view.Engine] = es
	e.es = es
	e.out, e.note = true, note
	e.verdict = markVerdict(mark)
	e.unproven = false
}

// noProgress is rule W2: a new finding whose key (the engine's stable key,
// else its category) was already the subject of an attempted fix in
// NoProgressRepeats-1 earlier cycles, for the same engine. Counts migrated
// from version 0 state under "*" count toward every engine.
func (d *decider) noProgress() string {
	for _, e := range d.ev {
		for _, f := range e.fresh {
			k := NoProgressKey(*f)
			if k == "" || d.cooled(e, *f) {
				// CV3: a finding past its rounds is listed, not fixed:
				// no fix of it is attempted, so it shows no lack of progress.
				continue
			}
			n := d.s.NoProgress[e.view.Engine][k] + d.s.NoProgress[state.LegacyEngine][k]
			if n+1 >= d.cfg.NoProgressRepeats && n > 0 {
				return fmt.Sprintf("W2: %s flagged %q again after a fix of it was attempted in %d cycle(s)", e.view.Engine, k, n)
			}
		}
	}
	return ""
}

// NoProgressKey is the key W2 counts a finding under: the engine's stable
// finding key when it has one, else its category.
func NoProgressKey(f Finding) string {
	if f.Key != "" {
		return f.Key
	}
	return f.Category
}

func (d *decider) handBack(r EndReason, why string) {
	d.s.Status = state.StatusDone
	d.s.EndReason = string(r)
	d.plan.Action, d.plan.EndReason, d.plan.Why = ActionHandBack, r, why
	d.event(state.Event{Name: state.EventTerminate, SHA: d.head, Reason: string(r), Detail: why})
	// H1: an engine still pending at hand-back gave no verdict on the head.
	// HUNG is reached only through a waiting bound (T4, B3, W4), which marks
	// the engine before handing back. One the loop stopped waiting for for
	// another reason (B1, B2, W2, a closed PR) did not hang: it is not clean
	// and its review is still outstanding, so it is STILL_FINDING.
	for _, e := range d.ev {
		if e.verdict == "" && e.unproven {
			e.verdict = VerdictUnproven
			if e.note == "" {
				e.note = UnprovenNote(e.view, d.head)
			}
			continue
		}
		if e.verdict == "" {
			e.verdict = VerdictStillFinding
			if e.note == "" {
				e.note = fmt.Sprintf("review still %s at hand-back (%s); not awaited", e.rs, r)
			}
		}
	}
}

func (d *decider) event(ev state.Event) {
	ev.Time = d.obs.Now
	ev.Iteration = d.s.Iteration
	d.s.Events = append(d.s.Events, ev)
	d.plan.Events = append(d.plan.Events, ev)
}

// report fills the per-engine lines of the plan (S4, H1).
func (d *decider) report() {
	for _, e := range d.ev {
		r := EngineReport{Engine: e.view.Engine, State: e.rs, Verdict: e.verdict, Judge: e.judge,
			LowConfidence: e.view.LowConfidence, Note: e.note, Stated: e.view.Stated, Counted: len(e.active)}
		switch {
		case e.cooling:
			r.QuotaUntil = e.es.QuotaUntil
		case e.verdict == VerdictErrored && e.view.Material == MaterialQuota && e.view.Quota != nil:
			r.QuotaUntil = QuotaUntil(*e.view.Quota)
		}
		r.Active = make([]int64, 0, len(e.active))
		for _, f := range e.active {
			r.Active = append(r.Active, f.CommentID)
		}
		r.BelowFloor = make([]int64, 0, len(e.below))
		for _, f := range e.below {
			r.BelowFloor = append(r.BelowFloor, f.CommentID)
		}
		d.plan.Engines = append(d.plan.Engines, r)
	}
	order := func(a, b Finding) int {
		if c := cmp.Compare(a.Engine, b.Engine); c != 0 {
			return c
		}
		if c := cmp.Compare(a.CommentID, b.CommentID); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
	if !slices.IsSortedFunc(d.plan.Triage, order) {
		slices.SortStableFunc(d.plan.Triage, order)
	}
}

func sortedViews(vs []EngineView) []EngineView {
	out := slices.Clone(vs)
	slices.SortStableFunc(out, func(a, b EngineView) int { return cmp.Compare(a.Engine, b.Engine) })
	return out
}

func names(es []*eval) string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += ", "
		}
		s += e.view.Engine
	}
	return s
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// approvedIDs is the set of finding ids a maintainer approved (TR2).
func approvedIDs(s state.State) map[string]bool {
	approved := make(map[string]bool, len(s.Approvals))
	for _, a := range s.Approvals {
		approved[a.FindingID] = true
	}
	return approved
}
