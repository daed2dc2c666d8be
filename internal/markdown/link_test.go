package markdown

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// render renders src to HTML as goldmark's own GFM parser reads it, or
// as review-loop's parse does (the bounded link parser and the
// incremental column reader).
func render(t *testing.T, src string, ours bool) string {
	t.Helper()
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	var b bytes.Buffer
	if !ours {
		if err := md.Convert([]byte(src), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	s := []byte(src)
	if err := md.Renderer().Render(&b, s, parse(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// R2: review-loop's parse reads every document as goldmark does: the
// same HTML, links that close and links that do not, on one line or
// across lines, in block quotes and lists, with tabs and nested
// containers.
func TestRule_R2_TheBoundedLinkParserReadsAsGoldmarkDoes(t *testing.T) {
	t.Parallel()
	long := []string{
		strings.Repeat("[", 1100) + "[a](b)" + strings.Repeat("]", 1100) + "(c)",
		strings.Repeat("[", 500) + "[a](b)" + strings.Repeat("](c)", 500),
		strings.Repeat("![", 600) + "[a](b)" + strings.Repeat("](c)", 600),
		strings.Repeat("[a ", 400) + strings.Repeat("*b ", 200) + strings.Repeat("](c) ", 400),
	}
	for _, src := range append(long, linkSeeds...) {
		if got, want := render(t, src, true), render(t, src, false); got != want {
			t.Errorf("%q:\n got %s\nwant %s", src, got, want)
		}
	}
}

var linkSeeds = []string{
	"[a](b)", "[a](b \"t\")", "[a](<b c>)", "[a](b\n)", "[a](b\n\"t\")", "[a](\nb)", "[a]( b )",
	"[a](b(c)d)", "[a](b(c)", "[a](b\\)c)", "[a](b\\(c)", "[a](<b)", "[a](<b\\>c>)", "[a]()", "[a](  )",
	"[a](b[a](b[a](b)", "![a](b)", "![a](b[a](c)", "> [a](b\n> )", "- [a](b\n  c)", "[a](b 'x' )",
	"[a](b (x))", "[a](b\t)", "[a](b\n\n)", "[x]: /u\n\n[x](b", "[a](b\\\\)", "[[a](b)](c)", "[a](b)[c](d",
	"[a](\\", "[a](b\"c\")", "[a](b\n'c\nd')",
	"> > > a", ">\t> b\n>\tc", "- > 1. > * a\n  b", "\t- a\n\t\t- b\n\t\t\t```x\n\t\t\tc\n\t\t\t```",
	"1.\t> a\n   \t> b", "  >  >\t>   ```\n  > > > x",
	"[[a](b)]", "[a [b](c) d](e)", "[[[a]]]", "[x]: /u\n\n[[x]]", "[x]: /u\n\n[a [x] b](c)", "[a *b [c](d) e*](f)",
	"![[a](b)](c)", "[![a](b)](c)", "[a](b)[c]", "[[a]\n[b](c)](d)", "[a ![b](c) d](e)", "[a [b] c](d)",
	"[[[[a](b)]]](c)", "[a\nb]\n[a\nb]: /u\n\n[a\nb]", "> [a\n> b](c \"t\n> u\")", "[x]: /u\n\n- [a\n  [x]\n  b](c)", "*[a [b](c)* d](e)", "[a]: /u\n\n[[a]][a]", "[a `]` b](c)", "[a <b>] c](d)",
}

func FuzzBoundedLink(f *testing.F) {
	for _, s := range linkSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := render(t, src, true), render(t, src, false); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", src, got, want)
		}
	})
}
