package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/evidence"
)

// This file reads which review engines a repository shows (IN2) for one
// cycle, with internal/evidence: this PR, the default branch's workflows
// and engine config files, and the recent pull requests.

// engineEvidence is IN2's evidence that each known engine is installed on
// the repository, in the order of cost: this PR (its observation), the
// engine's workflow or config file on the default branch (in the same
// observation), and, only for engines still without evidence among those
// that matter (the named ones, or every engine with none named), the
// repository's recent pull requests: one GraphQL request. The value says
// what was seen; an engine with no evidence is absent.
func (c *prCycle) engineEvidence(ctx context.Context, named []string) map[string]string {
	ev := evidence.Local(c.registry, c.obs, c.obs.EngineConfigFiles, c.env)
	missing := evidence.Missing(c.registry.Names(), named, ev)
	if len(missing) == 0 {
		return ev
	}
	recent, err := c.gh.RecentActivity(ctx, c.owner, c.repo)
	if err != nil {
		c.Log.Warn("reading the recent pull requests for engine evidence (IN2)", "err", err)
		return ev
	}
	evidence.Recent(c.registry, ev, missing, recent, c.number, c.env)
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
