// Package racesample reads a package's race-sample.txt, the tests
// ./scripts/test also runs under the race detector in a package it runs
// without it, and checks that each names a test of the package, so a
// rename cannot leave the race run running nothing. It is for tests.
package racesample

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Names are the test names race-sample.txt in the current directory
// lists, one a line, with # comments and blank lines left out; none is a
// failure.
func Names(t testing.TB) []string {
	t.Helper()
	f, err := os.Open("race-sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			names = append(names, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("race-sample.txt names no test")
	}
	return names
}

// TestFuncs are the top-level test functions of the _test.go files in the
// current directory.
func TestFuncs(t testing.TB) map[string]bool {
	t.Helper()
	funcs := map[string]bool{}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				funcs[fd.Name.Name] = true
			}
		}
	}
	return funcs
}

// Check fails for each line of race-sample.txt that names no test function
// of the package.
func Check(t testing.TB) {
	t.Helper()
	funcs := TestFuncs(t)
	for _, n := range Names(t) {
		if !funcs[n] {
			t.Errorf("race-sample.txt: %s: no such test function in this package", n)
		}
	}
}
