package loop

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// divZero is one defect as three engines word it on calc/calc.go.
func divZero() []Finding {
	return []Finding{
		{ID: "bugbot-11", Engine: "bugbot", CommentID: 11, ThreadID: "T11", Path: "calc/calc.go", Line: 15, Title: "Div panics on a zero divisor"},
		{ID: "copilot-12", Engine: "copilot", CommentID: 12, ThreadID: "T12", Path: "calc/calc.go", StartLine: 14, Line: 15, Title: "Div panics on a zero divisor."},
		{ID: "claude-13", Engine: "claude", CommentID: 13, ThreadID: "T13", Path: "calc/calc.go", Line: 15, Title: "Div panics on zero divisor**: `Div(a, 0)` panics with an integer divide by zero"},
	}
}

func TestRule_DD1_ThreeEnginesOneDefectIsOneFindingWithEverySource(t *testing.T) {
	got := Dedup(divZero())
	if len(got) != 1 {
		t.Fatalf("Dedup gave %d findings, want 1: %+v", len(got), got)
	}
	if got[0].ID != "bugbot-11" {
		t.Errorf("representative = %s, want bugbot-11 (first by engine)", got[0].ID)
	}
	if by := FlaggedBy(got[0]); !slices.Equal(by, []string{"bugbot", "claude", "copilot"}) {
		t.Errorf("FlaggedBy = %v", by)
	}
	if th := SourceThreads(got[0]); !slices.Equal(th, []string{"T13", "T12"}) {
		t.Errorf("SourceThreads = %v, want the claude and copilot threads", th)
	}
}

func TestRule_DD1_TheFindingWithASuggestedEditRepresentsTheDefect(t *testing.T) {
	fs := divZero()
	fs[1].Body = "Div panics on a zero divisor.\n\n```suggestion\n\tif b == 0 {\n\t\treturn 0, ErrDivZero\n\t}\n```"
	got := Dedup(fs)
	if len(got) != 1 || got[0].ID != "copilot-12" || len(got[0].Sources) != 2 {
		t.Fatalf("Dedup = %+v, want copilot-12 (it carries the suggestion) with two sources", got)
	}
}

func TestRule_DD1_WhenUnsureFindingsStaySeparate(t *testing.T) {
	base := Finding{Engine: "bugbot", Path: "a.go", Line: 10, Title: "Div panics on a zero divisor", Category: "important"}
	cases := map[string]Finding{
		"another file":            {Engine: "copilot", Path: "b.go", Line: 10, Title: base.Title},
		"non-overlapping lines":   {Engine: "copilot", Path: "a.go", StartLine: 11, Line: 14, Title: base.Title},
		"same engine":             {Engine: "bugbot", Path: "a.go", Line: 10, Title: base.Title},
		"different titles":        {Engine: "copilot", Path: "a.go", Line: 10, Title: "Max returns the smaller value"},
		"only a generic category": {Engine: "copilot", Path: "a.go", Line: 10, Title: "Unused import of errors", Category: "Important"},
		"no line":                 {Engine: "copilot", Path: "a.go", Title: base.Title},
		"two-word titles":         {Engine: "copilot", Path: "a.go", Line: 10, Title: "Div panics"},
	}
	for name, other := range cases {
		t.Run(name, func(t *testing.T) {
			a, b := base, other
			if name == "two-word titles" {
				a.Title = "Div panics"
			}
			if SameDefect(a, b) || SameDefect(b, a) {
				t.Fatalf("SameDefect(%+v, %+v) = true, want separate", a, b)
			}
			if n := len(Dedup([]Finding{a, b})); n != 2 {
				t.Fatalf("Dedup merged them: %d finding(s)", n)
			}
		})
	}
}

func TestRule_DD1_SameSpecificCategoryOrSameSuggestionMerges(t *testing.T) {
	a := Finding{Engine: "coderabbit", Path: "a.go", Line: 10, Title: "Guard the divisor", Category: "division-by-zero"}
	b := Finding{Engine: "gemini", Path: "a.go", StartLine: 8, Line: 12, Title: "Missing zero check", Category: "Division-By-Zero"}
	if !SameDefect(a, b) {
		t.Error("same specific category on overlapping lines: want one defect")
	}
	sugg := "Consider this:\n\n```suggestion\n\tif b == 0 {\n\t\treturn 0, ErrDivZero\n\t}\n```\n"
	c := Finding{Engine: "copilot", Path: "a.go", Line: 10, Title: "Guard it", Body: sugg}
	d := Finding{Engine: "claude", Path: "a.go", Line: 10, Title: "Zero check missing here", Body: "**Zero check**:\n" + "```suggestion\nif b == 0 {\n  return 0, ErrDivZero\n}\n```"}
	if !SameDefect(c, d) {
		t.Error("same suggested edit (whitespace aside): want one defect")
	}
	quoted := Finding{Engine: "claude", Path: "a.go", Line: 10, Title: "Zero check missing here", Body: "> ```suggestion\n> \tif b == 0 {\n> \t\treturn 0, ErrDivZero\n> \t}\n> ```"}
	if SameDefect(c, quoted) {
		t.Error("a suggestion inside a block quote is no suggestion (TB4): want separate")
	}
}

