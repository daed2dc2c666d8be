// Package loop holds every rule of the review loop as pure functions over
// plain data: no I/O, no clock reads, no randomness. Time, identifiers and
// everything observed come in as arguments; the plan goes out as data.
// Engines are always handled in name order, so a decision is a function of
// its inputs alone.
//
// # One cycle, as the orchestrator runs it
//
//	st, found, err := state.Decode(statusComment)   // load (state.New() when !found)
//	obs := observe()                                 // internal/github
//	views := adapters(obs)                           // []loop.EngineView, one per selected engine
//	judges := map[string]loop.JudgeResult{}
//	for _, v := range views {
//		if loop.NeedsJudge(st, v, obs.HeadSHA) {     // J1, cached per SHA (J4)
//			judges[v.Engine] = judge(v)
//		}
//	}
//	plan, st := loop.Decide(st, loop.Observation{Now: now, HeadSHA: …, Engines: views, Judge: judges, …}, cfg)
//	save(st)                                          // every change is saved (SC1)
//	switch plan.Action {
//	case loop.ActionTrigger:                          // T2: nothing else this cycle
//		// for each plan.Triggers: skip when loop.SkipTrigger (T5), else
//		// trigger, retrying once after 30 s (T6, engines.TriggerOutcome)
//		st = loop.RecordTriggers(st, results, now)
//		st = loop.LedgerTriggers(st, results)         // CL1
//	case loop.ActionWait:                             // wait plan.Wait in-job, or re-dispatch
//	case loop.ActionFix:
//		rows := triageAndFix(plan.Triage)              // internal/triage, internal/fix
//		st = loop.RecordFixCycle(st, loop.FixResult{Rows: rows}, now)
//		if st.Status == state.StatusActive {           // a fix was kept (else E3 handed back)
//			st = loop.RecordPendingPush(st, sha); save(st) // E5 write-ahead
//			push(sha)
//			st = loop.RecordPush(st, sha)
//			reqs := loop.RetriggerAfterPush(st, freshViews, sha, cfg) // T7
//			st = loop.RecordTriggers(st, trigger(reqs), now)
//		}
//	case loop.ActionHandBack:                         // report plan.EndReason, plan.Engines
//	case loop.ActionNone:                             // finished loop (H8): nothing to do
//	}
//	st = loop.AddActiveWork(st, activeTime)           // B2: waiting excluded
//	save(st)
//
// Maintainer commands go through ApplyCommand before Decide; errors of a
// cycle through RecordError; one-time notices through RecordNotice.
//
// # What Decide does
//
// It starts a loop when the state has none and resumes an active one; a
// finished loop is restarted only by a command (H8). A PR that is not OPEN
// stops the loop. New-push detection (W3) runs first: a head that is
// neither our last push nor our pending write-ahead push (E5) nor the head
// seen last cycle is an outside push, which restarts the idle clock and puts
// every engine back to NOT_TRIGGERED; a head equal to the pending push is
// our own push even when the run that pushed died before saving. Then the
// decision tree W1, in order: (a) bounds B1, B2; (b) no-progress W2;
// (c) any engine NOT_TRIGGERED → a trigger-only cycle (in Copilot-only mode
// the first cycle with no review waits instead, W4); (d) any engine
// TRIGGERED or RUNNING → wait, with the escape hatches of T4 (stalled past
// StallFactor × its normal latency → HUNG; errored MaxConsecutiveErrors
// times in a row → ERRORED) and the idle bound B3, MaxIdle since the last
// progress (the waiting engines become HUNG and the others go on); in Copilot-only mode, no review within
// PollTimeout of the trigger ends with "timeout"; (e) prose-only engines
// are judged: CLEAN (only when the verdict set is proven, J3) or
// NON_BLOCKING count as clean (J2), BLOCKING sends the engine's findings to
// triage, and no verdict is never clean; (f) new findings → triage and fix
// (capped by MaxIterations in Copilot-only mode); (g) otherwise terminal.
//
// # End reasons of W1(g)
//
// Every engine CLEAN → "clean" ("no-comments" in Copilot-only mode);
// a waiting bound tripped — B3's idle time, or an engine HUNG by T4's
// stall bound while the others went on — → "bound"; residual findings
// (STILL_FINDING) → "no-fixes"; only ERRORED engines → "error". HUNG is
// a bound, not an error: the engine did not fail, the loop stopped
// waiting for it. An engine still reviewing when the loop hands back for
// another reason (B1, B2, W2, a closed PR) is not HUNG: no waiting bound
// tripped for it. It is STILL_FINDING, its review not awaited.
package loop
