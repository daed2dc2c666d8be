package loop

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// RetriggerAfterPush is rule T7: after a fix push, the engines to trigger
// for pushedSHA, alphabetically, each once. It leaves out an engine whose
// check run is RUNNING, a prose engine withheld until its first review
// (its push-triggered run carries it), an engine we cannot trigger, one
// ERRORED for the loop, and one already triggered for pushedSHA (a
// resumed run must not retrigger twice).
//
// It knows no clock, so it cannot see quota cooldowns: the orchestrator
// calls RetriggerAfterPushAt.
func RetriggerAfterPush(st state.State, views []EngineView, pushedSHA string, cfg Config) []TriggerRequest {
	return RetriggerAfterPushAt(st, views, pushedSHA, cfg, time.Time{})
}

// RetriggerAfterPushAt is RetriggerAfterPush at now: an engine in its quota
// cooldown is not retriggered (T8); the loop asks it once the cooldown ends.
func RetriggerAfterPushAt(st state.State, views []EngineView, pushedSHA string, cfg Config, now time.Time) []TriggerRequest {
	var out []TriggerRequest
	for _, v := range sortedViews(views) {
		es := st.EngineStates[v.Engine]
		switch {
		case !v.Installed, !v.TriggerAvailable, v.Signal == SignalRunning:
		case notInstalledOut(es) && unseen(st, v.Engine):
		case !now.IsZero() && now.Before(es.QuotaUntil):
		case v.WithholdUntilFirstReview && !es.FirstReviewSeen && len(v.Reviews) == 0:
		case es.ConsecutiveErrors >= cfg.MaxConsecutiveErrors:
		case es.TriggeredSHA == pushedSHA:
		default:
			out = append(out, TriggerRequest{Engine: v.Engine, SHA: pushedSHA})
		}
	}
	return out
}

// ShouldSkipDuplicateTrigger is rule T5: the trigger req is skipped when
// the PR's last comment is our own identical trigger posted within window.
// Logins compare without case and without the REST "[bot]" suffix. A
// comment the state records as this engine's trigger for another head SHA
// is no duplicate: after a fix push the engine is due a trigger for the
// new head (T3, T7), however recent the last one was.
func ShouldSkipDuplicateTrigger(st state.State, req TriggerRequest, last Comment, ourLogin, body string, now time.Time, window time.Duration) bool {
	norm := func(l string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(l)), "[bot]") }
	if last.Author == "" || norm(last.Author) != norm(ourLogin) {
		return false
	}
	if strings.TrimSpace(last.Body) != strings.TrimSpace(body) {
		return false
	}
	if es, ok := st.EngineStates[req.Engine]; ok && last.ID != 0 && last.ID == es.SignalID && es.TriggeredSHA != req.SHA {
		return false
	}
	return now.Sub(last.CreatedAt) < window
}

// SkipTrigger is T5 for a trigger about to be posted with body: when the
// PR's last comment is our identical recent trigger for req
// (ShouldSkipDuplicateTrigger), the trigger is skipped and that comment
// stands for it. A trigger posted with the user token (asUser), whose
// login the loop does not know, or when ourLogin is unknown, compares
// the body of the last comment whoever wrote it. An engine triggered by
// no comment (empty body) has nothing to compare.
func SkipTrigger(st state.State, req TriggerRequest, last Comment, ourLogin string, asUser bool, body string, now time.Time, window time.Duration) (id int64, skip bool) {
	if body == "" || last.Author == "" {
		return 0, false
	}
	author := ourLogin
	if asUser || author == "" {
		author = last.Author
	}
	if !ShouldSkipDuplicateTrigger(st, req, last, author, body, now, window) {
		return 0, false
	}
	return last.ID, true
}

