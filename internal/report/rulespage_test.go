package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRule_S4_EveryLinkedRuleIDHasItsEntry: the status comment links rule
// ids to docs/rules.md#<id>; every id the loop's messages cite, and every
// id the linker can match, must have its heading there, with a sentence.
func TestRule_S4_EveryLinkedRuleIDHasItsEntry(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]string{}
	parts := regexp.MustCompile(`(?m)^### ([A-Z]+[0-9]+)\n`).Split(string(page), -1)
	ids := regexp.MustCompile(`(?m)^### ([A-Z]+[0-9]+)\n`).FindAllStringSubmatch(string(page), -1)
	for i, m := range ids {
		entries[m[1]] = strings.TrimSpace(strings.SplitN(parts[i+1], "\n## ", 2)[0])
	}
	for id, text := range entries {
		if !ruleIDRe.MatchString(id) || ruleIDRe.FindString(id) != id {
			t.Errorf("heading %s is not matched by the linker", id)
		}
		if !strings.HasSuffix(text, ".") || len(strings.Fields(text)) < 6 {
			t.Errorf("entry %s does not state its rule in a sentence: %q", id, text)
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "loop", "*.go"))
	cited := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`"[^"\n]*"`).FindAllString(string(b), -1) {
			for _, id := range ruleIDRe.FindAllString(m, -1) {
				cited[id] = true
			}
		}
	}
	if len(cited) < 10 {
		t.Fatalf("found only %d rule ids in internal/loop's messages; the scan is broken", len(cited))
	}
	for id := range cited {
		if _, ok := entries[id]; !ok {
			t.Errorf("internal/loop cites %s, which docs/rules.md does not state", id)
		}
	}
	for _, want := range []string{"W1", "TR2", "B5", "H9", "TB6", "IN7", "SC5"} {
		if !slices.Contains(keys(entries), want) {
			t.Errorf("docs/rules.md lacks %s", want)
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