// TestRule_DD1_PropertyNeverMergesAcrossFilesOrDisjointLines: on random
// findings, every merged group is pairwise the same defect (so never two
// files, never disjoint lines), no finding is lost or duplicated, and the
// result does not depend on the input order.
func TestRule_DD1_PropertyNeverMergesAcrossFilesOrDisjointLines(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 2))
	engines := []string{"bugbot", "claude", "copilot", "gemini"}
	titles := []string{"Div panics on a zero divisor", "Div panics on zero divisor", "Max returns the smaller value", "Sub subtracts in the wrong order", "Div panics"}
	cats := []string{"", "important", "division-by-zero", "ordering"}
	for iter := 0; iter < 400; iter++ {
		n := 2 + r.IntN(7)
		fs := make([]Finding, n)
		for i := range fs {
			line := 1 + r.IntN(12)
			fs[i] = Finding{ID: itoa(int64(i)), CommentID: int64(100 + i), Engine: engines[r.IntN(len(engines))],
				Path: []string{"a.go", "b.go"}[r.IntN(2)], Line: line, Title: titles[r.IntN(len(titles))], Category: cats[r.IntN(len(cats))]}
			if r.IntN(2) == 0 {
				fs[i].StartLine = max(1, line-r.IntN(4))
			}
		}
		got := Dedup(fs)
		byID := map[string]Finding{}
		for _, f := range fs {
			byID[f.ID] = f
		}
		seen := map[string]int{}
		for _, g := range got {
			members := []Finding{byID[g.ID]}
			for _, s := range g.Sources {
				members = append(members, byID[s.ID])
			}
			for i, a := range members {
				seen[a.ID]++
				for _, b := range members[i+1:] {
					if a.Path != b.Path {
						t.Fatalf("merged findings in different files: %+v and %+v", a, b)
					}
					as, ae := span(a)
					bs, be := span(b)
					if as > be || bs > ae {
						t.Fatalf("merged findings on non-overlapping lines: %+v and %+v", a, b)
					}
					if !SameDefect(a, b) || !SameDefect(b, a) {
						t.Fatalf("merged findings that are not pairwise the same defect: %+v and %+v", a, b)
					}
				}
			}
		}
		for _, f := range fs {
			if seen[f.ID] != 1 {
				t.Fatalf("finding %s appears %d times after Dedup", f.ID, seen[f.ID])
			}
		}
		shuffled := slices.Clone(fs)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if again := Dedup(shuffled); !sameGroups(got, again) {
			t.Fatalf("Dedup depends on the input order:\n%+v\n%+v", got, again)
		}
	}
}