// RecordTriggers folds the triggers the orchestrator attempted into the
// state (T1, T5, T6): each engine is then TRIGGERED for its SHA, so it is
// never triggered twice for one SHA (T3). A failed trigger counts as an
// engine error and marks the engine ERRORED for that SHA.
func RecordTriggers(st state.State, results []TriggerResult, now time.Time) state.State {
	s := st.Clone()
	for _, r := range results {
		es := *engineState(&s, r.Engine)
		if r.Quota != nil {
			// T8: the engine refused for a quota; it cools down and is
			// asked again afterwards. Not an engine error, not a trigger.
			until := QuotaUntil(*r.Quota)
			if until.After(es.QuotaUntil) {
				es.QuotaUntil, es.QuotaNote = until, oneLine(r.Quota.Text)
				scoreQuota(&s, r.Engine) // EQ1: a quota hit
			}
			s.EngineStates[r.Engine] = es
			s.Events = append(s.Events, state.Event{Time: now, Iteration: s.Iteration, Engine: r.Engine, SHA: r.SHA,
				Name: state.EventRetriggerFailed, Reason: "quota", Detail: "cooling down until " + until.UTC().Format(time.RFC3339) + ": " + es.QuotaNote})
			continue
		}
		es.TriggeredSHA, es.TriggeredAt = r.SHA, now
		es.WaitSHA, es.WaitSince = r.SHA, now
		es.Review = state.ReviewTriggered
		ev := state.Event{Time: now, Iteration: s.Iteration, Engine: r.Engine, SHA: r.SHA}
		switch {
		case r.Err != "":
			es.ConsecutiveErrors++
			es.Mark, es.MarkSHA, es.MarkNote = state.MarkErrored, r.SHA, "trigger failed: "+r.Err
			ev.Name, ev.Reason, ev.Detail = state.EventRetriggerFailed, "error", r.Err
		case r.Skipped:
			ev.Name, ev.Reason = state.EventRetriggerSkipped, "recent-duplicate"
		default:
			if r.SignalID != 0 {
				es.SignalID = r.SignalID
				ev.Detail = "signal " + strconv.FormatInt(r.SignalID, 10)
			}
			ev.Name = state.EventRetrigger
		}
		s.EngineStates[r.Engine] = es
		s.Events = append(s.Events, ev)
	}
	return s
}

// RecordPendingPush is the write-ahead of rule E5: record the commit about
// to be pushed, and save, before pushing.
func RecordPendingPush(st state.State, sha string) state.State {
	s := st.Clone()
	s.PendingPushSHA = sha
	return s
}

// RecordPush records a successful push of sha as our own (E5, B1).
func RecordPush(st state.State, sha string) state.State {
	s := st.Clone()
	if s.LastPushSHA != sha {
		s.Commits++
	}
	markPushed(&s, sha)
	s.LastPushSHA = sha
	if s.PendingPushSHA == sha {
		s.PendingPushSHA = ""
	}
	return s
}

// AddActiveWork adds a cycle's active work, waiting excluded (B2).
func AddActiveWork(st state.State, active time.Duration) state.State {
	s := st.Clone()
	if active > 0 {
		s.ActiveSeconds += int64(active / time.Second)
	}
	return s
}

