package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines/internal/samples"
)

// cleanText is one text of testdata/engines/clean.yaml: a real clean
// review that internal/scenario plays end to end after a fix push
// (played), or one that is no clean review of a pull request's head
// (excluded, with its reason).
type cleanText struct {
	Sample   string   `yaml:"sample"`
	Block    int      `yaml:"block"`
	Line     string   `yaml:"line"`
	Post     string   `yaml:"post"`
	Template string   `yaml:"template"`
	Shas     []string `yaml:"shas"`
	Reason   string   `yaml:"reason"`
}

type cleanTexts struct {
	Played   []cleanText `yaml:"played"`
	Excluded []cleanText `yaml:"excluded"`
}

func (c cleanText) String() string {
	s := fmt.Sprintf("%s block %d", c.Sample, c.Block)
	if c.Line != "" {
		s += fmt.Sprintf(" line %q", c.Line)
	}
	return s
}

func loadCleanTexts(t *testing.T) cleanTexts {
	t.Helper()
	path := filepath.Join(filepath.Dir(samples.Dir(t, "bugbot")), "clean.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ct cleanTexts
	if err := yaml.UnmarshalWithOptions(b, &ct, yaml.Strict()); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ct
}

// declaredClean reports whether the S9 table declares a text a clean
// review: a finished review (by an allow-listed kind or by structure)
// that states no open finding — a count of 0, or no count, where the
// judge (J1) or the inline comments decide — or a text that can prove a
// clean review only by structure (S10): one that states 0 findings, or a
// CodeRabbit walkthrough, whose recent-review block naming the head is
// all a clean incremental review leaves.
func declaredClean(mn meaning) bool {
	if mn.quota || mn.block < 0 {
		return false
	}
	switch mn.verdict {
	case finished, structural:
		return mn.stated <= 0
	case notProof:
		return mn.stated == 0 || mn.kind == "walkthrough"
	}
	return false
}

// The ways a played text is posted (internal/scenario maps each onto the
// simulated engine's round).
var cleanPosts = []string{"review", "check", "walkthrough", "comment"}

// TestRule_S10_EveryCleanSampleIsPlayedOrExcluded makes issue 32's
// property hold by construction: every text the S9 table declares a
// clean review is in testdata/engines/clean.yaml, either played end to
// end by internal/scenario or excluded with its reason, and every text
// there is one the table and the adapters read as the file says.
func TestRule_S10_EveryCleanSampleIsPlayedOrExcluded(t *testing.T) {
	ct := loadCleanTexts(t)
	ps := provers(t)
	type id struct {
		sample string
		block  int
		line   string
	}
	listed := map[id]string{}
	check := func(c cleanText, list string) (meaning, bool) {
		k := id{c.Sample, c.Block, c.Line}
		if prev, dup := listed[k]; dup {
			t.Errorf("clean.yaml: %s is listed twice (%s and %s)", c, prev, list)
		}
		listed[k] = list
		i := slices.IndexFunc(meanings[c.Sample], func(mn meaning) bool { return mn.block == c.Block })
		if i < 0 {
			t.Errorf("clean.yaml %s: %s is no text of the S9 table", list, c)
			return meaning{}, false
		}
		return meanings[c.Sample][i], true
	}
	for _, c := range ct.Played {
		mn, ok := check(c, "played")
		if !ok {
			continue
		}
		if !slices.Contains(cleanPosts, c.Post) {
			t.Errorf("clean.yaml played %s: post %q, want one of %v", c, c.Post, cleanPosts)
		}
		if c.Template == "" || c.Reason != "" {
			t.Errorf("clean.yaml played %s: a played text names its scenario template and gives no reason", c)
		}
		if mn.quota || (mn.verdict != finished && mn.verdict != structural && mn.verdict != notProof) {
			t.Errorf("clean.yaml played %s: the S9 table reads it as %s (quota %v), no review", c, mn.verdict, mn.quota)
			continue
		}
		engine, name, _ := strings.Cut(c.Sample, "/")
		text := texts(t, samples.Get(t, samples.Load(t, engine), name))[c.Block]
		if c.Line != "" {
			if !strings.Contains(text, c.Line) {
				t.Errorf("clean.yaml played %s: the block has no such line", c)
				continue
			}
			text = c.Line
		}
		for _, sha := range c.Shas {
			if !strings.Contains(text, sha) {
				t.Errorf("clean.yaml played %s: the text names no commit %s", c, sha)
			}
		}
		if r := ps[engine].Classify(mn.surface, text); r.Quota || r.Stated > 0 {
			t.Errorf("clean.yaml played %s: the %s adapter reads %+v on %s, no clean review", c, engine, r, mn.surface)
		}
	}
	for _, c := range ct.Excluded {
		mn, ok := check(c, "excluded")
		if !ok {
			continue
		}
		if strings.TrimSpace(c.Reason) == "" || (c.Post == "") != (c.Template == "") || c.Line != "" {
			t.Errorf("clean.yaml excluded %s: an excluded text gives its reason, and a post and a template to play it not clean, or neither", c)
		}
		if c.Post != "" && !slices.Contains(cleanPosts, c.Post) {
			t.Errorf("clean.yaml excluded %s: post %q, want one of %v", c, c.Post, cleanPosts)
		}
		if !declaredClean(mn) {
			t.Errorf("clean.yaml excluded %s: the S9 table does not declare it a clean review; drop it from the list", c)
		}
	}
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range meanings {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, mn := range meanings[key] {
			if !declaredClean(mn) {
				continue
			}
			if _, ok := listed[id{key, mn.block, ""}]; !ok {
				t.Errorf("%s block %d: the S9 table reads it as a possible clean review (%s, kind %s, stated %d), which testdata/engines/clean.yaml neither plays nor excludes with a reason",
					key, mn.block, mn.verdict, mn.kind, mn.stated)
			}
		}
	}
}
