package builtin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines"
)

// S12: the built-in Go engines' proof and exception words live in their
// definitions under engines/defs/, each proof kind the adapter accepts
// with the same surface and real sample, and no longer in Go: the
// adapters read structure, the definitions read words.
func TestRule_S12_TheGoEnginesWordsLiveInTheirDefinitions(t *testing.T) {
	r, err := Registry(Options{})
	if err != nil {
		t.Fatal(err)
	}
	texts, err := engines.BuiltinTexts()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bugbot", "copilot", "claude"} {
		e, _ := r.Lookup(name)
		pv, ok := e.(engines.Prover)
		if !ok {
			t.Fatalf("%s is no Prover", name)
		}
		for _, k := range pv.ProofKinds() {
			if k.Kind == "plugin-inline" {
				continue // proof by structure: an inline comment posted during the run
			}
			found := false
			for _, p := range texts[name] {
				if p.Class == engines.TextProof && p.Kind == k.Kind && p.Surface == string(k.Surface) && p.Sample == k.Sample {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: proof kind %s (%s, %s) has no proof text in engines/defs/%s.yaml", name, k.Kind, k.Surface, k.Sample, name)
			}
		}
		// The words themselves are in no string of the adapter's Go code.
		files, _ := filepath.Glob(filepath.Join("..", name, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			lits := stringLiterals(t, f)
			for _, words := range []string{"reviewed your changes", "usage limit", "quota limit", "Stale Bugbot comment",
				"Claude finished", "Claude encountered an error", "Code review found", "encountered an error",
				"this PR is being reviewed", "Claude Code is working", "changed files in this pull request"} {
				if strings.Contains(lits, words) {
					t.Errorf("%s still reads the words %q in Go; they belong in engines/defs/%s.yaml", f, words, name)
				}
			}
		}
	}
}

// S12: the texts are checked like a repository-defined engine: every
// problem is reported, naming its field.
func TestRule_S12_EngineTextsAreSchemaChecked(t *testing.T) {
	doc := `engine_texts:
  bugbot:
    proof:
      - kind: review-clean
        surface: review
        pattern: 'found no new issues'
      - kind: review-clean
        surface: review
        pattern: '('
        sample: bugbot/04-review-summary-bodies.md
    quota:
      - just a phrase
      - kind: limit
        surface: everywhere
        pattern: 'limit'
        colour: red
    sleepy:
      - kind: nap
        pattern: 'zz'
`
	_, err := engines.ParseEngineTexts([]byte(doc), engines.OriginBuiltin)
	if err == nil {
		t.Fatal("bad built-in texts were accepted")
	}
	for _, want := range []string{
		"engine_texts.bugbot.proof[0]: a finished-review kind names its surface and its real sample (S9)",
		`engine_texts.bugbot.proof[1].kind: "review-clean" appears twice`,
		`engine_texts.bugbot.proof[1].pattern: invalid regular expression "("`,
		"engine_texts.bugbot.quota[0]: a built-in text is a pattern with its kind and surface",
		`engine_texts.bugbot.quota[1].surface: "everywhere" is not one of`,
		"engine_texts.bugbot.quota[1].colour: unknown field",
		"engine_texts.bugbot.sleepy: unknown class",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// A repository's phrase is fine; an empty or multi-line one is not.
	if _, err := engines.ParseEngineTexts([]byte("engine_texts:\n  bugbot:\n    quota: [\"Bugbot is out of credits\"]\n"), engines.OriginRepository); err != nil {
		t.Fatalf("a repository phrase was refused: %v", err)
	}
	if _, err := engines.ParseEngineTexts([]byte("engine_texts:\n  bugbot:\n    quota: [\"\", \"a\\nb\"]\n"), engines.OriginRepository); err == nil ||
		!strings.Contains(err.Error(), "quota[0]: empty phrase") || !strings.Contains(err.Error(), "quota[1]: a phrase is one line") {
		t.Fatalf("bad phrases: %v", err)
	}
}

// stringLiterals is every string literal of a Go file, one per line.
func stringLiterals(t *testing.T, file string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	ast.Inspect(f, func(n ast.Node) bool {
		if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
			b.WriteString(l.Value + "\n")
		}
		return true
	})
	return b.String()
}
