package triage

import (
	"regexp"
	"testing"
)

// TR1, C1: the needles of an expression never turn away a text it
// matches, whatever the expression (with (?i), as the catalogue compiles
// it, and without) and the text.
func FuzzNeedlesNeverHideAMatch(f *testing.F) {
	for _, p := range Builtin().Patterns {
		if p.titleRe != nil {
			f.Add(p.titleRe.String()[len("(?i)"):], "Possible nil pointer dereference on resp.Body")
		}
	}
	for _, s := range [][2]string{
		{`off[- ]by[- ]one`, "OFF-BY one"}, {`kelvin`, "\u212aELVIN"}, {`class`, "claſſ"}, {`\xff`, "\xff"},
		{`a\x{FFFD}b`, "a\xffb"}, {`(ab|cd)+x?`, "cdab"}, {`[a-c]{2,3}z`, "ABz"}, {`x*`, ""}, {`^$`, ""},
		{`(?-i:Exact)case`, "ExactCASE"}, {`[^a]b`, "zb"}, {`\bwrap\b.*\berr(or)?\b`, "Wrap the ERROR"},
		{`(?s).`, "\n"}, {`Σ`, "ς"}, {`(?:a|b|c|d|e|f|g|h)(?:a|b|c|d|e|f|g|h)(?:a|b|c|d|e|f|g|h)x`, "hhhx"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, expr, text string) {
		for _, e := range []string{"(?i)" + expr, expr} {
			re, err := regexp.Compile(e)
			if err != nil {
				return
			}
			if n := needlesOf(e); re.MatchString(text) && !n.mayMatch(foldCase(text)) {
				t.Fatalf("%q matches %q, but its needles %q turn it away (folded %q)", e, text, n, foldCase(text))
			}
		}
	})
}

// C1: every title expression of the built-in catalogue, and the
// architectural one, has needles, so a title holding none of their words
// is matched without running them.
func TestRule_C1_TheBuiltinExpressionsHaveNeedles(t *testing.T) {
	t.Parallel()
	for _, p := range Builtin().Patterns {
		if p.titleRe != nil && p.titleNeedles == nil {
			t.Errorf("pattern %s: no needles for %s", p.ID, p.titleRe)
		}
	}
	if architecturalNeedles == nil {
		t.Errorf("no needles for %s", architecturalRe)
	}
	if got := needlesOf(`(?i)\b(nil|null)\b.*\bcheck`); len(got) != 1 || got[0] != "CHECK" {
		t.Errorf("needles of a nil check: %q, want [CHECK]", got)
	}
}
