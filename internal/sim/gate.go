package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// GateCheckName is the name of review-loop's own check run, the merge gate.
const GateCheckName = "review-loop"

// GateExpect is what the merge gate must show.
type GateExpect struct {
	// Final is the gate on the PR's final head: in_progress, success,
	// failure, neutral, or none (no gate check run on the head).
	Final string `yaml:"final"`
	// Seen are gate values that must each show after some cycle, in this
	// order (other values may come between them).
	Seen []string `yaml:"seen"`
	// SummaryContains are texts the final gate's output summary must hold.
	SummaryContains []string `yaml:"summary_contains"`
	// SummaryExcludes are texts it must not hold.
	SummaryExcludes []string `yaml:"summary_excludes"`
	// MaxChecks caps how many gate check runs the action created in all.
	MaxChecks *int `yaml:"max_checks"`
	// MaxWrites caps the gate's writes in all (creates and updates).
	MaxWrites *int `yaml:"max_writes"`
	// Superseded: every gate check run on a commit other than the final
	// head is concluded neutral, "superseded by <sha>", none left in
	// progress (MG2).
	Superseded bool `yaml:"superseded"`
}

var knownGates = []string{"in_progress", "success", "failure", "neutral", "none"}

func (g *GateExpect) validate() []error {
	if g == nil {
		return nil
	}
	var errs []error
	for _, v := range append([]string{g.Final}, g.Seen...) {
		if v != "" && !slices.Contains(knownGates, v) {
			errs = append(errs, fmt.Errorf("expect.gate: %q is not one of %s", v, strings.Join(knownGates, ", ")))
		}
	}
	return errs
}

// GateOf is the merge gate on a snapshot's head: the latest check run named
// review-loop created by the action's own token (app github-actions).
func GateOf(snap ghfake.PRSnapshot) (ghfake.CheckRun, string) {
	var best *ghfake.CheckRun
	for i := range snap.CheckRuns {
		c := &snap.CheckRuns[i]
		if c.Name == GateCheckName && c.AppSlug == "github-actions" && (best == nil || c.ID > best.ID) {
			best = c
		}
	}
	if best == nil {
		return ghfake.CheckRun{}, "none"
	}
	if best.Status == "COMPLETED" {
		return *best, strings.ToLower(best.Conclusion)
	}
	return *best, strings.ToLower(best.Status)
}

func (w *World) checkGate(o Outcome) []string {
	g := w.Expect.Gate
	if g == nil {
		return nil
	}
	var bad []string
	cr, final := GateOf(w.Fake.PR(w.Owner, w.Repo, w.Number))
	if g.Final != "" && final != g.Final {
		bad = append(bad, fmt.Sprintf("merge gate on the final head is %q, want %q (per cycle: %s)", final, g.Final, strings.Join(o.Gates, ", ")))
	}
	i := 0
	for _, v := range o.Gates {
		if i < len(g.Seen) && v == g.Seen[i] {
			i++
		}
	}
	if i < len(g.Seen) {
		bad = append(bad, fmt.Sprintf("merge gate showed %s over the cycles, want %s in that order", strings.Join(o.Gates, ", "), strings.Join(g.Seen, ", ")))
	}
	for _, s := range g.SummaryContains {
		if !strings.Contains(cr.Summary, s) {
			bad = append(bad, fmt.Sprintf("merge gate summary lacks %q: %q", s, cr.Summary))
		}
	}
	for _, s := range g.SummaryExcludes {
		if strings.Contains(cr.Summary, s) {
			bad = append(bad, fmt.Sprintf("merge gate summary holds %q", s))
		}
	}
	if g.MaxWrites != nil {
		if n := w.gateWrites(); n > *g.MaxWrites {
			bad = append(bad, fmt.Sprintf("%d merge gate writes, want at most %d (one per change of what it shows)", n, *g.MaxWrites))
		}
	}
	if g.Superseded {
		head := w.Fake.PR(w.Owner, w.Repo, w.Number).HeadSHA
		for _, c := range w.Fake.CheckRunsNamed(w.Owner, w.Repo, GateCheckName) {
			if c.HeadSHA == head || c.AppSlug != "github-actions" {
				continue
			}
			if c.Status != "COMPLETED" || c.Conclusion != "NEUTRAL" || !strings.HasPrefix(c.Title, "superseded by ") {
				bad = append(bad, fmt.Sprintf("merge gate on the old head %s is %s %s %q, want completed neutral \"superseded by <sha>\" (MG2)", short(c.HeadSHA), c.Status, c.Conclusion, c.Title))
			}
		}
	}
	if g.MaxChecks != nil {
		if n := w.gateChecks(); n > *g.MaxChecks {
			bad = append(bad, fmt.Sprintf("%d merge gate check runs created, want at most %d", n, *g.MaxChecks))
		}
	}
	return bad
}

// gateChecks counts the gate check runs the action created.
func (w *World) gateChecks() int {
	n := 0
	for _, q := range w.Fake.Requests() {
		if q.Method == "POST" && strings.HasSuffix(q.Path, "/check-runs") && q.Login == ActionsLogin && q.Status < 300 {
			n++
		}
	}
	return n
}

// gateWrites counts the action's successful check run creates and updates.
func (w *World) gateWrites() int {
	n := 0
	for _, q := range w.Fake.Requests() {
		write := q.Method == "POST" && strings.HasSuffix(q.Path, "/check-runs") || q.Method == "PATCH" && strings.Contains(q.Path, "/check-runs/")
		if write && q.Login == ActionsLogin && q.Status < 300 {
			n++
		}
	}
	return n
}

func (w *World) checkCIDispatches() []string {
	if len(w.Expect.CIDispatches) == 0 {
		return nil
	}
	head := w.Fake.PR(w.Owner, w.Repo, w.Number).HeadRef
	got := map[string]int{}
	for _, d := range w.Fake.Dispatches() {
		if d.Ref == head || d.Ref == "refs/heads/"+head {
			got[d.Workflow]++
		}
	}
	var bad []string
	for _, f := range sortedKeys(w.Expect.CIDispatches) {
		if got[f] != w.Expect.CIDispatches[f] {
			bad = append(bad, fmt.Sprintf("%d dispatch(es) of %s on %s, want %d", got[f], f, head, w.Expect.CIDispatches[f]))
		}
	}
	return bad
}
