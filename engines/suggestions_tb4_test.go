package engines_test

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/engines"
)

// TestRule_TB4_suggestionsOnlyWhereGitHubShowsThem: an engine's suggestion
// counts only where GitHub renders one.
func TestRule_TB4_suggestionsOnlyWhereGitHubShowsThem(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want []string
	}{
		{"nested in a backtick fence", "```\n```suggestion\nevil\n```\n```\n", nil},
		{"nested in a four-backtick fence", "````\n```suggestion\nevil\n```\n````\n", nil},
		{"nested in a tilde fence", "~~~\n```suggestion\nevil\n```\n~~~\n", nil},
		{"in an html comment", "<!--\n```suggestion\nevil\n```\n-->\n", nil},
		{"in an indented code block", "Text\n\n    ```suggestion\n    evil\n    ```\n", nil},
		{"in a block quote", "> ```suggestion\n> evil\n> ```\n", nil},
		{"a tilde fence", "~~~ suggestion\ngood\n~~~\n", []string{"good"}},
		{"an unclosed block runs to the end", "```suggestion\ngood\n\tmore ", []string{"good\n\tmore "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := engines.Suggestions(tc.body); !slices.Equal(got, tc.want) {
				t.Fatalf("Suggestions(%q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}
