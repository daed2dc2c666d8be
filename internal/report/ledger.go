package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
)

// Prices are what the repository says a review and an Actions minute cost
// (`prices:` in .github/review-loop.yml), for the cost ledger's estimate
// (CL1). A nil map means no price is configured.
type Prices struct {
	// Review is the price of one review, per engine.
	Review map[string]float64
	// ActionsMinute is the price of one Actions job minute.
	ActionsMinute float64
}

func (p Prices) set() bool { return len(p.Review) > 0 || p.ActionsMinute > 0 }

// OutputCost is the output holding the cost ledger as JSON.
const OutputCost = "cost-json"

// CostEngine is one engine's line of the ledger.
type CostEngine struct {
	Requested int     `json:"requested"`
	Automatic int     `json:"automatic"`
	Estimate  float64 `json:"estimate"`
}

// Cost is the cost ledger as the cost-json output carries it.
type Cost struct {
	Engines       map[string]CostEngine `json:"engines"`
	JobMinutes    int                   `json:"actions_minutes"`
	Jobs          int                   `json:"actions_jobs"`
	IdleJobs      int                   `json:"actions_idle_jobs"`
	IdleUncounted string                `json:"idle_uncounted,omitempty"`
	Cycles        int                   `json:"cycles"`
	APIReads      int64                 `json:"api_reads"`
	APIWrites     int64                 `json:"api_writes"`
	APIRequests   int64                 `json:"api_requests"`
	MinutesCost   float64               `json:"actions_estimate"`
	Estimate      float64               `json:"estimate"`
	PricesSet     bool                  `json:"prices_configured"`
	ReviewPrices  map[string]float64    `json:"review_prices,omitempty"`
	MinutePrice   float64               `json:"actions_minute_price,omitempty"`
	EngineOrdered []string              `json:"-"`
}

// CostOf folds the saved ledger and the prices into the ledger's figures.
func CostOf(in Input) Cost {
	c := Cost{Engines: map[string]CostEngine{}, PricesSet: in.Prices.set(), ReviewPrices: in.Prices.Review, MinutePrice: in.Prices.ActionsMinute}
	l := in.State.Ledger
	names := slices.Clone(in.State.Engines)
	if l != nil {
		for _, m := range []map[string]int{l.Requested, l.Automatic} {
			for n := range maps.Keys(m) {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		c.JobMinutes, c.Jobs, c.Cycles, c.APIReads, c.APIWrites = l.JobMinutes, l.Jobs, l.Cycles, l.APIReads, l.APIWrites
		c.IdleJobs, c.IdleUncounted = l.IdleJobs, l.IdleUncounted
	}
	slices.Sort(names)
	c.EngineOrdered = names
	for _, n := range names {
		var e CostEngine
		if l != nil {
			e.Requested, e.Automatic = l.Requested[n], l.Automatic[n]
		}
		e.Estimate = float64(e.Requested+e.Automatic) * in.Prices.Review[n]
		c.Engines[n] = e
		c.Estimate += e.Estimate
	}
	c.APIRequests = c.APIReads + c.APIWrites
	c.MinutesCost = float64(c.JobMinutes) * in.Prices.ActionsMinute
	c.Estimate += c.MinutesCost
	return c
}

// CostJSON is the cost-json output.
func CostJSON(in Input) string {
	b, err := json.Marshal(CostOf(in))
	if err != nil {
		return "{}"
	}
	return string(b)
}

func money(v float64) string { return fmt.Sprintf("$%.2f", v) }

// costSection renders the cost ledger (CL1): per engine the reviews the
// loop asked for and the automatic ones its pushes caused, its Actions job
// minutes and API requests, and an estimate from the configured prices.
func costSection(in Input) string {
	if in.State.Ledger == nil {
		return ""
	}
	c := CostOf(in)
	var b strings.Builder
	b.WriteString("#### Cost\n\n")
	b.WriteString("| engine | reviews asked | automatic (our pushes) | estimate |\n|---|---|---|---|\n")
	for _, n := range c.EngineOrdered {
		e := c.Engines[n]
		est := "—"
		if _, ok := in.Prices.Review[n]; ok {
			est = money(e.Estimate)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", Escape(n, 40), e.Requested, e.Automatic, est)
	}
	b.WriteString("\n")
	minutes := fmt.Sprintf("Actions job minutes: %d over %s", c.JobMinutes, plural(c.Cycles, "cycle"))
	if c.Jobs > 0 {
		// C5: every job the cycles started (prepare and publish).
		minutes = fmt.Sprintf("Actions job minutes: %d in %s over %s", c.JobMinutes, plural(c.Jobs, "job"), plural(c.Cycles, "cycle"))
	}
	if in.Prices.ActionsMinute > 0 {
		minutes += " (" + money(c.MinutesCost) + ")"
	}
	switch {
	case c.IdleUncounted != "":
		// C5: the wakes that wrote nothing could not be read back.
		minutes += " · wakes that wrote nothing are not counted: " + c.IdleUncounted
	case c.IdleJobs > 0:
		minutes += fmt.Sprintf(" · %s of wakes that wrote nothing", plural(c.IdleJobs, "job"))
	}
	fmt.Fprintf(&b, "%s · API requests: %d (%d reads, %d writes)", minutes, c.APIRequests, c.APIReads, c.APIWrites)
	if c.PricesSet {
		fmt.Fprintf(&b, " · estimated total: **%s**\n\n", money(c.Estimate))
	} else {
		b.WriteString("\n\n_No prices configured: set `prices` in `.github/review-loop.yml` for an estimate._\n\n")
	}
	return b.String()
}

// GateTitle is the merge gate's one-line title for a gate view.
func GateTitle(v loop.GateView, s Summary) string {
	switch v.Conclusion {
	case loop.GateSuccess:
		return "review-loop: every engine is clean"
	case loop.GateNeutral:
		return "review-loop: report only (" + string(cmpReason(s.Reason)) + ")"
	case loop.GateFailure:
		return "review-loop: handed back (" + string(cmpReason(s.Reason)) + ")"
	}
	return "review-loop: reviewing (cycle " + itoa(s.Cycle) + ")"
}

// GateSummary is the merge gate check run's output summary (MG1): the
// status comment's engine lines, and, once the loop did not end clean,
// the hand-back report with its end reason and follow-up. GitHub caps the
// summary at 65535 characters; the hand-back is dropped first, then the
// text is cut. The cost ledger is left out: it changes with every
// request, and would make every cycle's gate a write.
func GateSummary(in Input, v loop.GateView) (title, summary string) {
	in.State.Ledger = nil
	s := Summarize(in)
	var b strings.Builder
	b.WriteString(header(in, s) + "\n\n")
	b.WriteString("#### Engines\n\n")
	for _, e := range s.Engines {
		b.WriteString(engineLines(in, e, "- ") + "\n")
	}
	if len(s.Engines) == 0 {
		b.WriteString("_No engine selected yet._\n\n")
	}
	b.WriteString(Convergence(in.State))
	engines := b.String()
	if v.Conclusion == loop.GateFailure || v.Conclusion == loop.GateNeutral {
		b.WriteString(handBack(in, s))
	}
	out := b.String()
	const limit = 65535
	if len(out) > limit {
		out = engines
	}
	if len(out) > limit {
		out = truncate(out, limit/4)
	}
	return GateTitle(v, s), out
}
