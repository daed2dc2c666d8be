package markdown

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRule_TB4_Fences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string
		want []Fence
	}{
		{"a closed fence", "```go\nx\n```", []Fence{{Info: "go", Lines: []string{"x"}, Closed: true}}},
		{"an unclosed fence", "~~~ suggestion\nx\n", []Fence{{Info: "suggestion", Lines: []string{"x"}}}},
		{"an empty closed fence", "```suggestion\n```", []Fence{{Info: "suggestion", Closed: true}}},
		{"a fence closed by a longer run", "```suggestion\na\n`````  \n", []Fence{{Info: "suggestion", Lines: []string{"a"}, Closed: true}}},
		{"a list item's fence ended by its list is unclosed", "- ```suggestion\n  a\n```\n",
			[]Fence{{Info: "suggestion", Lines: []string{"a"}}, {}}},
		{"a fence in a block quote is not returned", "> ```suggestion\n> a\n> ```", nil},
		{"a fence in an html block is not returned", "<details>\n```suggestion\na\n```\n</details>", nil},
		{"a fence indented four spaces is code", "    ```suggestion\n    a\n    ```", nil},
		{"a list item's fence keeps its tabs", "1. x\n\n   ```suggestion\n   \ta \n   ```", []Fence{{Info: "suggestion", Lines: []string{"\ta "}, Closed: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Fences(tc.body)
			if !slices.EqualFunc(got, tc.want, func(a, b Fence) bool {
				return a.Info == b.Info && a.Closed == b.Closed && slices.Equal(a.Lines, b.Lines)
			}) {
				t.Fatalf("Fences(%q) = %+v, want %+v", tc.body, got, tc.want)
			}
		})
	}
}

func TestRule_TB4_LineStarts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string
		want []string
	}{
		{"each line of a paragraph", "a b\nc `d`\n\ne", []string{"a b", "c `d`", "e"}},
		{"a line cut before an inline html comment", "x <!-- y -->z", []string{"x "}},
		{"visible inline html is kept", "x <b>y</b> <!-- z", []string{"x <b>y</b> <!-- z"}},
		{"a later comment on the line cuts it", "x <b>y</b> <!-- z -->", []string{"x <b>y</b> "}},
		{"a line starting in a code span is not returned", "`a\nb` c\nd", []string{"d"}},
		{"a line after a hard break", "a\\\nb", []string{"a\\", "b"}},
		{"quotes, lists, headings and code are not paragraphs", "> a\n\n- b\n\n# c\n\n    d\n\n```\ne\n```\n<!--\nf\n-->", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := LineStarts(tc.body); !slices.Equal(got, tc.want) {
				t.Fatalf("LineStarts(%q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}

// samples returns real engine comment bodies from testdata/engines: the
// files themselves, the bodies inside their ````markdown quotes, and the
// "body" fields of captured JSON.
func samples(t testing.TB) []string {
	var out []string
	for _, glob := range []string{"copilot/03-*", "copilot/06-*", "copilot/04-*", "gemini/*", "claude/02-*", "bugbot/*"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "engines", glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			out = append(out, s)
			if strings.HasSuffix(f, ".json") {
				_, js, _ := strings.Cut(s, "\n")
				var v struct{ Body string }
				if json.Unmarshal([]byte(js), &v) == nil && v.Body != "" {
					out = append(out, v.Body)
				}
			}
			for _, part := range strings.Split(s, "````markdown\n")[1:] {
				if body, _, ok := strings.Cut(part, "\n````"); ok {
					out = append(out, body)
				}
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d samples", len(out))
	}
	return out
}

func TestRule_TB4_realSuggestionsAreFound(t *testing.T) {
	t.Parallel()
	n := 0
	for _, s := range samples(t) {
		for _, f := range Fences(s) {
			if f.Info == "suggestion" {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no suggestion block found in the real samples")
	}
}

func hidden(body string) map[string]string {
	norm := string(normalize(body))
	lines := strings.Split(norm, "\n")
	quote := make([]string, len(lines))
	indent := make([]string, len(lines))
	for i, l := range lines {
		quote[i] = "> " + l
		indent[i] = "    " + l
	}
	out := map[string]string{
		"quoted":   strings.Join(quote, "\n"),
		"indented": "# text\n\n" + strings.Join(indent, "\n"),
	}
	if !strings.Contains(norm, "-->") {
		out["in an html comment"] = "<!--\n" + norm + "\n-->"
	}
	return out
}

func FuzzFences(f *testing.F) {
	for _, s := range samples(f) {
		f.Add(s)
	}
	f.Add("````\n```suggestion\nx\n```\n````")
	f.Add("- ```suggestion\n\t\tx\n  ```")
	f.Fuzz(func(t *testing.T, body string) {
		got := Fences(body)
		if len(got) > strings.Count(body, "```")+strings.Count(body, "~~~") {
			t.Fatalf("%d fences from fewer fence runs", len(got))
		}
		for _, f := range got {
			for _, l := range f.Lines {
				if strings.Contains(l, "\n") {
					t.Fatalf("line %q holds a newline", l)
				}
			}
		}
		for how, b := range hidden(body) {
			if fs := Fences(b); len(fs) != 0 {
				t.Fatalf("%s: %d fences found in %q", how, len(fs), b)
			}
		}
	})
}

func FuzzLineStarts(f *testing.F) {
	for _, s := range samples(f) {
		f.Add(s)
	}
	f.Add("> a\n@review-loop stop")
	f.Add("a `b\n@review-loop stop`")
	f.Fuzz(func(t *testing.T, body string) {
		norm := string(normalize(body))
		for _, l := range LineStarts(body) {
			if strings.Contains(l, "\n") || !strings.Contains(norm, l) {
				t.Fatalf("line %q is not one line of the body", l)
			}
		}
		for how, b := range hidden(body) {
			if ls := LineStarts(b); len(ls) != 0 {
				t.Fatalf("%s: lines %q found in %q", how, ls, b)
			}
		}
	})
}
