package triage

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

const suggestionBody = "Use the constant.\n```suggestion\n\tx := base\n```"

func finding(id string, mod func(*loop.Finding)) loop.Finding {
	f := loop.Finding{ID: id, Engine: "copilot", CommentID: 7, Path: "internal/app/a.go", Line: 3, Title: "Magic number 20 should be a constant", Body: "plain prose"}
	if mod != nil {
		mod(&f)
	}
	return f
}

func classifyOne(t *testing.T, f loop.Finding, in Inputs) Row {
	t.Helper()
	tab := Classify([]loop.Finding{f}, in)
	if len(tab.Rows) != 1 {
		t.Fatalf("%d rows", len(tab.Rows))
	}
	return tab.Rows[0]
}

func TestRule_TR1_Tier1NeedsPatternOneFileAndATargetedTest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    loop.Finding
		in   Inputs
		want Tier
	}{
		{"a codified single-file finding with a test command is Tier 1", finding("a", nil), Inputs{TestCommand: true}, Tier1},
		{"a suggestion block on one file counts as codified", finding("b", func(f *loop.Finding) { f.Title = "Consider this"; f.Body = suggestionBody }), Inputs{TestCommand: true}, Tier1},
		{"without a test command a codified finding is not Tier 1", finding("c", nil), Inputs{}, Tier2},
		{"a codified finding in a shared helper is Tier 2", finding("d", func(f *loop.Finding) { f.Path = "internal/util/x.go" }), Inputs{TestCommand: true}, Tier2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := classifyOne(t, tc.f, tc.in); got.Tier != tc.want {
				t.Fatalf("tier %d (%s), want %d", got.Tier, got.Reason, tc.want)
			}
		})
	}
}

func TestRule_TR2_UncodifiedFindingsWaitForApprovalAndCarryTheDirection(t *testing.T) {
	t.Parallel()
	f := finding("x", func(f *loop.Finding) { f.Title = "Possible data race on the cache map"; f.Severity = loop.SeverityHigh })
	r := classifyOne(t, f, Inputs{TestCommand: true})
	if r.Tier != Tier2 || r.Outcome != OutcomeApprovedPending || r.Approved {
		t.Fatalf("unapproved: %+v", r)
	}
	tab := Classify([]loop.Finding{f}, Inputs{TestCommand: true, Approvals: map[string]string{"x": " guard it with a mutex "}})
	r = tab.Rows[0]
	if r.Outcome != OutcomePending || !r.Approved || r.Direction != "guard it with a mutex" {
		t.Fatalf("approved: %+v", r)
	}
	if ids := tab.Fixable(); len(ids) != 1 || ids[0] != "x" {
		t.Fatalf("Fixable = %v", ids)
	}
}

func TestRule_TR3_Escalations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		mod  func(*loop.Finding)
		why  string
	}{
		{"a cross-file finding escalates", func(f *loop.Finding) { f.Locations = []string{"a.go#L1-L2", "b.go#L3-L4"} }, "cross-file"},
		{"two locations in one file are not cross-file", func(f *loop.Finding) {
			f.Path = ".github/workflows/ci.yml"
			f.Locations = []string{".github/workflows/ci.yml#L1", ".github/workflows/ci.yml#L9"}
		}, "workflows"},
		{"an architectural finding escalates", func(f *loop.Finding) { f.Title = "This layering is an architectural problem" }, "architectural"},
		{"a withdrawn finding escalates", func(f *loop.Finding) { f.Withdrawn = true }, "withdrawn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := classifyOne(t, finding("e", tc.mod), Inputs{TestCommand: true})
			if r.Tier != Tier3 || r.Outcome != OutcomeEscalated || !strings.Contains(r.Reason, tc.why) {
				t.Fatalf("%+v", r)
			}
		})
	}
}

func TestRule_TR4_EveryFixableFindingHasAOneSentenceJustification(t *testing.T) {
	t.Parallel()
	r := classifyOne(t, finding("a", nil), Inputs{TestCommand: true})
	if r.Justification == "" || strings.Count(r.Justification, ". ") > 0 || !strings.HasSuffix(r.Justification, ".") || !strings.Contains(r.Justification, "Magic number 20") {
		t.Fatalf("justification %q", r.Justification)
	}
	r = classifyOne(t, finding("b", func(f *loop.Finding) { f.Title = ""; f.Body = "hmm" }), Inputs{TestCommand: true})
	if r.Tier != Tier3 || !strings.Contains(r.Reason, "TR4") {
		t.Fatalf("a finding without a justification must drop to Tier 3: %+v", r)
	}
}

func TestRule_TR5_TheTableHasOneRowPerFindingWithItsOutcome(t *testing.T) {
	t.Parallel()
	fs := []loop.Finding{
		finding("one", nil),
		finding("two", func(f *loop.Finding) { f.Outdated = true }),
		finding("three", func(f *loop.Finding) { f.Withdrawn = true }),
		finding("four", nil),
	}
	tab := Classify(fs, Inputs{TestCommand: true, Skips: map[string]bool{"four": true}})
	want := []Outcome{OutcomePending, OutcomeOutdated, OutcomeEscalated, OutcomeSkipped}
	for i, r := range tab.Rows {
		if r.FindingID != fs[i].ID || r.Engine != "copilot" || r.CommentID != 7 || r.Outcome != want[i] {
			t.Errorf("row %d = %+v, want outcome %s", i, r, want[i])
		}
	}
}

