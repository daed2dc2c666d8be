package triage

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// needles are strings one of which every match of a regular expression
// contains, compared case-folded (foldCase): a text that holds none of
// them cannot match, and the expression is not run on it. Matching a
// title against the catalogue's ten expressions was most of triage's
// time; most titles hold none of a pattern's words. A nil needles
// filters nothing.
type needles []string

// maxNeedles caps the strings worked out for one part of an expression
// (the product of a few alternations or small classes).
const maxNeedles = 64

// needlesOf works out the needles of expr, parsed as regexp.Compile
// parses it; nil when none can be given (an expression that can match
// the empty string or any character, or one too large to enumerate).
func needlesOf(expr string) needles {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	n := analyse(re.Simplify())
	if !n.ok || slices.Contains(n.req, "") {
		return nil
	}
	// A needle that holds another is found only where the other is.
	var out needles
	for _, s := range n.req {
		if !slices.ContainsFunc(n.req, func(t string) bool { return t != s && strings.Contains(s, t) }) {
			out = append(out, s)
		}
	}
	return out
}

// mayMatch reports whether folded (a text after foldCase) holds one of
// the needles.
func (n needles) mayMatch(folded string) bool {
	return n == nil || slices.ContainsFunc(n, func(s string) bool { return strings.Contains(folded, s) })
}

// part is what analyse knows of a subexpression: exact, when not nil, is
// every string it can match (folded); req, when ok, holds one string
// every match of it contains.
type part struct {
	exact []string
	req   []string
	ok    bool
}

func exactPart(s []string) part { return part{exact: s, req: s, ok: true} }

func analyse(re *syntax.Regexp) part {
	switch re.Op {
	case syntax.OpLiteral:
		return exactPart([]string{foldCase(string(re.Rune))})
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactPart([]string{""})
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= maxNeedles {
				return part{}
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if s := foldCase(string(r)); !slices.Contains(set, s) {
					set = append(set, s)
				}
			}
			if len(set) > maxNeedles {
				return part{}
			}
		}
		if len(set) == 0 {
			return part{}
		}
		return exactPart(set)
	case syntax.OpCapture:
		return analyse(re.Sub[0])
	case syntax.OpPlus:
		sub := analyse(re.Sub[0])
		return part{req: sub.req, ok: sub.ok}
	case syntax.OpRepeat:
		if re.Min < 1 {
			return part{}
		}
		sub := analyse(re.Sub[0])
		return part{req: sub.req, ok: sub.ok}
	case syntax.OpQuest:
		sub := analyse(re.Sub[0])
		if sub.exact == nil || len(sub.exact)+1 > maxNeedles {
			return part{}
		}
		if slices.Contains(sub.exact, "") {
			return part{exact: sub.exact}
		}
		return part{exact: append(slices.Clone(sub.exact), "")}
	case syntax.OpAlternate:
		var exact, req []string
		allExact, allOK := true, true
		for _, s := range re.Sub {
			p := analyse(s)
			if p.exact == nil {
				allExact = false
			} else {
				exact = union(exact, p.exact)
			}
			if !p.ok {
				allOK = false
			} else {
				req = union(req, p.req)
			}
		}
		out := part{}
		if allExact && len(exact) <= maxNeedles {
			out.exact = exact
		}
		if allOK && len(req) <= maxNeedles {
			out.req, out.ok = req, true
		}
		return out
	case syntax.OpConcat:
		return analyseConcat(re.Sub)
	}
	// OpStar, OpAnyChar, OpAnyCharNotNL, OpNoMatch: nothing is required.
	return part{}
}

// analyseConcat joins each run of exact parts into their products, and
// picks as required the run or part whose shortest string is longest:
// every match of the concatenation holds a match of each of them.
func analyseConcat(subs []*syntax.Regexp) part {
	var best []string
	bestOK := false
	consider := func(set []string) {
		if !bestOK || shortest(set) > shortest(best) {
			best, bestOK = set, true
		}
	}
	run := []string{""}
	allExact := true
	for _, s := range subs {
		p := analyse(s)
		if p.exact != nil {
			if prod := product(run, p.exact); prod != nil {
				run = prod
				continue
			}
			// Too many strings: the run so far stands alone, and a new
			// one starts with this part.
			consider(run)
			allExact = false
			run = p.exact
			continue
		}
		allExact = false
		consider(run)
		run = []string{""}
		if p.ok {
			consider(p.req)
		}
	}
	consider(run)
	out := part{req: best, ok: bestOK}
	if allExact {
		out.exact = run
	}
	return out
}

// product is every a+b, nil when there would be more than maxNeedles.
func product(as, bs []string) []string {
	if len(as)*len(bs) > maxNeedles {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			if s := a + b; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

func shortest(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// foldCase maps every character to the smallest of the characters
// case-insensitive matching takes for it (unicode.SimpleFold's orbit, as
// (?i) does: k, K and the Kelvin sign all become K). A byte that is not
// UTF-8 becomes U+FFFD, as the matcher reads it.
func foldCase(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func foldRune(r rune) rune {
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	return min
}
