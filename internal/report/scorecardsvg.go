package report

import (
	"fmt"
	"strings"
)

// SVG chart of the repository scorecard (EQ2): one bar group per engine,
// best first, with three bars on one 0–100 % scale — acceptance (fixed ÷
// raised), declined (declined ÷ raised) and fix-induced (induced ÷
// fixed) — each labelled with its value. It is plain SVG 1.1 that GitHub
// renders as an image: a viewBox, no script, no external font or link,
// every label a text element.

// svgMetric is one bar of a group.
type svgMetric struct {
	Name  string
	Color string
	Value func(e rankLike) float64
}

type rankLike struct {
	acceptance, declined, induced float64
}

var svgMetrics = []svgMetric{
	{"acceptance", "#2da44e", func(e rankLike) float64 { return e.acceptance }},
	{"declined", "#cf222e", func(e rankLike) float64 { return e.declined }},
	{"fix-induced", "#bf8700", func(e rankLike) float64 { return e.induced }},
}

// svgLegend names each metric in the legend.
var (
	svgLegend  = []string{"acceptance (fixed ÷ raised)", "declined (÷ raised)", "fix-induced (÷ fixed)"}
	svgLegendX = []int{0, 190, 330}
)

// SVG geometry, in user units.
const (
	svgBar      = 28
	svgBarGap   = 4
	svgGroupGap = 36
	svgLeft     = 56
	svgTop      = 84
	svgPlotH    = 200
	svgBottom   = 72
)

func clamp01(v float64) float64 { return max(0, min(1, v)) }

// ScorecardSVG renders the repository scorecard as an SVG chart.
func ScorecardSVG(r RepoScorecard) string {
	n := max(len(r.Engines), 1)
	groupW := len(svgMetrics)*svgBar + (len(svgMetrics)-1)*svgBarGap
	width := svgLeft + n*groupW + (n+1)*svgGroupGap
	width = max(width, 560)
	height := svgTop + svgPlotH + svgBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="t" font-family="-apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	title := "Which reviewer earns its cost — " + r.Repo
	fmt.Fprintf(&b, `<title id="t">%s</title>`+"\n", xmlEscape(title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold" fill="#1f2328">%s</text>`+"\n", svgLeft, xmlEscape(title))
	fmt.Fprintf(&b, `<text x="%d" y="40" fill="#59636e">%s</text>`+"\n", svgLeft, xmlEscape(fmt.Sprintf("%d loops in %d pull requests, %s to %s",
		r.Loops, r.PRs, r.Since.UTC().Format("2006-01-02"), r.Until.UTC().Format("2006-01-02"))))
	// The legend.
	for i, m := range svgMetrics {
		x := svgLeft + svgLegendX[i]
		fmt.Fprintf(&b, `<rect x="%d" y="52" width="10" height="10" fill="%s"/><text x="%d" y="61" fill="#1f2328">%s</text>`+"\n", x, m.Color, x+14, svgLegend[i])
	}
	// The axis: 0, 50 and 100 %.
	base := svgTop + svgPlotH
	for _, p := range []int{0, 50, 100} {
		y := base - p*svgPlotH/100
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d1d9e0"/><text x="%d" y="%d" text-anchor="end" fill="#59636e">%d%%</text>`+"\n",
			svgLeft, y, width-svgGroupGap/2, y, svgLeft-6, y+4, p)
	}
	for gi, e := range r.Engines {
		v := rankLike{acceptance: e.Acceptance, induced: e.InducedRate}
		if e.Raised > 0 {
			v.declined = float64(e.Declined) / float64(e.Raised)
		}
		gx := svgLeft + svgGroupGap + gi*(groupW+svgGroupGap)
		fmt.Fprintf(&b, `<g data-engine="%s">`+"\n", xmlEscape(e.Engine))
		for mi, m := range svgMetrics {
			val := clamp01(m.Value(v))
			h := val * svgPlotH
			x := gx + mi*(svgBar+svgBarGap)
			y := float64(base) - h
			label := pct(val)
			fmt.Fprintf(&b, `<rect class="bar" data-metric="%s" data-value="%.4f" x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s %s %s</title></rect>`+"\n",
				m.Name, val, x, y, svgBar, h, m.Color, xmlEscape(e.Engine), m.Name, label)
			fmt.Fprintf(&b, `<text class="value" data-metric="%s" x="%d" y="%.1f" text-anchor="middle" font-size="11" fill="#1f2328">%s</text>`+"\n",
				m.Name, x+svgBar/2, y-4, label)
		}
		cx := gx + groupW/2
		fmt.Fprintf(&b, `<text class="engine" x="%d" y="%d" text-anchor="middle" font-weight="bold" fill="#1f2328">%d. %s</text>`+"\n", cx, base+18, gi+1, xmlEscape(e.Engine))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#59636e">%s</text>`+"\n", cx, base+34,
			xmlEscape(fmt.Sprintf("%d raised · %d fixed", e.Raised, e.Fixed)))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#59636e">%s</text>`+"\n", cx, base+50,
			xmlEscape("review "+reviewTime(e.MedianReview, len(e.ReviewSecs))+svgCost(e.CostKnown, e.Fixed, e.CostPerAccepted)))
		b.WriteString("</g>\n")
	}
	if len(r.Engines) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#59636e">no loop state in this window</text>`+"\n", svgLeft+svgGroupGap, base-svgPlotH/2)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func svgCost(known bool, fixed int, per float64) string {
	if !known || fixed == 0 {
		return ""
	}
	return " · " + money(per) + "/fix"
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func xmlEscape(s string) string { return xmlEscaper.Replace(s) }
