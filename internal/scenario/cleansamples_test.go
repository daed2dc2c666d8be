package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/internal/sim"
)

// cleanSample is one played text of testdata/engines/clean.yaml: a real
// clean review and how its engine posts it. The file is the one list of
// real clean texts; engines/builtin's
// TestRule_S10_EveryCleanSampleIsPlayedOrExcluded checks that it holds
// every text the S9 table declares a review stating no open finding.
type cleanSample struct {
	Sample string `yaml:"sample"`
	// Block is the file's top-level fenced block (a .json sample's body
	// is block 0); Line, if set, is the one line of the block played.
	Block int    `yaml:"block"`
	Line  string `yaml:"line"`
	// Shas are the commits the sample names, oldest first: the last is
	// the commit it reviewed ({{head}}), any other the one before it
	// ({{from}}).
	Shas []string `yaml:"shas"`
	// Template is the scenario whose second round posts the sample, the
	// way Post says.
	Template string `yaml:"template"`
	Post     string `yaml:"post"`
	Reason   string `yaml:"reason"`
}

func (c cleanSample) String() string { return fmt.Sprintf("%s block %d", c.Sample, c.Block) }

// cleanPosts put a played text where its engine posts it, in the round
// after the fix push.
var cleanPosts = map[string]func(r *sim.Round, text string){
	"review": func(r *sim.Round, text string) { r.ReviewBody, r.Overview, r.CheckOnly = text, "", false },
	// A check-only run's summary (Bugbot with postSuccessComment false).
	"check": func(r *sim.Round, text string) { r.CheckSummary = text },
	// CodeRabbit's walkthrough after a clean incremental review.
	"walkthrough": func(r *sim.Round, text string) { r.WalkthroughBody = text },
	// Claude's PR comment, posted during its run.
	"comment": func(r *sim.Round, text string) { r.Automation, r.Comments = "", []string{text} },
}

// cleanSamples reads the played texts of testdata/engines/clean.yaml,
// and the excluded texts it plays to show they are not clean.
func cleanSamples(t *testing.T) (played, notClean []cleanSample) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "engines", "clean.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Played   []cleanSample `yaml:"played"`
		Excluded []cleanSample `yaml:"excluded"`
	}
	if err := yaml.UnmarshalWithOptions(b, &f, yaml.Strict()); err != nil {
		t.Fatalf("testdata/engines/clean.yaml: %v", err)
	}
	if len(f.Played) == 0 {
		t.Fatal("testdata/engines/clean.yaml plays no text")
	}
	for _, c := range f.Excluded {
		if c.Post != "" {
			c.Reason = ""
			notClean = append(notClean, c)
		}
	}
	return f.Played, notClean
}

var nonWord = regexp.MustCompile(`[^a-zA-Z0-9]+`)

var fenceLine = regexp.MustCompile("^(`{3,}|~{3,})")

// sampleText reads the text of a real sample: its first line names the
// source and is dropped, and its blocks are counted as
// engines/internal/samples counts them.
func sampleText(t *testing.T, c cleanSample) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "engines", filepath.FromSlash(c.Sample)))
	if err != nil {
		t.Fatal(err)
	}
	_, text, _ := strings.Cut(string(b), "\n")
	var blocks []string
	if strings.HasSuffix(c.Sample, ".json") {
		var o struct {
			Body string `json:"body"`
		}
		if err := json.Unmarshal([]byte(text), &o); err != nil {
			t.Fatal(err)
		}
		blocks = []string{o.Body}
	} else {
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
	}
	if c.Block < 0 || c.Block >= len(blocks) {
		t.Fatalf("%s has %d blocks", c, len(blocks))
	}
	if c.Line != "" {
		if !strings.Contains(blocks[c.Block], c.Line) {
			t.Fatalf("%s: no line holds %q", c, c.Line)
		}
		return c.Line
	}
	return blocks[c.Block]
}

