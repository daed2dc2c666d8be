package report

import (
	"time"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// t0 is the fixed clock of every fixture, so golden files never drift.
var t0 = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

const (
	head    = "9f2c1e0b7a6d5c4b3a29180716253443526170ab"
	pushSHA = "4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a"
)

func defaultBounds() Bounds {
	return Bounds{MaxCommits: 20, MaxActiveMinutes: 240, MaxIdleMinutes: 45, MaxIterations: 5}
}

func baseInput() Input {
	return Input{
		ServerURL: "https://github.com", Repo: "o/r", Number: 7,
		Bounds: defaultBounds(), LastCommit: head, RegressionCommand: "make test-all",
	}
}

func events() []state.Event {
	return []state.Event{
		{Time: at(0), Name: state.EventRunStart, Reason: "start"},
		{Time: at(0), Name: state.EventRetrigger, Engine: "bugbot", SHA: head, Detail: "signal 901"},
		{Time: at(1), Name: state.EventRetrigger, Engine: "copilot", SHA: head},
		{Time: at(6), Name: state.EventReviewDetected, Engine: "bugbot", SHA: head, Detail: "review 3001"},
		{Time: at(7), Name: state.EventIterStart, Iteration: 1},
		{Time: at(9), Name: state.EventIterEnd, Iteration: 1, Detail: "fixed 2 of 3"},
	}
}

// midLoop is cycle 3 of a three-engine loop, waiting for copilot.
func midLoop() Input {
	in := baseInput()
	in.State = state.State{
		Version: state.Version, Status: state.StatusActive, StartedAt: t0,
		Iteration: 2, Commits: 2, ActiveSeconds: 42*60 + 13, IdleSince: t0.Add(-9 * time.Minute),
		Engines:         []string{"bugbot", "claude", "copilot"},
		LastPushSHA:     head,
		LastObservedSHA: head,
		EngineStates: map[string]state.EngineState{
			"bugbot":  {Review: state.ReviewDone, Cycles: 2, Fixed: 2},
			"claude":  {Review: state.ReviewDone, Cycles: 2, Fixed: 1, Escalated: 1},
			"copilot": {Review: state.ReviewRunning, Cycles: 1},
		},
		Triage: []state.TriageRow{
			{FindingID: "bugbot-2233029557", Engine: "bugbot", CommentID: 2233029557, Tier: 1,
				Justification: "The null check on cfg.Timeout prevents a panic on empty input.", Outcome: loop.OutcomeFixed, Cycle: 1},
			{FindingID: "bugbot-2233029601", Engine: "bugbot", CommentID: 2233029601, Tier: 2,
				Justification: "Off-by-one in the page loop | drops the last page.", Outcome: loop.OutcomeAwaitingApproval, Cycle: 2},
			{FindingID: "claude-1", Engine: "claude", Tier: 3,
				Justification: "cross-file: touches 3 files", Outcome: loop.OutcomeEscalated, Cycle: 1},
		},
		Events: events(),
		Totals: state.Totals{Fixed: 3, Escalated: 1},
	}
	in.Plan = loop.Plan{
		Action: loop.ActionWait, Why: "W1(d): waiting for copilot (RUNNING)",
		Engines: []loop.EngineReport{
			{Engine: "bugbot", State: loop.Done, Verdict: loop.VerdictStillFinding, Active: []int64{2233029601}},
			{Engine: "claude", State: loop.Done, Verdict: loop.VerdictClean, Judge: loop.JudgeNonBlocking, Active: []int64{}},
			{Engine: "copilot", State: loop.Running, Active: []int64{}, LowConfidence: 2},
		},
	}
	in.Titles = map[int64]string{2233029601: "Off-by-one in page loop"}
	return in
}

// cleanHandBack is a loop that ended clean after two fix commits.
func cleanHandBack() Input {
	in := midLoop()
	in.State.Status, in.State.EndReason = state.StatusDone, string(loop.EndClean)
	in.State.Triage[1].Outcome = loop.OutcomeFixed
	in.State.Approvals = []state.Approval{{FindingID: "bugbot-2233029601", By: "maint", At: at(20)}}
	in.State.Events = append(in.State.Events, state.Event{Time: at(30), Name: state.EventTerminate, Reason: "clean", SHA: head})
	in.Plan = loop.Plan{
		Action: loop.ActionHandBack, EndReason: loop.EndClean, Why: "W1(g): every engine is CLEAN",
		Engines: []loop.EngineReport{
			{Engine: "bugbot", State: loop.Done, Verdict: loop.VerdictClean, Active: []int64{}},
			{Engine: "claude", State: loop.Done, Verdict: loop.VerdictClean, Judge: loop.JudgeNonBlocking, Active: []int64{}},
			{Engine: "copilot", State: loop.Done, Verdict: loop.VerdictClean, Active: []int64{}},
		},
	}
	in.State.NonBlocking = []state.Item{
		{ID: "claude-nb-1", Engine: "claude", Title: "Consider naming the retry constant", Path: "internal/x/retry.go", Line: 12},
		{ID: "claude-nb-2", Engine: "claude", Title: "Docs could mention the default"},
	}
	in.NonBlockingIssues = map[string]string{"claude-nb-2": "https://github.com/o/r/issues/42"}
	in.StaleThreads = 3
	return in
}

// asymmetricHung is a hand-back where bugbot is clean and claude HUNG.
func asymmetricHung() Input {
	in := cleanHandBack()
	in.State.EndReason = string(loop.EndBound)
	in.Plan.EndReason, in.Plan.Why = loop.EndBound, "B3: idle since 2025-03-04 09:15 UTC, 45m0s without progress"
	in.Plan.Engines = []loop.EngineReport{
		{Engine: "bugbot", State: loop.Done, Verdict: loop.VerdictClean, Active: []int64{}},
		{Engine: "claude", State: loop.Running, Verdict: loop.VerdictHung, Active: []int64{},
			Note: "stalled past 3× its normal latency (T4)"},
	}
	in.State.Engines = []string{"bugbot", "claude"}
	delete(in.State.EngineStates, "copilot")
	in.State.IdleSince = t0.Add(-45 * time.Minute)
	in.StaleThreads = 0
	in.State.NonBlocking = nil
	in.RegressionCommand = ""
	in.LargePR = true
	return in
}

// noProgress is a hand-back after the same category came back twice.
func noProgress() Input {
	in := midLoop()
	in.State.Status, in.State.EndReason = state.StatusDone, string(loop.EndNoProgress)
	in.Plan = loop.Plan{
		Action: loop.ActionHandBack, EndReason: loop.EndNoProgress,
		Why: "W2: bugbot flagged null-check twice after a fix was attempted",
		Engines: []loop.EngineReport{
			{Engine: "bugbot", State: loop.Done, Verdict: loop.VerdictStillFinding, Active: []int64{2233029601, 2233029777}},
			{Engine: "claude", State: loop.Done, Verdict: loop.VerdictClean, Judge: loop.JudgeClean, Active: []int64{}},
			{Engine: "copilot", State: loop.Done, Verdict: loop.VerdictClean, Active: []int64{}},
		},
	}
	in.Titles[2233029777] = "Nil dereference when cfg is nil"
	return in
}

// copilotMaxIterations is a Copilot-only loop that hit max-iterations.
func copilotMaxIterations() Input {
	in := baseInput()
	in.CopilotOnly = true
	in.State = state.State{
		Version: state.Version, Status: state.StatusDone, EndReason: string(loop.EndMaxIterations), StartedAt: t0,
		Iteration: 5, Commits: 4, ActiveSeconds: 3600, Engines: []string{"copilot"}, LastObservedSHA: head,
		EngineStates: map[string]state.EngineState{"copilot": {Review: state.ReviewDone, Cycles: 5, Fixed: 6}},
		Triage: []state.TriageRow{
			{FindingID: "copilot-5001", Engine: "copilot", CommentID: 5001, Tier: 1, Justification: "Unchecked error from Close.", Outcome: loop.OutcomeFixed, Cycle: 1},
			{FindingID: "copilot-5002", Engine: "copilot", CommentID: 5002, Tier: 2, Justification: "Suggests a rename.", Outcome: loop.OutcomeDisagreed, Cycle: 2},
			{FindingID: "copilot-5003", Engine: "copilot", CommentID: 5003, Tier: 1, Justification: "Line no longer exists.", Outcome: loop.OutcomeOutdated, Cycle: 3},
		},
		Totals: state.Totals{Fixed: 6, Outdated: 1, Disagreed: 1},
		Events: []state.Event{{Time: at(0), Name: state.EventRunStart}, {Time: at(50), Name: state.EventTerminate, Reason: "max-iterations"}},
	}
	in.Plan = loop.Plan{
		Action: loop.ActionHandBack, EndReason: loop.EndMaxIterations, Why: "W4: 5 iterations reached max-iterations",
		Engines: []loop.EngineReport{{Engine: "copilot", State: loop.Done, Verdict: loop.VerdictStillFinding, Active: []int64{5009}}},
	}
	in.Titles = map[int64]string{5009: "Prefer errors.Is over =="}
	return in
}

// statusOnly is what the `status` command sees: the saved state, no plan.
func statusOnly() Input {
	in := midLoop()
	in.Plan = loop.Plan{}
	es := in.State.EngineStates["copilot"]
	es.Mark, es.MarkSHA, es.MarkNote = state.MarkHung, head, "stalled past 3× its normal latency (T4)"
	in.State.EngineStates["copilot"] = es
	in.Notices = []string{"trigger unavailable: needs trigger-token"}
	return in
}
