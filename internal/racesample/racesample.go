// Package racesample reads a package's race-sample.txt, the tests
// ./scripts/test also runs under the race detector in a package it runs
// without it, and race-free.txt, the tests it runs without the race
// detector in a package it runs under it, and checks that each names a
// test of the package (so a rename cannot leave a run running nothing)
// and that a race-free one runs in one goroutine. It is for tests.
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
	return listed(t, "race-sample.txt")
}

// listed reads the names file lists, one a line, with # comments and
// blank lines left out; none is a failure.
func listed(t testing.TB, file string) []string {
	t.Helper()
	f, err := os.Open(file)
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
		t.Fatal(file + " names no test")
	}
	return names
}

// TestFuncs are the top-level test functions of the _test.go files in the
// current directory.
func TestFuncs(t testing.TB) map[string]bool {
	t.Helper()
	funcs := map[string]bool{}
	for n := range testFuncDecls(t) {
		funcs[n] = true
	}
	return funcs
}

// testFuncDecls are the top-level Test and Fuzz functions of the _test.go
// files in the current directory, by name.
func testFuncDecls(t testing.TB) map[string]*ast.FuncDecl {
	t.Helper()
	funcs := map[string]*ast.FuncDecl{}
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
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && (strings.HasPrefix(fd.Name.Name, "Test") || strings.HasPrefix(fd.Name.Name, "Fuzz")) {
				funcs[fd.Name.Name] = fd
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

// RaceFreeNames are the test names race-free.txt in the current directory
// lists: the tests ./scripts/test runs without the race detector in a
// package it otherwise runs under it. None is a failure.
func RaceFreeNames(t testing.TB) []string {
	t.Helper()
	return listed(t, "race-free.txt")
}

// CheckRaceFree fails for each line of race-free.txt that names no test
// function of the package, or one whose body runs code on a second
// goroutine: a t.Parallel (or any call of a method named Parallel or
// RunParallel), a go statement, a function handed to time.AfterFunc. The
// race detector watches memory that two goroutines touch; a test that
// runs in one has nothing for it to watch, and under it pure computation
// costs up to 35 times as much.
func CheckRaceFree(t testing.TB) {
	t.Helper()
	funcs := testFuncDecls(t)
	for _, n := range RaceFreeNames(t) {
		fd := funcs[n]
		if fd == nil {
			t.Errorf("race-free.txt: %s: no such test function in this package", n)
			continue
		}
		ast.Inspect(fd.Body, func(node ast.Node) bool {
			switch x := node.(type) {
			case *ast.GoStmt:
				t.Errorf("race-free.txt: %s starts a goroutine (go statement)", n)
			case *ast.SelectorExpr:
				switch x.Sel.Name {
				case "Parallel", "RunParallel", "AfterFunc", "Go":
					t.Errorf("race-free.txt: %s calls %s: it does not run in one goroutine", n, x.Sel.Name)
				}
			}
			return true
		})
	}
}