func TestRule_TR6_CopilotOnlyModeGivesFixOutdatedOrDisagree(t *testing.T) {
	t.Parallel()
	fs := []loop.Finding{
		finding("fix", nil),
		finding("old", func(f *loop.Finding) { f.Outdated = true; f.OriginalCommit = "abcdef123456"; f.OriginalLine = 9 }),
		finding("no", nil),
		finding("moved", nil),
		finding("bare", nil),
	}
	tab := Classify(fs, Inputs{TestCommand: true, CopilotOnly: true, Verdicts: map[string]FixerVerdict{
		"no":    {Verdict: VerdictDisagree, Reply: "The value is already a named constant in config.go."},
		"moved": {Verdict: VerdictOutdated},
		"bare":  {Verdict: VerdictDisagree},
	}})
	want := []CopilotVerdict{VerdictFix, VerdictOutdated, VerdictDisagree, VerdictOutdated, VerdictFix}
	for i, r := range tab.Rows {
		if r.Verdict != want[i] {
			t.Errorf("%s: verdict %s, want %s", r.FindingID, r.Verdict, want[i])
		}
		if (r.Verdict == VerdictOutdated || r.Verdict == VerdictDisagree) && r.Reply == "" {
			t.Errorf("%s: no grounded reply", r.FindingID)
		}
	}
	if r := tab.Rows[1]; !strings.Contains(r.Reply, "internal/app/a.go line 9 at abcdef1") {
		t.Errorf("outdated reply not grounded: %q", r.Reply)
	}
}

func TestRule_W2_CategoriesAreStableAcrossRewording(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a, b loop.Finding
	}{
		{"two wordings of a missing nil check share a category",
			finding("1", func(f *loop.Finding) { f.Title = "Missing nil check before dereference" }),
			finding("2", func(f *loop.Finding) { f.Title = "Add a nil check: pointer may be nil" })},
		{"cosmetic prose nits are one category per engine",
			finding("1", func(f *loop.Finding) { f.Title = "Typo in comment: recieve" }),
			finding("2", func(f *loop.Finding) { f.Path = "CHANGELOG.md"; f.Title = "Reword this entry" })},
		{"bugbot's stable id is the identity when nothing else matches",
			finding("1", func(f *loop.Finding) { f.Engine = "bugbot"; f.Key = "u-1"; f.Title = "Wrong state after retry" }),
			finding("2", func(f *loop.Finding) { f.Engine = "bugbot"; f.Key = "u-1"; f.Title = "State is wrong once retried" })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if a, b := Category(tc.a), Category(tc.b); a != b {
				t.Fatalf("%q != %q", a, b)
			}
		})
	}
	if got := Category(finding("1", func(f *loop.Finding) { f.Title = "Fix the wording of this sentence" })); got != "copilot:cosmetic-prose" {
		t.Fatalf("got %q", got)
	}
	g := Category(finding("1", func(f *loop.Finding) { f.Engine = "gemini"; f.Title = "Typo in comment" }))
	if g != "gemini:cosmetic-prose" {
		t.Fatalf("got %q", g)
	}
}

func TestRule_TR1_RepositoryPatternsExtendTheCatalogue(t *testing.T) {
	t.Parallel()
	doc := []byte(`engines: [copilot]
patterns:
  - id: sql-quote
    body_regex: 'unquoted identifier'
    tier1: true
    justification: 'Unquoted identifiers break on reserved words: {title}.'
other: {x: 1}
`)
	c, err := LoadCatalogue(doc)
	if err != nil {
		t.Fatal(err)
	}
	f := finding("q", func(f *loop.Finding) { f.Title = "Quote it"; f.Body = "An unquoted identifier here" })
	r := classifyOne(t, f, Inputs{Catalogue: c, TestCommand: true})
	if r.PatternID != "sql-quote" || r.Tier != Tier1 || r.Category != "sql-quote" {
		t.Fatalf("%+v", r)
	}
}

func TestBadPatternFilesNameTheField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, want string }{
		{"a bad regular expression names its field", "patterns:\n  - {id: a, justification: x, title_regex: 'x'}\n  - {id: b, justification: x, title_regex: 'y'}\n  - {id: c, justification: x, title_regex: '(unclosed'}\n", "patterns[2].title_regex: error parsing regexp"},
		{"an unknown field is named", "patterns:\n  - {id: a, justification: x, markers: [m], colour: red}\n", "patterns[0].colour: unknown field"},
		{"a missing justification is named", "patterns:\n  - {id: a, markers: [m]}\n", "patterns[0].justification: required"},
		{"a pattern that matches nothing is refused", "patterns:\n  - {id: a, justification: x}\n", "patterns[0]: needs markers"},
		{"a bad severity is named", "patterns:\n  - {id: a, justification: x, markers: [m], severity: [huge]}\n", "patterns[0].severity[0]"},
		{"patterns must be a list", "patterns: 3\n", "patterns: must be a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadCatalogue([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTheBuiltinCatalogueMatchesCommonFindings(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"Error returned by Close is ignored":            "unchecked-error",
		"Wrap the error with context":                   "error-wrap",
		"Unused variable `tmp`":                         "unused-symbol",
		"Off-by-one in loop bound":                      "off-by-one",
		"File handle is never closed (missing defer)":   "resource-leak",
		"Typo in identifier name `recieveMessage`":      "identifier-typo",
		"Possible nil pointer dereference on resp.Body": "nil-check",
	} {
		if p := Builtin().Match(finding("x", func(f *loop.Finding) { f.Title = title })); p == nil || p.ID != want {
			t.Errorf("%q matched %v, want %s", title, p, want)
		}
	}
}