func sameGroups(a, b []Finding) bool {
	key := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			k := f.ID
			for _, s := range f.Sources {
				k += "," + s.ID
			}
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

func TestRule_DD1_DecideTriagesOneDefectOnceAndW2CountsItOnce(t *testing.T) {
	fs := divZero()
	st := active(sha1, "bugbot", "claude", "copilot")
	p, st2 := Decide(st, obs(sha1, 0,
		done("bugbot", sha1, 1, fs[0]), done("claude", sha1, 2, fs[2]), done("copilot", sha1, 3, fs[1])), DefaultConfig())
	wantAction(t, p, ActionFix, "")
	if len(p.Triage) != 1 || len(p.Triage[0].Sources) != 2 {
		t.Fatalf("triage = %+v, want one finding with two sources", p.Triage)
	}
	byID := map[string]Finding{p.Triage[0].ID: p.Triage[0]}
	rows := WithSources([]state.TriageRow{{FindingID: "bugbot-11", Engine: "bugbot", CommentID: 11, Tier: 1, Outcome: OutcomeFixed, Key: "div-zero"}}, byID)
	if len(rows) != 3 || !slices.Equal(rows[0].FlaggedBy, []string{"bugbot", "claude", "copilot"}) {
		t.Fatalf("rows = %+v", rows)
	}
	st3 := RecordFixCycle(st2, FixResult{Rows: rows}, t0)
	total := 0
	for _, m := range st3.NoProgress {
		for _, n := range m {
			total += n
		}
	}
	if ev := st3.Events[len(st3.Events)-1]; ev.Detail != "fixed 1 of 1" {
		t.Errorf("iter-end says %q, want the defect counted once", ev.Detail)
	}
	if total != 1 || st3.Totals.Fixed != 1 {
		t.Errorf("no-progress counts %v (total %d), fixed %d: want the defect counted once", st3.NoProgress, total, st3.Totals.Fixed)
	}
	// The next cycle on the same head does not triage the sources again.
	p2, _ := Decide(st3, obs(sha1, 0,
		done("bugbot", sha1, 1, fs[0]), done("claude", sha1, 2, fs[2]), done("copilot", sha1, 3, fs[1])), DefaultConfig())
	if len(p2.Triage) != 0 {
		t.Errorf("second cycle triages %v again", triageIDs(p2))
	}
}

// FuzzSameDefect: on any titles, categories and bodies, DD1's test is
// symmetric, never true across files or disjoint lines, and never panics.
func FuzzSameDefect(f *testing.F) {
	f.Add("Div panics on a zero divisor", "Div panics on zero divisor**: `Div(a, 0)`", "", "", "x", "```suggestion\n\treturn a\n```", 15, 14, 15, 15)
	f.Add("Max returns the smaller value.", "Max returns the smaller value", "ordering", "Ordering", "", "", 21, 0, 24, 20)
	f.Add("", "", "important", "important", "> ```suggestion\n> x\n> ```", "```suggestion\nx\n```", 1, 1, 1, 1)
	f.Fuzz(func(t *testing.T, ta, tb, ca, cb, ba, bb string, la, sa, lb, sb int) {
		a := Finding{Engine: "bugbot", Path: "a.go", Title: ta, Category: ca, Body: ba, Line: la, StartLine: sa}
		b := Finding{Engine: "copilot", Path: "a.go", Title: tb, Category: cb, Body: bb, Line: lb, StartLine: sb}
		if SameDefect(a, b) != SameDefect(b, a) {
			t.Fatalf("SameDefect is not symmetric on %+v, %+v", a, b)
		}
		if SameDefect(a, b) {
			as, ae := span(a)
			bs, be := span(b)
			if as > be || bs > ae {
				t.Fatalf("merged disjoint lines %+v, %+v", a, b)
			}
		}
		b.Path = "b.go"
		if SameDefect(a, b) {
			t.Fatalf("merged different files %+v, %+v", a, b)
		}
	})
}

// pairwiseDedup is DD1 as first written: every finding in turn joins the
// first group of which every member is SameDefect with it. Dedup must
// give exactly its result, only cheaper (C1).
func pairwiseDedup(fs []Finding) []Finding {
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
	var out []Finding
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

// TestRule_DD1_IndexedDedupGivesThePairwiseResult: on random findings
// dense in few files and lines (many near matches, chains, suggestion
// blocks, findings without a line), Dedup gives the same groups, in the
// same order, with the same representatives, as comparing every pair.
func TestRule_DD1_IndexedDedupGivesThePairwiseResult(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 1))
	engines := []string{"bugbot", "claude", "copilot", "gemini"}
	titles := []string{"Div panics on a zero divisor", "Div panics on zero divisor", "Div panics on a zero divisor here",
		"Max returns the smaller value", "Sub subtracts in the wrong order", "Div panics", ""}
	cats := []string{"", "important", "division-by-zero", "Division-By-Zero", "ordering"}
	bodies := []string{"", "see above", "```suggestion\nif b == 0 {\n```", "```suggestion\n  if b == 0 {\n```", "> ```suggestion\n> x\n> ```"}
	for iter := 0; iter < 2000; iter++ {
		n := 2 + r.IntN(14)
		fs := make([]Finding, n)
		for i := range fs {
			line := r.IntN(8)
			fs[i] = Finding{ID: itoa(int64(i)), CommentID: int64(100 + r.IntN(20)), Engine: engines[r.IntN(len(engines))],
				Path: []string{"a.go", "b.go", ""}[r.IntN(3)], Line: line, Title: titles[r.IntN(len(titles))],
				Category: cats[r.IntN(len(cats))], Body: bodies[r.IntN(len(bodies))]}
			if r.IntN(2) == 0 {
				fs[i].StartLine = line - 3 + r.IntN(5)
			}
			if r.IntN(8) == 0 {
				fs[i].Sources = []SourceRef{{Engine: "gemini", ID: "s" + itoa(int64(i))}}
			}
		}
		got, want := Dedup(fs), pairwiseDedup(fs)
		if len(got) != len(want) {
			t.Fatalf("on %+v\nDedup = %+v\npairwise = %+v", fs, got, want)
		}
		for i := range got {
			if got[i].ID != want[i].ID || !slices.Equal(got[i].Sources, want[i].Sources) {
				t.Fatalf("on %+v\nDedup = %+v\npairwise = %+v", fs, got, want)
			}
		}
	}
}
