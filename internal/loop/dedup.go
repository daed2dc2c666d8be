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
	if a.Engine == b.Engine || a.Path == "" || a.Path != b.Path || a.Line <= 0 || b.Line <= 0 {
		return false
	}
	as, ae := span(a)
	bs, be := span(b)
	if as > be || bs > ae {
		return false
	}
	if ca, cb := normCategory(a.Category), normCategory(b.Category); ca == cb && !genericCategories[ca] {
		return true
	}
	if titleSimilarity(a.Title, b.Title) >= TitleSimilarity {
		return true
	}
	sa, sb := suggestedEdit(a.Body), suggestedEdit(b.Body)
	return sa != "" && sa == sb
}

// Dedup is rule DD1: it merges findings of different engines that are one
// defect into one finding carrying every source comment (Sources), so the
// defect is triaged and fixed once. A group is formed only of findings
// that are pairwise the same defect, never by a chain of near matches, and
// the result does not depend on the input order. The representative is
// the group's first finding (by engine, then comment id) that carries a
// suggested edit, so the suggestions fixer can apply it, else its first.
func Dedup(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, findingOrder)
	var groups [][]Finding
	for _, f := range sorted {
		joined := false
		for i, g := range groups {
			if !slices.ContainsFunc(g, func(m Finding) bool { return !SameDefect(m, f) }) {
				groups[i] = append(g, f)
				joined = true
				break
			}
		}
		if !joined {
			groups = append(groups, []Finding{f})
		}
	}
	out := make([]Finding, 0, len(groups))
	for _, g := range groups {
		if i := slices.IndexFunc(g, func(f Finding) bool { return suggestedEdit(f.Body) != "" }); i > 0 {
			g = append([]Finding{g[i]}, slices.Delete(slices.Clone(g), i, i+1)...)
		}
		rep := g[0]
		rep.Sources = slices.Clone(rep.Sources)
		for _, m := range g[1:] {
			rep.Sources = append(rep.Sources, SourceRef{Engine: m.Engine, ID: m.ID, CommentID: m.CommentID, ThreadID: m.ThreadID})
			rep.Sources = append(rep.Sources, m.Sources...)
		}
		out = append(out, rep)
	}
	return out
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

func findingOrder(a, b Finding) int {
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

func normCategory(c string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimSpace(c))), " ")
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
	inter := 0
	for _, w := range ta {
		if _, ok := slices.BinarySearch(tb, w); ok {
			inter++
		}
	}
	return float64(inter) / float64(len(ta)+len(tb)-inter)
}

// suggestedEdit is a finding's first suggestion block as GitHub renders
// it (TB4), with whitespace normalised; empty when it has none.
func suggestedEdit(body string) string {
	for _, f := range markdown.Fences(body) {
		if words := strings.Fields(f.Info); len(words) == 0 || words[0] != "suggestion" {
			continue
		}
		return strings.Join(strings.Fields(strings.Join(f.Lines, "\n")), " ")
	}
	return ""
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
