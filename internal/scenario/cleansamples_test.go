package scenario

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/sim"
)

// cleanSample is one real clean review in testdata/engines and how its
// engine posts it: the property of RULES S10 is that each, played end to
// end after a fix push, ends the loop clean.
type cleanSample struct {
	engine string
	file   string
	// block is the fenced block of the file (samples' top-level fences);
	// -1 is a .json sample's body; -2 the line of the file holding line.
	block int
	line  string
	// shas are the commits the sample names, oldest first: the last is
	// the commit it reviewed ({{head}}), any other the one before it
	// ({{from}}).
	shas []string
	// template is the scenario whose second round posts the sample.
	template string
	post     func(r *sim.Round, text string)
}

func asReview(r *sim.Round, text string) { r.ReviewBody, r.Overview, r.CheckOnly = text, "", false }

// cleanSamples are every real clean review text of testdata/engines: a
// finished review of its engine's kinds (S8) or by structure (S10) that
// states no open finding.
var cleanSamples = []cleanSample{
	{engine: "bugbot", file: "04-review-summary-bodies.md", block: 0, template: "s10-bugbot-check-only-clean-run-ends-clean", post: asReview},
	{engine: "bugbot", file: "04-review-summary-bodies.md", block: 1, template: "s10-bugbot-check-only-clean-run-ends-clean", post: asReview},
	{engine: "bugbot", file: "04-review-summary-bodies.md", block: 3, template: "s10-bugbot-check-only-clean-run-ends-clean", post: asReview},
	{engine: "bugbot", file: "08-check-run-output-texts-forum-and-quoted.md", block: -2, line: "Bugbot completed review - no issues found! ✅",
		template: "s10-bugbot-check-only-clean-run-ends-clean", post: func(r *sim.Round, text string) { r.CheckSummary = text }},
	{engine: "copilot", file: "01-review-overview-v2-clean-edburns-cargotracker-pr7.json", block: -1, template: "s10-copilot-2026-09-overview-after-a-fix-push-ends-clean", post: asReview},
	{engine: "copilot", file: "09-review-body-suppressed-low-confidence-boostorg-openmethod-pr37.md", block: 0, template: "s10-copilot-2026-09-overview-after-a-fix-push-ends-clean", post: asReview},
	{engine: "copilot", file: "13-error-reviews-then-success-vllm-pr31104.md", block: 2, template: "s10-copilot-2026-09-overview-after-a-fix-push-ends-clean", post: asReview},
	{engine: "copilot", file: "16-review-overview-approval-recommended-review-details-teqplay-pr869.md", block: 0, template: "s10-copilot-2026-09-overview-after-a-fix-push-ends-clean", post: asReview},
	{engine: "coderabbit", file: "10-review-bodies-included-availability-jdx-mise-pr13233.md", block: 0,
		shas:     []string{"5e57a72dd97e969fb5b897823175e0999f252dad", "1e4bf26ace0f14ede910bc7f2339152cff4e05cc"},
		template: "s10-coderabbit-clean-incremental-review-posts-no-review-object", post: func(r *sim.Round, text string) { r.WalkthroughBody = text }},
	{engine: "claude", file: "04-code-review-plugin-output-template.md", block: 1, template: "s10-claude-automation-mode-comment-ends-clean",
		post: func(r *sim.Round, text string) { r.Automation, r.Comments = "", []string{text} }},
	{engine: "claude", file: "04-code-review-plugin-output-template.md", block: 2, template: "s10-claude-automation-mode-comment-ends-clean",
		post: func(r *sim.Round, text string) { r.Automation, r.Comments = "", []string{text} }},
	{engine: "gemini", file: "05-quota-warning-and-code-review-positive-llc-pr36.md", block: 0, template: "decl-gemini-declarative-engine", post: asReview},
	{engine: "gemini", file: "06-summary-of-changes-review-lexlattice-tf-lang-pr101.md", block: 1, template: "decl-gemini-declarative-engine", post: asReview},
}

var nonWord = regexp.MustCompile(`[^a-zA-Z0-9]+`)

var fenceLine = regexp.MustCompile("^(`{3,}|~{3,})")

// sampleText reads the text of a real sample: its first line names the
// source and is dropped, as engines/internal/samples does.
func sampleText(t *testing.T, c cleanSample) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "engines", c.engine, c.file))
	if err != nil {
		t.Fatal(err)
	}
	_, text, _ := strings.Cut(string(b), "\n")
	switch c.block {
	case -1:
		var o struct {
			Body string `json:"body"`
		}
		if err := json.Unmarshal([]byte(text), &o); err != nil {
			t.Fatal(err)
		}
		return o.Body
	case -2:
		for _, l := range strings.Split(text, "\n") {
			if i := strings.Index(l, c.line); i >= 0 {
				return c.line
			}
		}
		t.Fatalf("%s/%s: no line holds %q", c.engine, c.file, c.line)
	}
	var blocks []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(strings.TrimRight(lines[i], " \r"))
		if m == nil {
			continue
		}
		var buf []string
		j := i + 1
		for ; j < len(lines); j++ {
			if l := strings.TrimRight(lines[j], " \r"); strings.HasPrefix(l, m[1]) && strings.Trim(l, m[1][:1]) == "" {
				break
			}
			buf = append(buf, lines[j])
		}
		blocks = append(blocks, strings.Join(buf, "\n"))
		i = j
	}
	if c.block >= len(blocks) {
		t.Fatalf("%s/%s has %d blocks", c.engine, c.file, len(blocks))
	}
	return blocks[c.block]
}

// TestRule_S10_EveryRealCleanSampleEndsTheLoopClean plays each real clean
// review of testdata/engines end to end through the simulated engine and
// the fake GitHub: the engine flags one bug, the loop fixes it and
// pushes, and the engine's review of the new head is the real sample
// (its commits replaced by the scenario's). Every one ends the loop
// clean.
func TestRule_S10_EveryRealCleanSampleEndsTheLoopClean(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cleanSamples {
		t.Run(c.engine+"/"+c.file, func(t *testing.T) {
			t.Parallel()
			sc, err := sim.LoadScenario(filepath.Join(scenarioDir(t), c.template+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			text := sampleText(t, c)
			for i, sha := range c.shas {
				ph := sim.PlaceholderFrom
				if i == len(c.shas)-1 {
					ph = sim.PlaceholderHead
				}
				text = strings.ReplaceAll(text, sha, ph)
			}
			e := sc.Engines[c.engine]
			if len(e.Rounds) < 2 {
				t.Fatalf("template %s has no second round for %s", c.template, c.engine)
			}
			e.Rounds = append([]sim.Round(nil), e.Rounds...)
			c.post(&e.Rounds[1], text)
			e.Default = &e.Rounds[1]
			sc.Engines[c.engine] = e
			sc.Name = "clean-sample-" + c.engine + "-" + strings.ToLower(nonWord.ReplaceAllString(strings.TrimSuffix(c.file, filepath.Ext(c.file)), "-"))
			if err := sc.Validate(); err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), sc, Options{Self: []string{self}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome.EndReason != "clean" || res.Outcome.Verdicts[c.engine] != "CLEAN" {
				t.Errorf("the real clean review %s/%s played after a fix push: end reason %q, %s %s; want clean\n%s\n%s",
					c.engine, c.file, res.Outcome.EndReason, c.engine, res.Outcome.Verdicts[c.engine], strings.Join(res.Problems, "\n"), res.Report)
			}
		})
	}
}
