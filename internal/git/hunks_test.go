package git

import (
	"context"
	"reflect"
	"testing"

	"github.com/review-loop/review-loop/internal/git/gittest"
)

// TestRule_CV1_DiffHunksAreTheLinesTheCommitWrote: a fix commit's changed
// lines are read from a real repository, new side and old side.
func TestRule_CV1_DiffHunksAreTheLinesTheCommitWrote(t *testing.T) {
	repo := gittest.New(t, map[string]string{
		"calc.go": "package calc\n\nfunc Div(a, b int) int {\n\treturn a / b\n}\n",
		"gone.go": "package calc\n",
		"same.go": "package calc\n",
	})
	parent := repo.Head(t)
	repo.Write(t, map[string]string{
		"calc.go": "package calc\n\nfunc Div(a, b int) int {\n\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn a / b\n}\n",
		"new.go":  "package calc\n\nvar X = 1\n",
	})
	repo.Git(t, "rm", "-q", "gone.go")
	sha := repo.CommitAll(t, "fix")
	r := &Runner{Dir: repo.Dir}
	got, err := r.DiffHunks(context.Background(), parent, sha)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileHunks{
		{Path: "calc.go", New: []LineRange{{4, 6}}, Old: []LineRange{{3, 3}}},
		{Path: "gone.go", Old: []LineRange{{1, 1}}},
		{Path: "new.go", New: []LineRange{{1, 3}}, Old: []LineRange{{1, 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hunks = %+v\nwant    %+v", got, want)
	}
}

func TestRule_CV5_PatchHunksOfTheCompareAPI(t *testing.T) {
	f, err := ParsePatch("calc.go", "@@ -20 +20 @@ func Sub(a, b int) int {\n-\treturn b - a\n+\treturn a - b\n@@ -30,2 +30,0 @@\n-x\n-y")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Old, []LineRange{{20, 20}, {30, 31}}) || !reflect.DeepEqual(f.New, []LineRange{{20, 20}, {30, 30}}) {
		t.Fatalf("hunks = %+v", f)
	}
	if _, err := ParsePatch("x", "@@ -a +1 @@"); err == nil {
		t.Fatal("a bad hunk header was read")
	}
}

// TestRule_CV5_PatchContextLinesAreNotTouched: GitHub's patches carry
// three lines of context around each change; the lines a commit replaced
// are its removed lines only (a pure insertion: the line it follows), not
// the whole hunk, or a finding next to an engine fixer's change would be
// taken for fixed by it.
func TestRule_CV5_PatchContextLinesAreNotTouched(t *testing.T) {
	patch := "@@ -25,7 +25,7 @@ func Max(a, b int) int {\n \treturn b\n }\n \n-// Sub returns b minus a.\n+// Sub returns a minus b.\n func Sub(a, b int) int {\n-\treturn b - a\n+\treturn a - b\n }" +
		"\n@@ -40,3 +40,4 @@\n a\n b\n+c\n d\n\\ No newline at end of file"
	f, err := ParsePatch("calc.go", patch)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Old, []LineRange{{28, 28}, {30, 30}, {41, 41}}) || !reflect.DeepEqual(f.New, []LineRange{{28, 28}, {30, 30}, {42, 42}}) {
		t.Fatalf("hunks = %+v, want old 28, 30 and 41 (the insertion follows it), new 28, 30 and 42", f)
	}
}

func FuzzParsePatch(f *testing.F) {
	f.Add("@@ -25,3 +25,3 @@ x\n a\n-b\n+c\n d")
	f.Add("@@ -1,2 +0,0 @@\n-a\n-b")
	f.Add("@@ -0,0 +1 @@\n+a\n\\ No newline at end of file")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParsePatch("x", s)
		if err != nil {
			return
		}
		for _, r := range append(h.Old, h.New...) {
			if r.Start < 1 || r.End < r.Start {
				t.Fatalf("range %+v from %q", r, s)
			}
		}
	})
}

func FuzzParseDiff(f *testing.F) {
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n")
	f.Add("@@ -0,0 +1 @@")
	f.Fuzz(func(t *testing.T, s string) {
		hs, err := ParseDiff(s)
		if err != nil {
			return
		}
		for _, h := range hs {
			for _, r := range append(h.New, h.Old...) {
				if r.Start < 1 || r.End < r.Start {
					t.Fatalf("bad range %+v from %q", r, s)
				}
			}
		}
	})
}
