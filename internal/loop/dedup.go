package loop

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/review-loop/review-loop/internal/markdown"
	"github.com/review-loop/review-loop/internal/state"
)

// SourceRef is one engine comment merged into a finding as the same
// defect (DD1): the fix of the finding answers and resolves its thread too.
type SourceRef struct {
	Engine    string
	ID        string
	CommentID int64
	ThreadID  string
}

// TitleSimilarity is the normalised token similarity (Jaccard) above which
// two titles count as near-identical for DD1. It is deliberately high:
// when unsure, findings stay separate.
const TitleSimilarity = 0.8

// genericCategories are category words engines use for a severity or a
// kind of comment, not for a defect: equal ones prove nothing (DD1).
var genericCategories = map[string]bool{
	"": true, "bug": true, "important": true, "nit": true, "nitpick": true, "pre-existing": true,
	"issue": true, "potential issue": true, "suggestion": true, "refactor": true, "refactor suggestion": true,
	"critical": true, "high": true, "medium": true, "low": true, "minor": true, "major": true,
}

// SameDefect is rule DD1's test of whether a and b are one defect flagged
// by two engines: different engines, the same file, overlapping lines, and
// either the same (specific) normalised category, near-identical titles or
// the same suggested edit. It is symmetric. Findings without a file or a
// line are never merged.
func SameDefect(a, b Finding) bool {
	ka, kb := defectKeyOf(&a), defectKeyOf(&b)
	ka.suggestion(&a)
	kb.suggestion(&b)
	return ka.same(&kb)
}

// defectKey is what DD1 compares of a finding, computed once per finding
// and cycle (C1): its markdown is parsed at most once, never per compared
// pair.
type defectKey struct {
	engine, path string
	// start and end are the finding's lines; end is 0 when the finding
	// has no file or no line (it is never merged).
	start, end int
	// category is the normalised category, empty when generic.
	category string
	// title is the normalised title tokens, nil when fewer than three.
	title []string
	// edit is the suggested edit, empty when none; read once edited is
	// set (Dedup reads it only for the findings that need it).
	edit   string
	edited bool
}

func defectKeyOf(f *Finding) defectKey {
	k := defectKey{engine: f.Engine, path: f.Path}
	if f.Path == "" || f.Line <= 0 {
		return k
	}
	k.start, k.end = span(*f)
	if c := normCategory(f.Category); !genericCategories[c] {
		k.category = c
	}
	if t := titleTokens(f.Title); len(t) >= 3 {
		k.title = t
	}
	return k
}

// suggestion is f's suggested edit, k's from the first call on.
func (k *defectKey) suggestion(f *Finding) string {
	if !k.edited {
		k.edit, k.edited = suggestedEdit(f.Body), true
	}
	return k.edit
}

// same is SameDefect on two keys.
func (a *defectKey) same(b *defectKey) bool {
	if a.end <= 0 || b.end <= 0 || a.engine == b.engine || a.path != b.path || a.start > b.end || b.start > a.end {
		return false
	}
	if a.category != "" && a.category == b.category {
		return true
	}
	if a.title != nil && b.title != nil && tokenSimilarity(a.title, b.title) >= TitleSimilarity {
		return true
	}
	return a.edit != "" && a.edit == b.edit
}

// Dedup is rule DD1: it merges findings of different engines that are one
// defect into one finding carrying every source comment (Sources), so the
// defect is triaged and fixed once. A group is formed only of findings
// that are pairwise the same defect, never by a chain of near matches, and
// the result does not depend on the input order. The representative is
// the group's first finding (by engine, then comment id) that carries a
// suggested edit, so the suggestions fixer can apply it, else its first.
//
// Its cost is linear in the findings plus the pairs on overlapping lines
// of one file (C1): each finding's markdown is parsed once, and only
// findings that can be one defect are compared.
func Dedup(fs []Finding) []Finding {
	out, _ := dedup(fs)
	return out
}

// dedup is Dedup, also counting the pairs of findings it compared.
func dedup(fs []Finding) ([]Finding, int) {
	if len(fs) < 2 {
		return fs, 0
	}
	return dedupAt(len(fs), func(i int) *Finding { return &fs[i] })
}

