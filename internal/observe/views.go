package observe

import (
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file gives the engines what they read of a PR: their environment
// (engines.Env) and, through their adapters, their views of the
// observation (loop.EngineView).

// EngineEnv is what adapters may know besides the observation: the
// default branch's workflow files come with the observation itself
// (Claude reads its install and its traps there), and each engine's last
// trigger as st records it, for adapters that must find the run a trigger
// started.
func EngineEnv(obs *github.Observation, st state.State, hasTriggerToken bool, now time.Time) engines.Env {
	env := engines.Env{HasTriggerToken: hasTriggerToken, Now: now,
		WorkflowFiles: make([]engines.WorkflowFile, 0, len(obs.WorkflowFiles)), Triggers: engineTriggers(st)}
	for _, f := range obs.WorkflowFiles {
		env.WorkflowFiles = append(env.WorkflowFiles, engines.WorkflowFile{Path: f.Path, Content: f.Text})
	}
	return env
}

// engineTriggers is each engine's last trigger as the state records it.
func engineTriggers(st state.State) map[string]engines.Trigger {
	out := make(map[string]engines.Trigger, len(st.EngineStates))
	for name, es := range st.EngineStates {
		if es.TriggeredSHA != "" {
			out[name] = engines.Trigger{SHA: es.TriggeredSHA, At: es.TriggeredAt, CommentID: es.SignalID}
		}
	}
	return out
}

// Views appends to dst each selected engine's view of obs, in order,
// with the phrases the repository adds to the engine's words read on its
// own posts (S12), and the severity words it adds read on its findings
// (EQ3).
func Views(dst []loop.EngineView, selected []engines.Engine, obs *github.Observation, env engines.Env) []loop.EngineView {
	for _, e := range selected {
		v := e.Observe(obs, env)
		if ps := env.Texts[v.Engine]; len(ps) > 0 {
			if a, ok := e.(engines.Authored); ok {
				engines.ApplyTexts(&v, obs, a.EngineAuthor(), ps)
			}
		}
		engines.ApplySeverities(&v, obs, env.Severities[v.Engine])
		dst = append(dst, v)
	}
	return dst
}

// DropGate removes review-loop's own check run (the merge gate) from obs
// before the engines read it: it is a check run of app github-actions like
// an engine's workflow job, and must never be read as an engine's signal
// (MG1).
func DropGate(obs *github.Observation) {
	if obs == nil {
		return
	}
	obs.CheckRuns = slices.DeleteFunc(obs.CheckRuns, func(cr github.CheckRun) bool { return strings.EqualFold(cr.Name, loop.GateName) })
}

// ForLoop is what the core reads of one cycle (loop.Observation): the PR
// as observed, the engines' views, the judge's verdicts (untrusted when
// the prepare job gave them, TB10), the diff's size in characters (CV6),
// the pushes since the last look, the people at work on it (HY1), the
// checkout's generated files and the budgets left (B7).
func ForLoop(gh *github.Client, obs *github.Observation, w event.Wake, number int, views []loop.EngineView, judges map[string]loop.JudgeResult,
	untrusted bool, chars int, pushes *loop.PushHistory, workspace string, now time.Time) loop.Observation {
	pusher := HeadPusher(w, obs)
	o := loop.Observation{
		Now: now, PR: number, HeadSHA: obs.HeadSHA, PRState: obs.State,
		IsDraft: obs.IsDraft, IsFork: obs.IsFork, Engines: views, Judge: judges, JudgeUntrusted: untrusted,
		Commits: obs.Commits, ChangedLines: obs.Additions + obs.Deletions, ChangedChars: chars,
		HeadPusher: pusher, HeadPusherBot: IsBotLogin(pusher), Humans: Humans(obs),
		Pushes: pushes, Generated: Generated(workspace), FixersRunning: FixersRunning(obs.CheckRuns),
		Remembered: Remembered(obs),
	}
	o.Budget, o.GraphQLBudget = Budgets(gh)
	return o
}
