package actionyml

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/report"
)

// codeValues collects the string constants of type Phase and Verdict
// declared in the report package, and of type report.Phase and
// report.Verdict declared in the action package: every value the code can
// set the phase and verdict outputs to.
func codeValues(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, dir := range []string{"internal/report", "internal/action"} {
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(root(t), dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					typ := ""
					switch x := vs.Type.(type) {
					case *ast.Ident:
						typ = x.Name
					case *ast.SelectorExpr:
						if id, ok := x.X.(*ast.Ident); ok && id.Name == "report" {
							typ = x.Sel.Name
						}
					}
					if typ != "Phase" && typ != "Verdict" {
						continue
					}
					for _, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							out[typ] = append(out[typ], s)
						}
					}
				}
			}
		}
	}
	return out
}

func TestAction_documentsTheOutputValuesTheCodeSets(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	docs := map[string]string{}
	for _, o := range a.Outputs {
		docs[o.Name] = o.Description
	}
	// Every output the code sets is declared, and nothing else: the
	// report's, its file, and hardened mode's hand-over (TB16) and
	// whether it has anything to publish (C3).
	want := []string{"report-json", "prepared", report.OutputPublish}
	for k := range report.Outputs(report.Input{}) {
		want = append(want, k)
	}
	slices.Sort(want)
	var got []string
	for k := range docs {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("action.yml declares outputs %v; the code sets %v", got, want)
	}
	vals := codeValues(t)
	for output, typ := range map[string]string{report.OutputVerdict: "Verdict", report.OutputPhase: "Phase"} {
		if len(vals[typ]) < 3 {
			t.Fatalf("found only %v for %s: the scan is broken", vals[typ], typ)
		}
		desc := docs[output]
		for _, v := range vals[typ] {
			if !strings.Contains(desc, "`"+v+"`") {
				t.Errorf("output %s: the code sets %q, which its description does not list as `%s`:\n%s", output, v, v, desc)
			}
		}
		for _, w := range strings.Fields(strings.NewReplacer(",", " ", ".", " ", "(", " ", ")", " ", ";", " ").Replace(desc)) {
			if strings.HasPrefix(w, "`") && strings.HasSuffix(w, "`") && len(w) > 2 {
				if v := strings.Trim(w, "`"); !slices.Contains(vals[typ], v) {
					t.Errorf("output %s: the description lists `%s`, which the code never sets", output, v)
				}
			}
		}
	}
	if d := docs["report-json"]; !strings.Contains(d, "path") {
		t.Errorf("output report-json is a file path; its description says %q", d)
	}
}

func TestAction_documentsPlaceholdersAndNoShellSplitting(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	for _, in := range a.Inputs {
		if in.Name != "test-command" {
			continue
		}
		for _, want := range []string{"{files}", "{dirs}", "{packages}", "without a shell", "&&"} {
			if !strings.Contains(in.Description, want) {
				t.Errorf("input test-command does not document %q:\n%s", want, in.Description)
			}
		}
		return
	}
	t.Fatal("no test-command input")
}
