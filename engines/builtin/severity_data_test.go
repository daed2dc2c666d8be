package builtin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/loop"
)

// EQ3: the Go engines' severity words live in their definitions under
// engines/defs/, as data, like the declarative engines' severity_markers:
// no adapter maps a word to the scale in Go.
func TestRule_EQ3_TheGoEnginesSeverityWordsLiveInTheirDefinitions(t *testing.T) {
	for _, name := range []string{"bugbot", "copilot", "claude"} {
		files, _ := filepath.Glob(filepath.Join("..", name, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files for %s", name)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			// No word of a severity in a string: the words are data.
			lits := stringLiterals(t, f)
			for _, words := range []string{"🔴", "🟡", "🟣", "🟠", "🔵", "Important", "Pre-existing", `severity\s`, `Severity\s`, "critical|high", "high|medium"} {
				if strings.Contains(lits, words) {
					t.Errorf("%s still reads the severity words %q in Go; they belong in engines/defs/%s.yaml", f, words, name)
				}
			}
			// No place on the scale named in Go: the mapping is data.
			// (SeverityUnknown, what a finding with no stated severity
			// gets, is not a mapping.)
			for _, sel := range scaleSelectors(t, f) {
				t.Errorf("%s maps a severity in Go (loop.%s); the mapping belongs in engines/defs/%s.yaml", f, sel, name)
			}
		}
	}
}

// scaleSelectors is every loop.Severity<Level> a Go file names, but
// SeverityUnknown.
func scaleSelectors(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && x.Name == "loop" && strings.HasPrefix(s.Sel.Name, "Severity") && s.Sel.Name != "Severity" && s.Sel.Name != "SeverityUnknown" {
				out = append(out, s.Sel.Name)
			}
		}
		return true
	})
	return out
}

// EQ3: every severity word the Go engines document is mapped by their
// definition, and the adapter's parser reads it through that definition.
func TestRule_EQ3_TheDefinitionsMapEveryDocumentedSeverityWord(t *testing.T) {
	sev, err := engines.BuiltinSeverityMarkers()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		engine, body string
		want         loop.Severity
		category     string
	}{
		{"bugbot", "### t\n\n**Critical Severity**\n\nbody", loop.SeverityCritical, ""},
		{"bugbot", "### t\n\n**High Severity**\n\nbody", loop.SeverityHigh, ""},
		{"bugbot", "### t\n\n**Medium Severity**\n\nbody", loop.SeverityMedium, ""},
		{"bugbot", "### t\n\n**Low Severity**\n\nbody", loop.SeverityLow, ""},
		{"bugbot", "### t\n\nbody, high severity in prose", loop.SeverityUnknown, ""},
		{"claude", "**🔴 Important**\n\nThe retry loop never stops.", loop.SeverityHigh, "important"},
		{"claude", "🟡 Nit: a name", loop.SeverityLow, "nit"},
		{"claude", "**🟣 Pre-existing**\n\nOlder than this PR.", loop.SeverityLow, "pre-existing"},
		{"claude", "The retry loop never stops. 🔴", loop.SeverityUnknown, ""},
		{"copilot", "P0: the build breaks", loop.SeverityCritical, ""},
		{"copilot", "* P1: missing the suppression rationale", loop.SeverityHigh, ""},
		{"copilot", "P2: slower than needed", loop.SeverityMedium, ""},
		{"copilot", "P3: a name", loop.SeverityLow, ""},
		{"copilot", "The P1: label is in prose", loop.SeverityUnknown, ""},
	}
	for _, c := range cases {
		if len(sev[c.engine]) == 0 {
			t.Fatalf("engines/defs/%s.yaml maps no severity word", c.engine)
		}
		p := parseFinding(t, c.engine, c.body)
		if p.Severity != c.want || p.Category != c.category {
			t.Errorf("%s %q: severity %q, category %q; want %q, %q", c.engine, c.body, p.Severity, p.Category, c.want, c.category)
		}
		if s, cat := sev[c.engine].Read(c.body); s != p.Severity || cat != p.Category {
			t.Errorf("%s %q: the definition reads %q, %q; the adapter %q, %q", c.engine, c.body, s, cat, p.Severity, p.Category)
		}
	}
}

