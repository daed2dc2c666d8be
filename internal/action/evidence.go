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
	ev := map[string]string{}
	for _, n := range c.registry.Names() {
		e, _ := c.registry.Lookup(n)
		switch {
		case answered(e, c.obs, c.env):
			ev[n] = fmt.Sprintf("seen on PR #%d", c.number)
		case c.obs != nil && slices.ContainsFunc(engineConfigFiles[n], func(p string) bool { return slices.Contains(c.obs.EngineConfigFiles, p) }):
			ev[n] = "config file on the default branch"
		default:
			if in, ok := e.(engines.Installer); ok && n == "claude" {
				// Claude's install is its workflow file (or its check run).
				if ok, _ := in.Installed(c.obs, c.env); ok {
					ev[n] = "workflow on the default branch"
				}
			}
		}
	}
	var missing []string
	for _, n := range c.registry.Names() {
		if ev[n] == "" && (len(named) == 0 || slices.Contains(named, n)) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return ev
	}
	recent, err := c.gh.RecentActivity(ctx, c.owner, c.repo)
	if err != nil {
		c.Log.Warn("reading the recent pull requests for engine evidence (IN2)", "err", err)
		return ev
	}
	for _, n := range missing {
		e, _ := c.registry.Lookup(n)
		for _, o := range recent {
			if o.Number != c.number && answered(e, o, c.env) {
				ev[n] = fmt.Sprintf("seen on PR #%d", o.Number)
				break
			}
		}
	}
	return ev
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