// RecordFixCycle folds one fix cycle's triage table into the state: rows
// (TR5), totals, per-engine counts (H1) and the no-progress map (W2: each
// key whose fix was attempted, kept or reverted, counts once per cycle).
// With no fix kept there is no commit and the loop hands back (E3).
func RecordFixCycle(st state.State, res FixResult, now time.Time) state.State {
	s := st.Clone()
	byComment := map[int64]int{}
	byID := map[string]int{}
	for i, r := range s.Triage {
		if r.CommentID != 0 {
			byComment[r.CommentID] = i
		}
		byID[r.FindingID] = i
	}
	approved := approvedIDs(s)
	attempted := map[[2]string]bool{}
	fixed := 0
	for _, r := range res.Rows {
		r.Cycle = s.Iteration
		i, ok := byComment[r.CommentID]
		if r.CommentID == 0 || !ok {
			i, ok = byID[r.FindingID]
		}
		if ok {
			prev := s.Triage[i]
			scoreOutcome(&s, r, &prev)
			s.Triage[i] = r
		} else {
			scoreOutcome(&s, r, nil)
			s.Triage = append(s.Triage, r)
			byID[r.FindingID] = len(s.Triage) - 1
			if r.CommentID != 0 {
				byComment[r.CommentID] = len(s.Triage) - 1
			}
		}
		es := *engineState(&s, r.Engine)
		switch r.Outcome {
		case OutcomeFixed:
			fixed++
			s.Totals.Fixed++
			es.Fixed++
			if approved[r.FindingID] {
				es.Approved++
			}
		case OutcomeReverted:
			s.Totals.Reverted++
		case OutcomeEscalated:
			s.Totals.Escalated++
			es.Escalated++
		case OutcomeOutdated:
			s.Totals.Outdated++
		case OutcomeDisagreed:
			s.Totals.Disagreed++
		case OutcomeSkipped:
			es.Skipped++
		}
		s.EngineStates[r.Engine] = es
		if (r.Outcome == OutcomeFixed || r.Outcome == OutcomeReverted) && r.Key != "" {
			attempted[[2]string{r.Engine, r.Key}] = true
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(attempted), func(a, b [2]string) int {
		return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1])
	}) {
		if s.NoProgress == nil {
			s.NoProgress = map[string]map[string]int{}
		}
		if s.NoProgress[k[0]] == nil {
			s.NoProgress[k[0]] = map[string]int{}
		}
		s.NoProgress[k[0]][k[1]]++
	}
	triaged := len(res.Rows) - countOutcome(res.Rows, OutcomeDuplicate) // DD1: a merged defect counts once
	s.Events = append(s.Events, state.Event{Time: now, Name: state.EventIterEnd, Iteration: s.Iteration,
		Detail: fmt.Sprintf("fixed %d of %d", fixed, triaged)})
	if fixed == 0 {
		s.Status, s.EndReason = state.StatusDone, string(EndNoFixes)
		s.Events = append(s.Events, state.Event{Time: now, Name: state.EventTerminate, Iteration: s.Iteration,
			Reason: string(EndNoFixes), Detail: "E3: no fix applied; no commit, no push"})
	}
	return s
}

// RecordError logs a cycle error (iter-error). A fatal one ends the loop
// with the end reason "error".
func RecordError(st state.State, msg string, fatal bool, now time.Time) state.State {
	s := st.Clone()
	s.Events = append(s.Events, state.Event{Time: now, Name: state.EventIterError, Iteration: s.Iteration, Detail: msg})
	if fatal && s.Status == state.StatusActive {
		s.Status, s.EndReason = state.StatusDone, string(EndError)
		s.Events = append(s.Events, state.Event{Time: now, Name: state.EventTerminate, Iteration: s.Iteration,
			Reason: string(EndError), Detail: msg})
	}
	return s
}

// RecordInstalled caches, per known engine, whether it is installed on the
// repository (IN2); it is read once, when a loop picks its default engine
// set, and replaces any earlier reading.
func RecordInstalled(st state.State, installed map[string]bool) state.State {
	s := st.Clone()
	s.Installed = maps.Clone(installed)
	return s
}

// RecordNotice records a one-time notice (a dispatch set-up error, a
// missing thread-resolve permission) and reports whether it is new and
// should be shown now.
func RecordNotice(st state.State, key string) (state.State, bool) {
	if st.HasNotice(key) {
		return st, false
	}
	s := st.Clone()
	s.Notices = append(s.Notices, key)
	return s, true
}

// ErrUnknownCommand is returned by ApplyCommand for a verb it does not know.
var ErrUnknownCommand = errors.New("unknown command")

