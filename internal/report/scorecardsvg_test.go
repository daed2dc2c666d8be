package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// svgBar is one bar read back from the SVG.
type svgBarRead struct {
	engine, metric string
	value, height  float64
	title          string
}

// readSVG parses an SVG chart: its root attributes, every element name,
// the bars with their engine, and the text labels.
func readSVG(t *testing.T, svg string) (root map[string]string, elems []string, bars []svgBarRead, texts []string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	engine := ""
	var cur *svgBarRead
	inText, inTitle := false, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			attrs := map[string]string{}
			for _, a := range x.Attr {
				name := a.Name.Local
				if a.Name.Space != "" && a.Name.Space != "http://www.w3.org/2000/svg" {
					name = a.Name.Space + ":" + name
				}
				attrs[name] = a.Value
			}
			elems = append(elems, x.Name.Local)
			switch {
			case x.Name.Local == "svg":
				root = attrs
			case x.Name.Local == "g":
				engine = attrs["data-engine"]
			case x.Name.Local == "rect" && attrs["class"] == "bar":
				v, _ := strconv.ParseFloat(attrs["data-value"], 64)
				h, _ := strconv.ParseFloat(attrs["height"], 64)
				bars = append(bars, svgBarRead{engine: engine, metric: attrs["data-metric"], value: v, height: h})
				cur = &bars[len(bars)-1]
			case x.Name.Local == "text":
				inText = true
				texts = append(texts, "")
			case x.Name.Local == "title":
				inTitle = true
			}
			for k, v := range attrs {
				if strings.HasPrefix(strings.ToLower(k), "on") || strings.Contains(strings.ToLower(v), "javascript:") || strings.Contains(k, "href") {
					t.Errorf("<%s %s=%q>: no scripts, no links", x.Name.Local, k, v)
				}
			}
		case xml.EndElement:
			switch x.Name.Local {
			case "text":
				inText = false
			case "title":
				inTitle = false
				cur = nil
			case "g":
				engine = ""
			}
		case xml.CharData:
			if inText {
				texts[len(texts)-1] += string(x)
			}
			if inTitle && cur != nil {
				cur.title += string(x)
			}
		}
	}
	return root, elems, bars, texts
}

// TestRule_EQ2_SVGChartShowsTheScorecardsNumbers: one bar group per
// engine in rank order, each bar's height its value on the 0–100 %
// scale, each labelled with the value; a viewBox; only elements GitHub
// renders (no script, no foreign object, no image, no link, no external
// font).
func TestRule_EQ2_SVGChartShowsTheScorecardsNumbers(t *testing.T) {
	r := RepoScorecard{Repo: "acme/calc", Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		PRs: 12, Loops: 10, Engines: loop.Rank([][]loop.EngineScore{{
			{Engine: "bugbot", Score: scoreOf(30, 20, 10, 5), Billed: 10, Cost: 5, CostKnown: true, Loops: 1},
			{Engine: "copilot", Score: scoreOf(40, 10, 30, 1), Billed: 20, Cost: 5, CostKnown: true, Loops: 1},
			{Engine: "<coderabbit>", Score: scoreOf(8, 2, 2, 0), Loops: 1},
		}})}
	svg := ScorecardSVG(r)
	root, elems, bars, texts := readSVG(t, svg)
	if root["viewBox"] == "" || root["xmlns"] != "" && root["xmlns"] != "http://www.w3.org/2000/svg" {
		t.Errorf("root = %v, want a viewBox", root)
	}
	allowed := map[string]bool{"svg": true, "title": true, "rect": true, "text": true, "line": true, "g": true}
	for _, e := range elems {
		if !allowed[e] {
			t.Errorf("element <%s> is not among those the chart may use", e)
		}
	}
	if strings.Contains(svg, "@import") || strings.Contains(svg, "url(") || strings.Contains(svg, "<style") {
		t.Errorf("the SVG loads something from outside:\n%s", svg)
	}
	want := map[string]map[string]float64{
		"bugbot":       {"acceptance": 20.0 / 30, "declined": 10.0 / 30, "fix-induced": 5.0 / 20},
		"copilot":      {"acceptance": 10.0 / 40, "declined": 30.0 / 40, "fix-induced": 1.0 / 10},
		"<coderabbit>": {"acceptance": 2.0 / 8, "declined": 2.0 / 8, "fix-induced": 0},
	}
	var order []string
	for _, b := range bars {
		if len(order) == 0 || order[len(order)-1] != b.engine {
			order = append(order, b.engine)
		}
		w, ok := want[b.engine][b.metric]
		if !ok {
			t.Errorf("unexpected bar %+v", b)
			continue
		}
		if d := b.value - w; d > 1e-4 || d < -1e-4 {
			t.Errorf("%s %s = %.4f, want %.4f", b.engine, b.metric, b.value, w)
		}
		if d := b.height - w*svgPlotH; d > 0.06 || d < -0.06 {
			t.Errorf("%s %s bar is %.1f high, want %.1f (%.0f%% of %d)", b.engine, b.metric, b.height, w*svgPlotH, w*100, svgPlotH)
		}
		if label := fmt.Sprintf("%s %s %.0f%%", b.engine, b.metric, w*100); b.title != label {
			t.Errorf("bar title %q, want %q", b.title, label)
		}
	}
	if len(bars) != 9 || strings.Join(order, ",") != "bugbot,<coderabbit>,copilot" {
		t.Errorf("bars %d in order %v, want 3 groups of 3, ranked bugbot, coderabbit (25%%, fewer induced), copilot", len(bars), order)
	}
	joined := strings.Join(texts, "|")
	for _, s := range []string{"1. bugbot", "2. <coderabbit>", "3. copilot", "67%", "33%", "25%", "75%", "10%", "30 raised · 20 fixed", "$0.25/fix", "$0.50/fix"} {
		if !strings.Contains(joined, s) {
			t.Errorf("no text label %q in %q", s, joined)
		}
	}
}

func scoreOf(raised, fixed, declined, induced int) (s state.Score) {
	s.Raised, s.Fixed, s.Declined, s.Induced = raised, fixed, declined, induced
	return s
}
