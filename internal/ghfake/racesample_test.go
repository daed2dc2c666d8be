package ghfake_test

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

// TestRaceSample_NamesExistingTests: every line of race-sample.txt (the
// tests ./scripts/test also runs under the race detector) names a test
// function of this package, so a rename cannot leave the race run running
// nothing.
func TestRaceSample_NamesExistingTests(t *testing.T) {
	t.Parallel()
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
	for _, n := range names {
		if !funcs[n] {
			t.Errorf("race-sample.txt: %s: no such test function in this package", n)
		}
	}
}
