package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
)

// The per-engine scorecard (EQ1) of one loop, in the hand-back and the
// JSON report, and the repository's scorecard across pull requests
// (EQ2) as `review-loop report` prints it: Markdown, JSON or an SVG
// chart.

// JSONScore is one engine's scorecard in the JSON report (EQ1).
type JSONScore struct {
	Engine    string `json:"engine"`
	Raised    int    `json:"raised"`
	Fixed     int    `json:"fixed"`
	Declined  int    `json:"declined"`
	WontFix   int    `json:"wont_fix"`
	Reverted  int    `json:"reverted"`
	Induced   int    `json:"fix_induced"`
	Stale     int    `json:"stale"`
	Escalated int    `json:"escalated"`
	// ReviewSeconds are the latest times to review after a push or a
	// trigger; MedianReviewSeconds their median (0 with none).
	ReviewSeconds       []int64 `json:"review_seconds"`
	MedianReviewSeconds int64   `json:"median_review_seconds"`
	QuotaHits           int     `json:"quota_hits"`
	Billed              int     `json:"billed_reviews"`
	// Cost is the estimated cost of the billed reviews; null when no
	// price is configured for the engine.
	Cost *float64 `json:"estimated_cost"`
}

func jsonScores(sc []loop.EngineScore) []JSONScore {
	out := make([]JSONScore, 0, len(sc))
	for _, s := range sc {
		j := JSONScore{Engine: s.Engine, Raised: s.Raised, Fixed: s.Fixed, Declined: s.Declined, WontFix: s.WontFix,
			Reverted: s.Reverted, Induced: s.Induced, Stale: s.Stale, Escalated: s.Escalated,
			ReviewSeconds: append([]int64{}, s.ReviewSecs...), QuotaHits: s.Quota, Billed: s.Billed}
		j.MedianReviewSeconds = int64(loop.Rank([][]loop.EngineScore{{s}})[0].MedianReview / time.Second)
		if s.CostKnown {
			c := round4(s.Cost)
			j.Cost = &c
		}
		out = append(out, j)
	}
	return out
}

// scorecardSection is the hand-back's compact per-engine table (EQ1).
func scorecardSection(in Input) string {
	sc := loop.Scorecard(in.State, in.Prices.Review)
	if len(in.State.Scores) == 0 && in.State.Ledger == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Scorecard\n\n")
	b.WriteString("| engine | raised | fixed (accepted) | declined | won't-fix | reverted | fix-induced | stale | time to review | quota hits | billed | est. cost |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range sc {
		r := loop.Rank([][]loop.EngineScore{{s}})[0]
		cost := "—"
		if s.CostKnown {
			cost = money(s.Cost)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %s | %d | %d | %s |\n", Escape(s.Engine, 40),
			s.Raised, s.Fixed, s.Declined, s.WontFix, s.Reverted, s.Induced, s.Stale, reviewTime(r.MedianReview, len(s.ReviewSecs)),
			s.Quota, s.Billed, cost)
	}
	b.WriteString("\n")
	return b.String()
}

// reviewTime is a median time to review, "—" with no review timed.
func reviewTime(d time.Duration, n int) string {
	if n == 0 {
		return "—"
	}
	return shortDuration(d)
}

// shortDuration is 45s, 7m, 1h05m, 2d3h.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// RepoScorecard is the repository's scorecard across pull requests
// (EQ2), as `review-loop report` prints it.
type RepoScorecard struct {
	Repo  string
	Since time.Time
	Until time.Time
	// PRs counts the pull requests read; Loops those with a loop state.
	PRs   int
	Loops int
	// Engines are ranked best first (loop.Rank).
	Engines []loop.EngineRank
	// Requests are the GitHub requests made; Budget the most the command
	// said it would make.
	Requests int
	Budget   int
	// PricesSet says the repository configures review prices.
	PricesSet bool
	// Skipped counts states that could not be read, with why.
	Skipped []string
}

// JSONRepoEngine is one engine of the repository scorecard's JSON.
type JSONRepoEngine struct {
	Rank int `json:"rank"`
	JSONScore
	Loops               int      `json:"loops"`
	AcceptanceRate      float64  `json:"acceptance_rate"`
	FixInducedRate      float64  `json:"fix_induced_rate"`
	CostPerAcceptedFind *float64 `json:"cost_per_accepted_finding"`
}

// JSONRepoScorecard is `review-loop report --json`.
type JSONRepoScorecard struct {
	Schema   int              `json:"schema"`
	Repo     string           `json:"repo"`
	Since    string           `json:"since"`
	Until    string           `json:"until"`
	PRs      int              `json:"prs_read"`
	Loops    int              `json:"loops"`
	Requests int              `json:"requests"`
	Budget   int              `json:"request_budget"`
	Engines  []JSONRepoEngine `json:"engines"`
	Skipped  []string         `json:"skipped"`
}

