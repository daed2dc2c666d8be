// Package evidence tells which review engines a repository shows (rule
// IN2): an engine's review, comment or check run on a pull request, its
// config file or its workflow on the default branch. The cycle uses it to
// pick the default engines, doctor to report them.
package evidence

import (
	"fmt"
	"slices"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file reads the evidence from what was observed; it makes no
// request. Each piece of evidence is a phrase saying what was seen.

// engineConfigFiles names, per engine, the config files and folders of
// github.EngineConfigPaths that show it is set up on the repository.
var engineConfigFiles = map[string][]string{
	"coderabbit": {".coderabbit.yaml", ".coderabbit.yml"},
	"gemini":     {".gemini"},
}

// ConfigFiles are the config files and folders on the default branch
// that put engine in the default engine set (IN2); nil when none does.
func ConfigFiles(engine string) []string {
	return slices.Clone(engineConfigFiles[engine])
}

// answered: the engine's own adapter finds a review, a comment, a thread
// or a check run of it in obs.
func answered(e engines.Engine, obs *github.Observation, env engines.Env) bool {
	v := e.Observe(obs, env)
	return len(v.Reviews) > 0 || v.LatestReviewID != 0 || v.Signal != loop.SignalNone || len(v.Findings) > 0 || v.Quota != nil || len(v.Verdicts) > 0
}

// Local is the evidence that costs no request: the engine on the
// PR (obs, nil for none), its config file, its workflow (Claude).
func Local(reg *engines.Registry, obs *github.Observation, configFiles []string, env engines.Env) map[string]string {
	ev := map[string]string{}
	for _, n := range reg.Names() {
		e, _ := reg.Lookup(n)
		switch {
		case obs != nil && answered(e, obs, env):
			ev[n] = fmt.Sprintf("seen on PR #%d", obs.Number)
		case slices.ContainsFunc(engineConfigFiles[n], func(p string) bool { return slices.Contains(configFiles, p) }):
			ev[n] = "config file on the default branch"
		case n == "claude" && env.WorkflowFiles != nil:
			// Claude's install is its workflow file (or its check run).
			if in, ok := e.(engines.Installer); ok {
				if ok, _ := in.Installed(obs, env); ok {
					ev[n] = "workflow on the default branch"
				}
			}
		}
	}
	return ev
}

// Missing are the engines that matter (the named ones, or every
// engine when none is named) still without evidence.
func Missing(known, named []string, ev map[string]string) []string {
	var missing []string
	for _, n := range known {
		if ev[n] == "" && (len(named) == 0 || slices.Contains(named, n)) {
			missing = append(missing, n)
		}
	}
	return missing
}

// Recent adds, for each missing engine, the first recent PR (other
// than skip) its adapter finds it on.
func Recent(reg *engines.Registry, ev map[string]string, missing []string, recent []*github.Observation, skip int, env engines.Env) {
	for _, n := range missing {
		e, _ := reg.Lookup(n)
		for _, o := range recent {
			if o.Number != skip && answered(e, o, env) {
				ev[n] = fmt.Sprintf("seen on PR #%d", o.Number)
				break
			}
		}
	}
}
