package evidence_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/builtin"
	"github.com/review-loop/review-loop/internal/evidence"
	"github.com/review-loop/review-loop/internal/github"
)

// defaultSetClaim is the sentence of an engine page about the default
// engine set, up to its end.
var defaultSetClaim = regexp.MustCompile(`(?s)[^.]*default engine set.*?\.(?:\s|$)`)

// TestDocs_EnginePagesSayWhenTheCodePutsAnEngineInTheDefaultSet: the code
// puts no engine in the default set without evidence (IN2): on a
// repository that shows nothing, every built-in engine is left out. So
// each engine's guide says it joins the default set "only once the
// repository shows it", names every config file that counts for it, and
// never says it is always in the set.
func TestDocs_EnginePagesSayWhenTheCodePutsAnEngineInTheDefaultSet(t *testing.T) {
	t.Parallel()
	reg, err := builtin.Registry(builtin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	empty := &github.Observation{Number: 1}
	ev := evidence.Local(reg, empty, nil, engines.Env{})
	for _, name := range []string{"bugbot", "claude", "coderabbit", "copilot", "gemini"} {
		if _, ok := reg.Lookup(name); !ok {
			t.Fatalf("no built-in engine %s", name)
		}
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "engines", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		claims := defaultSetClaim.FindAllString(string(b), -1)
		if len(claims) == 0 {
			t.Errorf("docs/engines/%s.md says nothing of when %s is in the default engine set", name, name)
			continue
		}
		for _, c := range claims {
			c = strings.Join(strings.Fields(c), " ")
			if ev[name] == "" && (strings.Contains(c, "always") || !strings.Contains(c, "only once the repository shows it")) {
				t.Errorf("docs/engines/%s.md: %q; the code leaves %s out of the default set until the repository shows it (IN2)", name, c, name)
			}
			for _, f := range evidence.ConfigFiles(name) {
				if !strings.Contains(c, "`"+f+"`") {
					t.Errorf("docs/engines/%s.md: %q does not name `%s`, which puts %s in the default set", name, c, f, name)
				}
			}
		}
	}
}
