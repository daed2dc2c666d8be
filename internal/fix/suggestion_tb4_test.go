package fix

import (
	"slices"
	"testing"
)

// TestRule_TB4_suggestionsOnlyWhereGitHubShowsThem: a ```suggestion block is
// applied only where GitHub renders it as one — never nested in another
// fence, inside an HTML comment (invisible on GitHub), an indented code
// block or a block quote.
func TestRule_TB4_suggestionsOnlyWhereGitHubShowsThem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string
		want [][]string
	}{
		{"a suggestion nested in a backtick fence is code", "Example:\n```\n```suggestion\nevil\n```\n```\n", nil},
		{"a suggestion nested in a four-backtick fence is code", "````markdown\n```suggestion\nevil\n```\n````\n", nil},
		{"a suggestion nested in a tilde fence is code", "~~~\n```suggestion\nevil\n```\n~~~\n", nil},
		{"a tilde suggestion nested in a backtick fence is code", "```\n~~~suggestion\nevil\n~~~\n```\n", nil},
		{"a suggestion in an html comment is hidden", "Looks fine.\n<!--\n```suggestion\nevil\n```\n-->\n", nil},
		{"a suggestion in a one-line-opened html comment is hidden", "<!-- hidden\n```suggestion\nevil\n```\n-->", nil},
		{"a suggestion in an indented code block is code", "Text\n\n    ```suggestion\n    evil\n    ```\n", nil},
		{"a suggestion in a block quote is a quote", "> ```suggestion\n> evil\n> ```\n", nil},
		{"a tilde suggestion is a suggestion", "~~~suggestion\ngood\n~~~\n", [][]string{{"good"}}},
		{"a suggestion after a closed outer fence counts", "```\ncode\n```\n```suggestion\ngood\n```\n", [][]string{{"good"}}},
		{"a suggestion in a list item is rendered", "- fix:\n\n  ```suggestion\n  good\n  ```\n", [][]string{{"good"}}},
		{"tabs and trailing spaces are kept", "```suggestion\n\tgood  \n  \n```\n", [][]string{{"\tgood  ", "  "}}},
		{"crlf lines lose only the carriage return", "```suggestion\r\n\tgood \r\n```\r\n", [][]string{{"\tgood "}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ParseSuggestions(tc.body)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d suggestions %q, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if !slices.Equal(got[i].Lines, tc.want[i]) {
					t.Errorf("suggestion %d = %q, want %q", i, got[i].Lines, tc.want[i])
				}
			}
		})
	}
}
