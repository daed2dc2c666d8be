package fix

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSuggestions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string
		want [][]string
	}{
		{"a single-line suggestion is parsed", "Use a constant.\n```suggestion\n    x := base\n```", [][]string{{"    x := base"}}},
		{"an empty block is a deletion", "Remove it.\n```suggestion\n```\n", [][]string{nil}},
		{"two blocks are both returned", "```suggestion\na\n```\ntext\n```suggestion\nb\nc\n```", [][]string{{"a"}, {"b", "c"}}},
		{"a CRLF body is read without carriage returns", "x\r\n```suggestion\r\na\r\n```\r\n", [][]string{{"a"}}},
		{"a longer fence may contain a shorter one", "````suggestion\n```go\n```\n````", [][]string{{"```go", "```"}}},
		{"a go block is not a suggestion", "```go\nx\n```", nil},
		{"an unclosed block is ignored", "```suggestion\nx\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ParseSuggestions(tc.body)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d suggestions %v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if !slices.Equal(got[i].Lines, tc.want[i]) {
					t.Errorf("suggestion %d = %q, want %q", i, got[i].Lines, tc.want[i])
				}
			}
		})
	}
}

func TestApplyEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      string
		edits   []Edit
		want    string
		wantErr string
	}{
		{"a single line is replaced", "a\nb\nc\n", []Edit{{2, 2, []string{"B"}}}, "a\nB\nc\n", ""},
		{"a range becomes more lines", "a\nb\nc\n", []Edit{{1, 2, []string{"x", "y", "z"}}}, "x\ny\nz\nc\n", ""},
		{"an empty suggestion deletes the range", "a\nb\nc\n", []Edit{{2, 3, nil}}, "a\n", ""},
		{"CRLF line endings are kept", "a\r\nb\r\nc\r\n", []Edit{{2, 2, []string{"x", "y"}}}, "a\r\nx\r\ny\r\nc\r\n", ""},
		{"a file without a final newline keeps it so", "a\nb", []Edit{{2, 2, []string{"B"}}}, "a\nB", ""},
		{"deleting the unterminated last line keeps no final newline", "a\nb", []Edit{{2, 2, nil}}, "a", ""},
		{"several edits apply together", "a\nb\nc\nd\n", []Edit{{4, 4, []string{"D"}}, {1, 1, []string{"A"}}}, "A\nb\nc\nD\n", ""},
		{"overlapping edits are an error", "a\nb\nc\n", []Edit{{1, 2, []string{"x"}}, {2, 3, []string{"y"}}}, "", "overlap"},
		{"an edit past the end is an error", "a\n", []Edit{{2, 2, []string{"x"}}}, "", "outside the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ApplyEdits([]byte(tc.in), tc.edits)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzParseSuggestions(f *testing.F) {
	for _, s := range []string{
		"```suggestion\nx\n```", "```suggestion\r\n```", "text\n````suggestion\n```\n````\n", "~~~suggestion\na\n~~~",
		"![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nFix.\n\n```suggestion\n  if x {\n```\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got := ParseSuggestions(body)
		if strings.Count(body, "suggestion") < len(got) {
			t.Fatalf("%d suggestions from %d markers", len(got), strings.Count(body, "suggestion"))
		}
		for _, s := range got {
			for _, l := range s.Lines {
				if strings.Contains(l, "\n") {
					t.Fatalf("line %q holds a newline", l)
				}
			}
			// A parsed block applies cleanly to a one-line file.
			if _, err := ApplyEdits([]byte("x\n"), []Edit{{1, 1, s.Lines}}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
