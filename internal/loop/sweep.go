package loop

// This file decides how the scheduled sweep advances the live loops (SW2).

// Sweep is how a scheduled sweep advances the live loops: Dispatch get a
// workflow run each (W5's re-dispatch, each in its own concurrency group
// and drawing nothing from the sweep's job), Inline are cycled in the
// sweep's own job one after another, Later wait for the next sweep.
// Dispatch is not nil when the sweep fans out by dispatch, with no loop
// to dispatch too.
type Sweep struct {
	Dispatch, Inline, Later []int
}

// PlanSweep is how a sweep advances the live loops prs (oldest first):
// one run per loop when it fans out by dispatch and the workflow file is
// known, unless it is a dry run, which dispatches nothing; otherwise at
// most budget of them in its own job. A dispatch GitHub refuses falls
// back to this job for the loops not yet dispatched (PlanSweep again,
// without dispatch).
func PlanSweep(prs []int, dispatch bool, workflow string, dryRun bool, budget int) Sweep {
	if dispatch && workflow != "" && !dryRun {
		return Sweep{Dispatch: append(make([]int, 0, len(prs)), prs...)}
	}
	if len(prs) > budget {
		return Sweep{Inline: prs[:budget], Later: prs[budget:]}
	}
	return Sweep{Inline: prs}
}
