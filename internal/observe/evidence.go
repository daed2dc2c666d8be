package observe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/evidence"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file reads which review engines a repository shows (IN2) and
// picks the loop's engines with loop.SelectEngines: evidence on this PR,
// in the default branch's workflows and engine config files, and on the
// recent pull requests (internal/evidence).

// Selection is the loop's engines for one cycle.
type Selection struct {
	// State is the state with its engines set and, at the loop's start,
	// the engines seen recorded (loop.RecordInstalled).
	State   state.State
	Engines []engines.Engine
	// Notices are for the job log.
	Notices []string
}

// SelectEngines picks the loop's engines (IN2): those saved in st, else
// the `engines` input (named), else every engine the repository shows
// evidence of. At the loop's start it records which engines were seen:
// one named but never seen is asked once (loop.unseen). Reading the
// recent pull requests may fail: that is logged to log and the evidence
// read so far stands. On an error the State reached is still returned.
func SelectEngines(ctx context.Context, gh *github.Client, log *slog.Logger, owner, repo string, number int, reg *engines.Registry, obs *github.Observation, env engines.Env, st state.State, named []string) (Selection, error) {
	sel := Selection{State: st}
	names := st.Engines
	if len(names) == 0 {
		var parsed []string
		if len(named) > 0 {
			var err error
			if parsed, err = reg.ParseNames(strings.Join(named, ",")); err != nil {
				return sel, fmt.Errorf("input engines: %w", err)
			}
		}
		var installed map[string]bool
		ev, err := engineEvidence(ctx, gh, owner, repo, number, reg, obs, env, parsed)
		if err != nil {
			log.Warn("reading the recent pull requests for engine evidence (IN2)", "err", err)
		}
		names, installed = loop.SelectEngines(reg.Names(), parsed, ev)
		if n := evidenceNotice(reg.Names(), installed); n != "" && len(parsed) == 0 {
			sel.Notices = append(sel.Notices, n)
		}
		sel.State = loop.RecordInstalled(sel.State, installed)
		if len(names) == 0 {
			return sel, errors.New("no review engine shows on this repository (no review of one on this or a recent PR, no Claude workflow, no CodeRabbit or Gemini config): install one (docs/engines) or name engines in the `engines` input")
		}
	}
	sel.State.Engines = names
	for _, n := range names {
		e, ok := reg.Lookup(n)
		if !ok {
			return sel, fmt.Errorf("state names engine %q, which this review-loop does not know (known: %s)", n, strings.Join(reg.Names(), ", "))
		}
		sel.Engines = append(sel.Engines, e)
	}
	return sel, nil
}

// Known are the engines of names that reg knows, in order; unknown names
// are left out (a report that must not fail).
func Known(reg *engines.Registry, names []string) []engines.Engine {
	var out []engines.Engine
	for _, n := range names {
		if e, ok := reg.Lookup(n); ok {
			out = append(out, e)
		}
	}
	return out
}

// engineEvidence is IN2's evidence that each known engine is installed on
// the repository, in the order of cost: this PR (its observation), the
// engine's workflow or config file on the default branch (in the same
// observation), and, only for engines still without evidence among those
// that matter (the named ones, or every engine with none named), the
// repository's recent pull requests: one GraphQL request. The value says
// what was seen; an engine with no evidence is absent. A failed read of
// the recent pull requests returns the evidence read before it.
func engineEvidence(ctx context.Context, gh *github.Client, owner, repo string, number int, reg *engines.Registry, obs *github.Observation, env engines.Env, named []string) (map[string]string, error) {
	ev := evidence.Local(reg, obs, obs.EngineConfigFiles, env)
	missing := evidence.Missing(reg.Names(), named, ev)
	if len(missing) == 0 {
		return ev, nil
	}
	recent, err := gh.RecentActivity(ctx, owner, repo)
	if err != nil {
		return ev, err
	}
	evidence.Recent(reg, ev, missing, recent, number, env)
	return ev, nil
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
