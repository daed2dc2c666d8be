package action

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
)

// ledgered is what this cycle already added to the cost ledger, so that a
// cycle writing its status comment twice counts its minutes and requests
// once.
type ledgered struct {
	minutes       int
	reads, writes int64
	base          github.Counts
	baseSet       bool
}

// beforeWrite brings the merge gate and the cost ledger up to date just
// before the status comment (and so the state) is written.
func (c *prCycle) beforeWrite(ctx context.Context) {
	if c.readOnly || c.cfg.DryRun || c.obs == nil {
		return
	}
	c.publishGate(ctx)
	c.ledgerCycle()
}

// gateHead is the head the gate is for: the commit this cycle pushed, else
// the observed head.
func (c *prCycle) gateHead() string {
	if c.res.Pushed != "" {
		return c.res.Pushed
	}
	return c.obs.HeadSHA
}

// publishGate writes review-loop's own check run on the head (MG1): one
// write at most, and only when what the gate shows changes. Failure to
// write it never fails the cycle: a token without `checks: write` gets a
// set-up notice once.
func (c *prCycle) publishGate(ctx context.Context) {
	head := c.gateHead()
	want := loop.GateFor(c.st, c.obs.IsFork)
	in := c.reportInput()
	in.State = c.st
	// The ledger changes with every request; in the gate's summary it
	// would make every write a change.
	in.State.Ledger = nil
	title, summary := report.GateSummary(in, want)
	digest := loop.GateDigest(summary)
	w := github.CheckRunWrite{Name: loop.GateName, HeadSHA: head, Status: want.Status, Conclusion: want.Conclusion,
		Title: title, Summary: summary, DetailsURL: c.runURL(), At: c.Now()}
	switch loop.PlanGate(c.st.Gate, head, want, digest) {
	case loop.GateCreate:
		c.supersedeGate(ctx, head)
		id, err := c.gh.CreateCheckRun(ctx, c.owner, c.repo, w)
		if err != nil {
			c.gateFailed(head, err)
			return
		}
		c.st = loop.RecordGate(c.st, head, id, want, digest)
	case loop.GateUpdate:
		if err := c.gh.UpdateCheckRun(ctx, c.owner, c.repo, c.st.Gate.ID, w); err != nil {
			c.gateFailed(head, err)
			return
		}
		c.st = loop.RecordGate(c.st, head, c.st.Gate.ID, want, digest)
	}
}

// supersedeGate concludes the gate left in progress on an old head as
// neutral, "superseded by <head>" (MG2): never left in progress, since a
// required check on a commit that is no longer the head would otherwise
// spin forever. A failure is logged; the new head's gate is written anyway.
func (c *prCycle) supersedeGate(ctx context.Context, head string) {
	old := c.st.Gate
	v, ok := loop.SupersededGate(old, head)
	if !ok {
		return
	}
	w := github.CheckRunWrite{Name: loop.GateName, HeadSHA: old.SHA, Status: v.Status, Conclusion: v.Conclusion,
		Title:      loop.SupersededTitle(head),
		Summary:    fmt.Sprintf("The pull request's head moved to %s; review-loop's gate is on that commit now (MG2).", head),
		DetailsURL: c.runURL(), At: c.Now()}
	if err := c.gh.UpdateCheckRun(ctx, c.owner, c.repo, old.ID, w); err != nil {
		c.Log.Warn("concluding the merge gate of the old head", "pr", c.number, "sha", old.SHA, "err", err)
	}
}

func (c *prCycle) gateFailed(head string, err error) {
	if !github.IsPermission(err) {
		c.Log.Warn("writing the merge gate check run", "pr", c.number, "err", err)
		return
	}
	st, isNew := loop.RecordGateUnavailable(c.st, head)
	c.st = st
	if isNew {
		msg := fmt.Sprintf("could not publish the `%s` check run (%v): give the workflow `checks: write` so branch protection can require it (MG1)", loop.GateName, err)
		c.gha.Warningf("review-loop: %s", msg)
		c.notices = append(c.notices, msg)
	}
}

// dropOwnCheckRuns removes review-loop's own check run (the merge gate)
// from the observation before the engines read it: it is a check run of
// app github-actions like an engine's workflow job, and must never be read
// as an engine's signal (MG1).
func (c *prCycle) dropOwnCheckRuns() {
	if c.obs == nil {
		return
	}
	kept := make([]github.CheckRun, 0, len(c.obs.CheckRuns))
	for _, cr := range c.obs.CheckRuns {
		if strings.EqualFold(cr.Name, loop.GateName) {
			continue
		}
		kept = append(kept, cr)
	}
	c.obs.CheckRuns = kept
}

// requests is what this run's clients have sent so far.
func (c *prCycle) requests() github.Counts {
	n := c.gh.Requests()
	if c.trigger != nil {
		t := c.trigger.Requests()
		n.Reads, n.Writes, n.Total = n.Reads+t.Reads, n.Writes+t.Writes, n.Total+t.Total
	}
	return n
}