// ScorecardJSON renders the repository scorecard as JSON.
func ScorecardJSON(r RepoScorecard) ([]byte, error) {
	out := JSONRepoScorecard{Schema: 1, Repo: r.Repo, Since: rfc3339(r.Since), Until: rfc3339(r.Until), PRs: r.PRs, Loops: r.Loops,
		Requests: r.Requests, Budget: r.Budget, Engines: []JSONRepoEngine{}, Skipped: append([]string{}, r.Skipped...)}
	for i, e := range r.Engines {
		j := JSONRepoEngine{Rank: i + 1, JSONScore: jsonScores([]loop.EngineScore{e.EngineScore})[0], Loops: e.Loops,
			AcceptanceRate: round4(e.Acceptance), FixInducedRate: round4(e.InducedRate)}
		j.MedianReviewSeconds = int64(e.MedianReview / time.Second)
		j.ReviewSeconds = nil
		if e.CostKnown && e.Fixed > 0 {
			c := round4(e.CostPerAccepted)
			j.CostPerAcceptedFind = &c
		}
		out.Engines = append(out.Engines, j)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("rendering the scorecard as JSON: %w", err)
	}
	return append(b, '\n'), nil
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

// ScorecardMarkdown renders the repository scorecard as Markdown: one
// line per engine, best first.
func ScorecardMarkdown(r RepoScorecard) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Which reviewer earns its cost — %s\n\n", Escape(r.Repo, 100))
	fmt.Fprintf(&b, "Pull requests updated %s to %s: %s read, %s with a review-loop state.\n\n",
		r.Since.UTC().Format("2006-01-02"), r.Until.UTC().Format("2006-01-02"), plural(r.PRs, "pull request"), plural(r.Loops, "loop"))
	if len(r.Engines) == 0 {
		b.WriteString("No loop state found in this window: nothing to score yet.\n\n")
	} else {
		b.WriteString("| rank | engine | raised | accepted (fixed) | acceptance | fix-induced rate | declined | won't-fix | stale | median time to review | quota hits | billed reviews | cost per accepted finding |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for i, e := range r.Engines {
			cpa := "—"
			if e.CostKnown && e.Fixed > 0 {
				cpa = money(e.CostPerAccepted)
			} else if e.CostKnown && e.Billed > 0 {
				cpa = money(e.Cost) + " for none"
			}
			fmt.Fprintf(&b, "| %d | %s | %d | %d | %s | %s | %d | %d | %d | %s | %d | %d | %s |\n", i+1, Escape(e.Engine, 40),
				e.Raised, e.Fixed, pct(e.Acceptance), pct(e.InducedRate), e.Declined, e.WontFix, e.Stale,
				reviewTime(e.MedianReview, len(e.ReviewSecs)), e.Quota, e.Billed, cpa)
		}
		b.WriteString("\n")
		b.WriteString("Acceptance is fixed ÷ raised; the fix-induced rate is the share of fixes of an engine's findings that drew a new finding on the fixed lines (CV1).\n")
		if !r.PricesSet {
			b.WriteString("No review prices configured: set `prices` in `.github/review-loop.yml` for the cost per accepted finding.\n")
		}
		b.WriteString("\n")
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "- skipped: %s\n", Escape(s, maxNoteRunes))
	}
	if len(r.Skipped) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "_Read-only: %s of a stated budget of %d._\n", plural(r.Requests, "GitHub request"), r.Budget)
	return b.String()
}

// ScorecardLines is the repository scorecard in a few plain lines, for
// `plan` and `doctor`: one line per engine, best first; "" when no loop
// state was found.
func ScorecardLines(r RepoScorecard, days int) string {
	if r.Loops == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "scorecard, last %d days (%s in %s; `review-loop report %s` for more):\n",
		days, plural(r.Loops, "loop"), plural(r.PRs, "pull request"), Plain(r.Repo, 100))
	for i, e := range r.Engines {
		cost := ""
		if e.CostKnown && e.Fixed > 0 {
			cost = " · " + money(e.CostPerAccepted) + " per accepted finding"
		}
		fmt.Fprintf(&b, "  %d. %s: %s accepted (%d of %d) · fix-induced %s · median review %s · quota hits %d · billed %d%s\n",
			i+1, Plain(e.Engine, 40), pct(e.Acceptance), e.Fixed, e.Raised, pct(e.InducedRate),
			reviewTime(e.MedianReview, len(e.ReviewSecs)), e.Quota, e.Billed, cost)
	}
	return b.String()
}
