package action

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file reads which review engines a repository shows (IN2): its
// workflows, engine config files and recent pull requests.

// engineConfigFiles names, per engine, the config files and folders of
// github.EngineConfigPaths that show it is set up on the repository.
var engineConfigFiles = map[string][]string{
	"coderabbit": {".coderabbit.yaml", ".coderabbit.yml"},
	"gemini":     {".gemini"},
}

// answered: the engine's own adapter finds a review, a comment, a thread
// or a check run of it in obs.
func answered(e engines.Engine, obs *github.Observation, env engines.Env) bool {
	v := e.Observe(obs, env)
	return len(v.Reviews) > 0 || v.LatestReviewID != 0 || v.Signal != loop.SignalNone || len(v.Findings) > 0 || v.Quota != nil || len(v.Verdicts) > 0
}

// engineEvidence is IN2's evidence that each known engine is installed on
// the repository, in the order of cost: this PR (its observation), the
// engine's workflow or config file on the default branch (in the same
// observation), and, only for engines still without evidence among those
// that matter (the named ones, or every engine with none named), the
// repository's recent pull requests: one GraphQL request. The value says
// what was seen; an engine with no evidence is absent.
func (c *prCycle) engineEvidence(ctx context.Context, named []string) map[string]string {
	ev := localEvidence(c.registry, c.obs, c.obs.EngineConfigFiles, c.env)
	missing := missingEvidence(c.registry.Names(), named, ev)
	if len(missing) == 0 {
		return ev
	}
	recent, err := c.gh.RecentActivity(ctx, c.owner, c.repo)
	if err != nil {
		c.Log.Warn("reading the recent pull requests for engine evidence (IN2)", "err", err)
		return ev
	}
	recentEvidence(c.registry, ev, missing, recent, c.number, c.env)
	return ev
}

// localEvidence is the evidence that costs no request: the engine on the
// PR (obs, nil for none), its config file, its workflow (Claude).
func localEvidence(reg *engines.Registry, obs *github.Observation, configFiles []string, env engines.Env) map[string]string {
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

// missingEvidence are the engines that matter (the named ones, or every
// engine when none is named) still without evidence.
func missingEvidence(known, named []string, ev map[string]string) []string {
	var missing []string
	for _, n := range known {
		if ev[n] == "" && (len(named) == 0 || slices.Contains(named, n)) {
			missing = append(missing, n)
		}
	}
	return missing
}

// recentEvidence adds, for each missing engine, the first recent PR (other
// than skip) its adapter finds it on.
func recentEvidence(reg *engines.Registry, ev map[string]string, missing []string, recent []*github.Observation, skip int, env engines.Env) {
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

// evidenceNotice names the engines left out of the default set for want
// of evidence, and how to add one.
func evidenceNotice(known []string, installed map[string]bool) string {
	var out []string
	for _, n := range known {
		if !installed[n] {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return fmt.Sprintf("no sign of %s on this repository (no review on this or a recent PR, no workflow or config file): left out; name an engine in `engines` to ask it anyway", strings.Join(out, ", "))
}
