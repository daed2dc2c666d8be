package triage

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// listing is `go list -e -json ./...` for a module where strutil is
// imported by two packages and mathx by one (records trimmed to the
// fields read).
const listing = `{"ImportPath":"example.com/calc/internal/strutil","Dir":"/w/internal/strutil","Imports":["errors"]}
{"ImportPath":"example.com/calc/internal/mathx","Dir":"/w/internal/mathx"}
{"ImportPath":"example.com/calc/report","Dir":"/w/report","Imports":["example.com/calc/internal/strutil","example.com/calc/internal/mathx","fmt"]}
{"ImportPath":"example.com/calc/stats","Dir":"/w/stats","Imports":["example.com/calc/internal/strutil","fmt"]}
{"ImportPath":"fmt","Dir":"/usr/lib/go/src/fmt","Standard":true,"Imports":["errors"]}
`

func TestRule_TR2_APackageImportedByTwoPackagesIsShared(t *testing.T) {
	t.Parallel()
	dirs, err := SharedGoDirs(strings.NewReader(listing), "/w")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dirs, []string{"internal/strutil"}) {
		t.Fatalf("shared dirs %v, want [internal/strutil]", dirs)
	}
	helpers := append(slices.Clone(DefaultSharedHelpers), DirGlobs(dirs)...)
	codified := func(path string) loop.Finding {
		return loop.Finding{ID: "bugbot-1", Engine: "bugbot", CommentID: 1, Path: path, Line: 5, Title: "Ratio panics on a zero divisor", Severity: loop.SeverityHigh}
	}
	in := Inputs{TestCommand: true, SharedHelpers: helpers}
	if r := Classify([]loop.Finding{codified("internal/strutil/strutil.go")}, in).Rows[0]; r.Tier != Tier2 || r.Reason != "touches a shared helper" {
		t.Errorf("fix in the shared package: tier %d (%s), want Tier 2 as a shared helper", r.Tier, r.Reason)
	}
	if r := Classify([]loop.Finding{codified("internal/mathx/mathx.go")}, in).Rows[0]; r.Tier != Tier1 {
		t.Errorf("a package with one importer: tier %d (%s), want Tier 1", r.Tier, r.Reason)
	}
	if r := Classify([]loop.Finding{codified("internal/strutil/sub/x.go")}, in).Rows[0]; r.Tier != Tier1 {
		t.Errorf("a sub-package is its own package: tier %d (%s), want Tier 1", r.Tier, r.Reason)
	}
}

func TestRule_TR2_BrokenGoListOutputIsAnError(t *testing.T) {
	t.Parallel()
	if _, err := SharedGoDirs(strings.NewReader(`{"ImportPath":`), "/w"); err == nil {
		t.Fatal("no error for truncated go list output")
	}
}

func FuzzSharedGoDirs(f *testing.F) {
	f.Add(listing)
	f.Add(`{"ImportPath":"a","Dir":"/w/a"}{"ImportPath":"b","Dir":"/w/b","Imports":["a","a"]}`)
	f.Add(`{"ImportPath":`)
	f.Fuzz(func(t *testing.T, s string) {
		dirs, err := SharedGoDirs(strings.NewReader(s), "/w")
		if err != nil {
			return
		}
		for _, d := range dirs {
			if strings.HasPrefix(d, "..") || strings.HasPrefix(d, "/") || d == "." {
				t.Fatalf("dir %q is outside the root", d)
			}
		}
	})
}

// C1, TR2: `go list` is asked for the fields SharedGoDirs reads and no
// others. Without a field list it computes every package's staleness,
// hashing the module's and the standard library's sources, in each fix
// cycle; a field the decoder reads but the list does not ask for would
// come back empty and shared packages would be missed.
func TestRule_C1_GoListIsAskedForTheFieldsSharedGoDirsReads(t *testing.T) {
	var read []string
	for f := range reflect.TypeFor[goPackage]().Fields() {
		read = append(read, f.Name)
	}
	asked := strings.Split(strings.TrimPrefix(GoListJSON, "-json="), ",")
	slices.Sort(read)
	slices.Sort(asked)
	if !strings.HasPrefix(GoListJSON, "-json=") || !slices.Equal(read, asked) {
		t.Errorf("go list %s; SharedGoDirs reads %v", GoListJSON, read)
	}
}