// playCleanSample plays c through its template: the engine flags one
// bug, the loop fixes it and pushes, and the engine's review of the new
// head is the real sample (its commits replaced by the scenario's), which
// the engine must have posted by the end.
func playCleanSample(t *testing.T, self string, c cleanSample) Result {
	t.Helper()
	engine, file, _ := strings.Cut(c.Sample, "/")
	post, ok := cleanPosts[c.Post]
	if !ok || c.Reason != "" {
		t.Fatalf("%s: post %q (a played text is posted as review, check, walkthrough or comment, with no reason)", c, c.Post)
	}
	sc, err := sim.LoadScenario(filepath.Join(scenarioDir(t), c.Template+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := sampleText(t, c)
	for i, sha := range c.Shas {
		ph := sim.PlaceholderFrom
		if i == len(c.Shas)-1 {
			ph = sim.PlaceholderHead
		}
		text = strings.ReplaceAll(text, sha, ph)
	}
	e := sc.Engines[engine]
	if len(e.Rounds) < 2 {
		t.Fatalf("template %s has no second round for %s", c.Template, engine)
	}
	e.Rounds = append([]sim.Round(nil), e.Rounds...)
	post(&e.Rounds[1], text)
	e.Default = &e.Rounds[1]
	sc.Engines[engine] = e
	sc.Expect.EnginePosted = append(sc.Expect.EnginePosted, text)
	sc.Name = fmt.Sprintf("clean-sample-%s-%s-%d", engine, strings.ToLower(nonWord.ReplaceAllString(strings.TrimSuffix(file, filepath.Ext(file)), "-")), c.Block)
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{Self: []string{self}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRule_S10_EveryRealCleanSampleEndsTheLoopClean plays each real clean
// review of testdata/engines/clean.yaml end to end through the simulated
// engine and the fake GitHub, after a fix push. Every one ends the loop
// clean.
func TestRule_S10_EveryRealCleanSampleEndsTheLoopClean(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	played, _ := cleanSamples(t)
	for _, c := range played {
		t.Run(fmt.Sprintf("%s#%d", c.Sample, c.Block), func(t *testing.T) {
			t.Parallel()
			engine, _, _ := strings.Cut(c.Sample, "/")
			res := playCleanSample(t, self, c)
			if res.Outcome.EndReason != "clean" || res.Outcome.Verdicts[engine] != "CLEAN" || len(res.Problems) > 0 {
				t.Errorf("the real clean review %s played after a fix push: end reason %q, %s %s; want clean\n%s\n%s",
					c, res.Outcome.EndReason, engine, res.Outcome.Verdicts[engine], strings.Join(res.Problems, "\n"), res.Report)
			}
		})
	}
}

// TestRule_S10_ExcludedTextsPlayedDoNotEndClean plays the texts
// clean.yaml excludes with a post and a template (reviews with findings,
// walkthroughs of a paused or running review) the same way: each must
// not end the loop clean (that would be a false CLEAN, RULES S8), so the
// reason given for leaving it out is shown, not only stated.
func TestRule_S10_ExcludedTextsPlayedDoNotEndClean(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, notClean := cleanSamples(t)
	if len(notClean) == 0 {
		t.Fatal("clean.yaml plays no excluded text")
	}
	for _, c := range notClean {
		t.Run(fmt.Sprintf("%s#%d", c.Sample, c.Block), func(t *testing.T) {
			t.Parallel()
			engine, _, _ := strings.Cut(c.Sample, "/")
			res := playCleanSample(t, self, c)
			t.Logf("%s: end reason %q, %s %s", c, res.Outcome.EndReason, engine, res.Outcome.Verdicts[engine])
			if res.Outcome.EndReason == "clean" || res.Outcome.Verdicts[engine] == "CLEAN" || slices.ContainsFunc(res.Problems, func(p string) bool { return strings.Contains(p, "no engine posted") }) {
				t.Errorf("%s, excluded from the clean texts, played after a fix push: end reason %q, %s %s; want no clean end, the text posted\n%s",
					c, res.Outcome.EndReason, engine, res.Outcome.Verdicts[engine], strings.Join(res.Problems, "\n"))
			}
		})
	}
}

// A played text its template never posts proves nothing: CodeRabbit's
// clean incremental review posts no review object, so a review body put
// into that round is never seen, and the play must say so rather than
// pass on the template's own clean.
func TestRule_S10_ACleanSampleItsTemplateNeverPostsFailsThePlay(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res := playCleanSample(t, self, cleanSample{
		Sample: "coderabbit/08-review-body-outside-diff-duplicates-nitpicks-exstruct.md", Block: 0,
		Post: "review", Template: "s10-coderabbit-clean-incremental-review-posts-no-review-object",
	})
	if !slices.ContainsFunc(res.Problems, func(p string) bool { return strings.Contains(p, "no engine posted the text") }) {
		t.Errorf("a review body the round never posts: problems %q, want one saying no engine posted it", res.Problems)
	}
}