// EQ3: the severity mapping is checked when the definitions load: every
// problem is reported, naming its field, and a severity not on the scale
// is an error.
func TestRule_EQ3_SeverityMarkersAreSchemaChecked(t *testing.T) {
	doc := `engine_severity_markers:
  bugbot:
    - pattern: '(?i)\*\*\s*high\s+severity\s*\*\*'
      severity: urgent
    - pattern: '('
      severity: high
    - pattern: ''
      severity: low
    - pattern: 'x'
      severity: low
      colour: red
      category: "a\nb"
    - pattern: 'y'
      severity: unknown
    - just a word
    - pattern: 'z'
  Bad_Name:
    - pattern: 'x'
      severity: low
  claude: 🔴
`
	_, err := engines.ParseSeverityMarkers([]byte(doc))
	if err == nil {
		t.Fatal("a bad severity mapping was accepted")
	}
	for _, want := range []string{
		`engine_severity_markers.bugbot[0].severity: "urgent" is not on the scale (critical, high, medium, low)`,
		`engine_severity_markers.bugbot[1].pattern: invalid regular expression "("`,
		`engine_severity_markers.bugbot[2].pattern: empty`,
		`engine_severity_markers.bugbot[3].colour: unknown field (known: pattern, severity, category)`,
		`engine_severity_markers.bugbot[3].category: "a\nb" must be lower-case letters, digits and dashes`,
		`engine_severity_markers.bugbot[4].severity: "unknown" is not on the scale`,
		`engine_severity_markers.bugbot[5]: a marker ({pattern, severity, category})`,
		`engine_severity_markers.bugbot[6].severity: missing (one of critical, high, medium, low)`,
		`engine_severity_markers.Bad_Name: an engine name is lower-case letters, digits and dashes`,
		`engine_severity_markers.claude: a list of markers`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// The built-in definitions load and pass the same check.
	if _, err := engines.BuiltinSeverityMarkers(); err != nil {
		t.Fatal(err)
	}
}

// EQ3: the mapping is documented where a user looks, and the documents
// say what the data says: each Go engine's "Severity (clean-at)" section
// names the definition that holds it, and every row of its table is read
// by the adapter, through that definition, as the row says.
func TestRule_EQ3_TheSeverityDocsSayWhatTheDefinitionsSay(t *testing.T) {
	body := map[string]func(string) string{
		"bugbot":  func(w string) string { return "### t\n\n**" + w + "**\n\nbody" },
		"claude":  func(w string) string { return "**" + w + "**\n\nbody" },
		"copilot": func(w string) string { return strings.Trim(w, "`") + " body" },
	}
	row := regexp.MustCompile(`(?m)^\| ([^|]+?) \| (critical|high|medium|low) \|$`)
	for _, name := range []string{"bugbot", "claude", "copilot"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "engines", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		_, sec, ok := strings.Cut(string(b), "## Severity (clean-at)")
		if !ok {
			t.Errorf("docs/engines/%s.md has no Severity (clean-at) section", name)
			continue
		}
		if i := strings.Index(sec, "\n## "); i >= 0 {
			sec = sec[:i]
		}
		if !strings.Contains(sec, "`engines/defs/"+name+".yaml`") || !strings.Contains(sec, "`engine_severity_markers`") {
			t.Errorf("docs/engines/%s.md does not say the mapping is in engines/defs/%s.yaml, engine_severity_markers", name, name)
		}
		rows := row.FindAllStringSubmatch(sec, -1)
		if len(rows) == 0 {
			t.Errorf("docs/engines/%s.md has no table of its severity words", name)
		}
		for _, r := range rows {
			if got := parseFinding(t, name, body[name](r[1])).Severity; got != loop.Severity(r[2]) {
				t.Errorf("docs/engines/%s.md says %q is %s; the definition reads %q", name, r[1], r[2], got)
			}
		}
	}
}
