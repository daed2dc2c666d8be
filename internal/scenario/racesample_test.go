package scenario

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

// raceSample reads race-sample.txt: the tests ./scripts/test runs under
// the race detector too.
func raceSample(t *testing.T) []string {
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
	return names
}

// TestRaceSample_NamesExistingTests: every line of race-sample.txt names a
// scenario of testdata/scenarios or a test function of this package, so a
// rename cannot leave the race run playing nothing.
func TestRaceSample_NamesExistingTests(t *testing.T) {
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
	names := raceSample(t)
	if len(names) == 0 {
		t.Fatal("race-sample.txt names no test")
	}
	for _, n := range names {
		top, sub, nested := strings.Cut(n, "/")
		switch {
		case nested && top == "TestScenarios":
			if _, err := os.Stat(filepath.Join(scenarioDir(t), sub+".yaml")); err != nil {
				t.Errorf("race-sample.txt: %s: no scenario %s.yaml", n, sub)
			}
		case nested:
			t.Errorf("race-sample.txt: %s: only TestScenarios/<scenario> may name a subtest", n)
		case !funcs[top]:
			t.Errorf("race-sample.txt: %s: no such test function in this package", n)
		}
	}
}
