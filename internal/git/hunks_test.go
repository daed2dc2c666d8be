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