// dedupAt is dedup of the n findings at(0) … at(n-1), read in place: a
// cycle merges its engines' findings without first copying them into
// one slice (C1). The findings it returns are its own copies.
func dedupAt(n int, at func(int) *Finding) ([]Finding, int) {
	if n < 2 {
		out := make([]Finding, n)
		for i := range out {
			out[i] = *at(i)
		}
		return out, 0
	}
	// by is the findings' order: by engine, then comment id; positions
	// below are positions in it.
	by := make([]int, n)
	for i := range by {
		by[i] = i
	}
	slices.SortStableFunc(by, func(i, j int) int { return findingOrderOf(at(i), at(j)) })
	keys := make([]defectKey, n)
	// sweep holds the findings with a file and a line as the sweep below
	// reads them, in one compact record each: its file (numbered in order
	// of first appearance: only findings of one file are compared), lines,
	// engine (numbered), a hash of its specific category (0: none) and
	// its position.
	type sweepItem struct {
		file, start, end, eng, pos int
		cat                        uint64
	}
	sweep := make([]sweepItem, 0, n)
	files := map[string]int{}
	// mayEdit is false where the body cannot hold a suggestion block.
	mayEdit := make([]bool, n)
	// edit is the suggested edit of the finding at a position, its
	// markdown parsed on the first call.
	edit := func(i int) string { return keys[i].suggestion(at(by[i])) }
	eng := 0
	for i, x := range by {
		f := at(x)
		keys[i] = defectKeyOf(f)
		if i > 0 && keys[i].engine != keys[i-1].engine {
			eng++
		}
		if k := &keys[i]; k.end > 0 {
			file, ok := files[k.path]
			if !ok {
				file = len(files)
				files[k.path] = file
			}
			sweep = append(sweep, sweepItem{file: file, start: k.start, end: k.end, eng: eng, pos: i, cat: categoryHash(k.category)})
			mayEdit[i] = mayHaveSuggestion(f.Body)
		}
	}
	// The pairs that are one defect, as (later, earlier): found by a sweep
	// over each file's findings by first line, comparing a finding only
	// with the earlier-starting findings of its file whose lines reach its
	// first line. The comparison is defectKey.same on those.
	slices.SortFunc(sweep, func(a, b sweepItem) int {
		if c := cmp.Compare(a.file, b.file); c != 0 {
			return c
		}
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	var pairs [][2]int
	var open []sweepItem
	compared := 0
	for x, a := range sweep {
		if x > 0 && sweep[x-1].file != a.file {
			open = open[:0]
		}
		i := a.pos
		kept := open[:0]
		for _, b := range open {
			if b.end < a.start {
				continue
			}
			kept = append(kept, b)
			if a.eng == b.eng {
				continue
			}
			compared++
			j := b.pos
			if (a.cat != 0 && a.cat == b.cat && keys[i].category == keys[j].category) ||
				(keys[i].title != nil && keys[j].title != nil && tokenSimilarity(keys[i].title, keys[j].title) >= TitleSimilarity) ||
				(mayEdit[i] && mayEdit[j] && edit(i) != "" && edit(i) == edit(j)) {
				pairs = append(pairs, [2]int{max(i, j), min(i, j)})
			}
		}
		open = append(kept, a)
	}
	slices.SortFunc(pairs, func(a, b [2]int) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	// Each finding in turn joins the first group (in the order groups were
	// formed) of which every member is the same defect as it, else forms
	// its own. Only a group holding one of its pairs can qualify.
	group := make([]int, n)
	next := make([]int, n)
	var first, last []int // per group: its first and last member
	p := 0
	for i := range by {
		q := p
		for q < len(pairs) && pairs[q][0] == i {
			q++
		}
		same := pairs[p:q]
		p = q
		best := -1
		for _, pr := range same {
			g := group[pr[1]]
			if best >= 0 && g >= best {
				continue
			}
			all := true
			for m := first[g]; m >= 0 && all; m = next[m] {
				_, all = slices.BinarySearchFunc(same, m, func(pr [2]int, m int) int { return cmp.Compare(pr[1], m) })
			}
			if all {
				best = g
			}
		}
		next[i] = -1
		if best < 0 {
			group[i] = len(first)
			first, last = append(first, i), append(last, i)
			continue
		}
		group[i] = best
		next[last[best]], last[best] = i, i
	}
	out := make([]Finding, 0, len(first))
	for _, h := range first {
		if next[h] < 0 {
			out = append(out, *at(by[h]))
			continue
		}
		rep := h
		for m := h; m >= 0; m = next[m] {
			if edit(m) != "" {
				rep = m
				break
			}
		}
		f := *at(by[rep])
		f.Sources = slices.Clone(f.Sources)
		for m := h; m >= 0; m = next[m] {
			if m == rep {
				continue
			}
			src := at(by[m])
			f.Sources = append(f.Sources, SourceRef{Engine: src.Engine, ID: src.ID, CommentID: src.CommentID, ThreadID: src.ThreadID})
			f.Sources = append(f.Sources, src.Sources...)
		}
		out = append(out, f)
	}
	return out, compared
}

// FlaggedBy lists the engines that flagged a finding, itself and its
// merged sources, sorted and each once (DD1).
func FlaggedBy(f Finding) []string {
	out := []string{f.Engine}
	for _, s := range f.Sources {
		out = append(out, s.Engine)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func findingOrder(a, b Finding) int { return findingOrderOf(&a, &b) }

// findingOrderOf is findingOrder without copying the findings.
func findingOrderOf(a, b *Finding) int {
	if c := cmp.Compare(a.Engine, b.Engine); c != 0 {
		return c
	}
	if c := cmp.Compare(a.CommentID, b.CommentID); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func span(f Finding) (int, int) {
	s := f.StartLine
	if s <= 0 || s > f.Line {
		s = f.Line
	}
	return s, f.Line
}

// categoryHash is a non-zero FNV-1a hash of a specific category, 0 for
// none: the sweep compares two categories' text only when their hashes
// are equal.
func categoryHash(c string) uint64 {
	if c == "" {
		return 0
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(c); i++ {
		h ^= uint64(c[i])
		h *= 1099511628211
	}
	return h | 1
}

func normCategory(c string) string {
	if isNormCategory(c) {
		return c // already normalised: nothing to allocate (C1)
	}
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimSpace(c))), " ")
}

// isNormCategory reports whether normCategory would return c unchanged:
// ASCII without capitals, words separated by single spaces.
func isNormCategory(c string) bool {
	for i := 0; i < len(c); i++ {
		switch b := c[i]; {
		case b >= 0x80, b >= 'A' && b <= 'Z':
			return false
		case b == ' ':
			if i == 0 || i == len(c)-1 || c[i-1] == ' ' {
				return false
			}
		case b == '\t', b == '\n', b == '\v', b == '\f', b == '\r':
			return false
		}
	}
	return true
}

// stopWords carry no meaning for comparing titles.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "on": true, "in": true, "of": true, "to": true, "for": true,
	"is": true, "are": true, "be": true, "when": true, "with": true, "and": true, "or": true, "it": true, "this": true,
}

// titleTokens normalises a title: the bold lead when the title starts
// with one (Claude's "**title**: text"), lower case, words of letters and
// digits, stop words dropped.
func titleTokens(t string) []string {
	if lead, _, ok := strings.Cut(t, "**"); ok && strings.TrimSpace(lead) != "" {
		t = lead
	}
	words := strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := words[:0]
	for _, w := range words {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// titleSimilarity is the Jaccard similarity of two titles' normalised
// token sets; titles of fewer than three tokens never count as similar.
func titleSimilarity(a, b string) float64 {
	ta, tb := titleTokens(a), titleTokens(b)
	if len(ta) < 3 || len(tb) < 3 {
		return 0
	}
	return tokenSimilarity(ta, tb)
}

// tokenSimilarity is the Jaccard similarity of two sorted token sets.
func tokenSimilarity(ta, tb []string) float64 {
	inter, i, j := 0, 0, 0
	for i < len(ta) && j < len(tb) {
		switch c := strings.Compare(ta[i], tb[j]); {
		case c == 0:
			inter++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(ta)+len(tb)-inter)
}

// suggestedEdit is a finding's first suggestion block as GitHub renders
// it (TB4), with whitespace normalised; empty when it has none.
func suggestedEdit(body string) string {
	if !mayHaveSuggestion(body) {
		return ""
	}
	for _, f := range markdown.Fences(body) {
		if words := strings.Fields(f.Info); len(words) == 0 || words[0] != "suggestion" {
			continue
		}
		return strings.Join(strings.Fields(strings.Join(f.Lines, "\n")), " ")
	}
	return ""
}

// mayHaveSuggestion is false when body cannot hold a suggestion block: a
// fence of backticks or tildes whose info string starts with "suggestion"
// in the source. Such a body is not parsed.
func mayHaveSuggestion(body string) bool {
	return strings.Contains(body, "suggestion") && (strings.Contains(body, "```") || strings.Contains(body, "~~~"))
}

// WithSources adds to a fix cycle's triage rows one row per source comment
// merged into a triaged finding (DD1): the finding's row names every
// engine that flagged it, and each source's row, outcome "duplicate",
// points at it. The source rows carry no no-progress key, so W2 counts the
// defect once, and they count toward no total.
func WithSources(rows []state.TriageRow, byID map[string]Finding) []state.TriageRow {
	out := make([]state.TriageRow, 0, len(rows))
	var dups []state.TriageRow
	for _, r := range rows {
		f, ok := byID[r.FindingID]
		if !ok || len(f.Sources) == 0 {
			out = append(out, r)
			continue
		}
		r.FlaggedBy = FlaggedBy(f)
		out = append(out, r)
		for _, src := range f.Sources {
			dups = append(dups, state.TriageRow{FindingID: src.ID, Engine: src.Engine, CommentID: src.CommentID, Tier: r.Tier,
				Justification: "same defect as " + r.FindingID + " (" + r.Outcome + ")", Outcome: OutcomeDuplicate})
		}
	}
	return append(out, dups...)
}

func countOutcome(rows []state.TriageRow, outcome string) int {
	n := 0
	for _, r := range rows {
		if r.Outcome == outcome {
			n++
		}
	}
	return n
}

// SourceThreads are the review threads of a finding's merged sources,
// which E6 answers and resolves with the finding's own (DD1).
func SourceThreads(f Finding) []string {
	var out []string
	for _, s := range f.Sources {
		if s.ThreadID != "" {
			out = append(out, s.ThreadID)
		}
	}
	return out
}