// ApplyCommand applies a maintainer command. start restarts a finished loop
// (H8) with fresh counters, keeping the history (event log, triage table,
// approvals); stop ends it; approve and skip record a decision on a Tier 2
// finding, and an approval reopens a loop that ended with no fixes; reset
// discards everything but the event log and notices.
func ApplyCommand(st state.State, cmd Command) (state.State, error) {
	s := st.Clone()
	ev := state.Event{Time: cmd.At, Iteration: s.Iteration, Detail: "by " + cmd.By}
	switch cmd.Kind {
	case CommandStart:
		if s.Status == state.StatusActive {
			return s, nil
		}
		s = restart(s, cmd.At)
		ev.Name, ev.Reason = state.EventRunStart, "start"
	case CommandReset:
		n := state.New()
		n.Status, n.StartedAt = state.StatusActive, cmd.At
		n.Events, n.EventsDropped, n.Notices, n.Installed = s.Events, s.EventsDropped, s.Notices, s.Installed
		s = n
		ev.Name, ev.Reason = state.EventRunStart, "reset"
	case CommandStop:
		if s.Status == state.StatusActive || s.Status == "" {
			s.Status, s.EndReason = state.StatusStopped, string(EndStopped)
		}
		ev.Name, ev.Reason = state.EventTerminate, string(EndStopped)
	case CommandResume:
		// HY1: the maintainer says the person is done; the fixing resumes.
		s.Yield, s.Paused = nil, nil
		// CV4: resume turns auto-fix back on after a revert or force-push,
		// and reopens the loop that ended for it.
		if s.AutofixOff != nil {
			s.AutofixOff = nil
			if s.Status == state.StatusDone && s.EndReason == string(EndNoFixes) {
				s.Status, s.EndReason = state.StatusActive, ""
			}
		}
		ev.Name, ev.Reason = state.EventRunStart, "resume"
	case CommandAccept:
		return accept(s, cmd)
	case CommandApprove, CommandSkip:
		if strings.TrimSpace(cmd.FindingID) == "" {
			return st, fmt.Errorf("%s: a finding id is required", cmd.Kind)
		}
		if cmd.Kind == CommandApprove {
			id, err := ResolveFindingRef(st, cmd.Known, cmd.FindingID)
			if err != nil {
				return st, err
			}
			cmd.FindingID = id
			s.Approvals = slices.DeleteFunc(s.Approvals, func(a state.Approval) bool { return a.FindingID == cmd.FindingID })
			s.Approvals = append(s.Approvals, state.Approval{FindingID: cmd.FindingID, Direction: cmd.Direction, By: cmd.By, At: cmd.At})
			if s.Status == state.StatusDone && s.EndReason == string(EndNoFixes) {
				s.Status, s.EndReason = state.StatusActive, ""
			}
		} else if !slices.Contains(s.Skips, cmd.FindingID) {
			s.Skips = append(s.Skips, cmd.FindingID)
		}
		return s, nil
	default:
		return st, fmt.Errorf("applying %q: %w (known: start, stop, approve, skip, reset, resume, accept)", cmd.Kind, ErrUnknownCommand)
	}
	s.Events = append(s.Events, ev)
	return s, nil
}

// restart begins a new loop on a finished one, keeping its history.
func restart(s state.State, at time.Time) state.State {
	n := state.New()
	n.Status, n.StartedAt = state.StatusActive, at
	n.Events, n.EventsDropped, n.Notices, n.Installed = s.Events, s.EventsDropped, s.Notices, s.Installed
	n.Triage, n.Approvals, n.Skips, n.NonBlocking = s.Triage, s.Approvals, s.Skips, s.NonBlocking
	n.LastPushSHA, n.LastObservedSHA = s.LastPushSHA, s.LastObservedSHA
	// CV4, CV5: the PR's history of fixes and what turned auto-fix off
	// outlive a loop; only resume (or reset) forgets them.
	n.FixCommits, n.AutofixOff, n.EngineFixed = s.FixCommits, s.AutofixOff, s.EngineFixed
	return n
}