// startLedger takes the request counts at the cycle's start.
func (c *prCycle) startLedger() {
	if c.gh != nil {
		c.ledger.base, c.ledger.baseSet = c.requests(), true
	}
}

// ledgerCycle adds this cycle's job minutes and API requests to the cost
// ledger (CL1): its wall time so far, rounded up to a whole minute as
// GitHub bills a job, and the requests sent so far; a second write in the
// same cycle adds only what came since the first. Requests made after the
// last write (the write itself, the re-dispatch) are not in the ledger.
func (c *prCycle) ledgerCycle() {
	if c.st.Status == "" || !c.ledger.baseSet {
		return
	}
	n := c.requests()
	minutes := loop.JobMinutes(c.Now().Sub(c.started))
	reads, writes := n.Reads-c.ledger.base.Reads, n.Writes-c.ledger.base.Writes
	c.st = loop.LedgerCycle(c.st, minutes-c.ledger.minutes, c.ledger.minutes == 0, reads-c.ledger.reads, writes-c.ledger.writes)
	c.ledger.minutes, c.ledger.reads, c.ledger.writes = minutes, reads, writes
}

// ledgerTriggers counts the reviews the loop asked for: triggers sent,
// not skipped, refused or unavailable.
func (c *prCycle) ledgerTriggers(results []loop.TriggerResult) {
	bySHA := map[string][]string{}
	for _, r := range results {
		if r.Skipped || r.Unavailable || r.Quota != nil || r.Err != "" {
			continue
		}
		bySHA[r.SHA] = append(bySHA[r.SHA], r.Engine)
	}
	for _, sha := range slices.Sorted(maps.Keys(bySHA)) {
		c.st = loop.LedgerRequested(c.st, bySHA[sha], sha)
	}
}

// dispatchCI runs the repository's CI on the loop's own commit (CI1):
// each planned workflow is dispatched on the PR head branch; one GitHub
// refuses to dispatch (no workflow_dispatch trigger) is reported once and
// not asked again (loop.CINotice).
func (c *prCycle) dispatchCI(ctx context.Context, files []string) {
	for _, f := range files {
		err := c.gh.DispatchWorkflow(ctx, c.owner, c.repo, f, c.obs.HeadRef, nil)
		if err == nil {
			c.res.CIDispatched = append(c.res.CIDispatched, f)
			continue
		}
		var apiErr *github.APIError
		msg := fmt.Sprintf("could not dispatch the CI workflow %s on %s (%v); its checks do not run on review-loop's commits (CI1)", f, c.obs.HeadRef, err)
		if errors.As(err, &apiErr) && apiErr.Status == 422 && strings.Contains(apiErr.Message, "workflow_dispatch") {
			msg = fmt.Sprintf("%s has no workflow_dispatch trigger, so review-loop cannot run it on its own commits (a push made with GITHUB_TOKEN starts no workflow): add `workflow_dispatch:` to its `on:`, or give a push-token (CI1)", f)
		}
		if github.IsPermission(err) {
			msg += "; the workflow needs `actions: write`"
		}
		st, isNew := loop.RecordNotice(c.st, loop.CINotice(f))
		c.st = st
		if isNew {
			c.gha.Warningf("review-loop: %s", msg)
			c.notices = append(c.notices, msg)
		}
	}
}

// ciWorkflowFiles checks the `ci-workflows` input: workflow file names
// (ci.yml), with or without the .github/workflows/ prefix.
func ciWorkflowFiles(list []string) ([]string, error) {
	var out []string
	var errs []error
	for _, f := range list {
		f = strings.TrimPrefix(f, ".github/workflows/")
		ext := path.Ext(f)
		if strings.Contains(f, "/") || (ext != ".yml" && ext != ".yaml") || f == ext {
			errs = append(errs, fmt.Errorf("input ci-workflows: %q is not a workflow file name such as ci.yml", f))
			continue
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, errors.Join(errs...)
}

// parsePrices reads `prices:` from the repository config: a price per
// review for each engine, and `actions_minute` for a job minute (CL1).
func parsePrices(raw []byte) (report.Prices, error) {
	var doc struct {
		Prices map[string]float64 `yaml:"prices"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return report.Prices{}, fmt.Errorf("prices: %w (want a map of engine or actions_minute to a number)", err)
	}
	var p report.Prices
	for _, k := range slices.Sorted(maps.Keys(doc.Prices)) {
		v := doc.Prices[k]
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return report.Prices{}, fmt.Errorf("prices.%s: %v is not a price (a number, zero or more)", k, v)
		}
		if k == "actions_minute" {
			p.ActionsMinute = v
			continue
		}
		if p.Review == nil {
			p.Review = map[string]float64{}
		}
		p.Review[k] = v
	}
	return p, nil
}

// checkPriceEngines names a priced engine this review-loop does not know.
func checkPriceEngines(p report.Prices, r *engines.Registry) error {
	for _, k := range slices.Sorted(maps.Keys(p.Review)) {
		if _, ok := r.Lookup(k); !ok {
			return fmt.Errorf("prices.%s: unknown engine (known: %s, and actions_minute)", k, strings.Join(r.Names(), ", "))
		}
	}
	return nil
}
