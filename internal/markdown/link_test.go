package markdown

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// render renders src to HTML with goldmark's own GFM parser, or with
// review-loop's (the bounded link parser).
func render(t *testing.T, src string, ours bool) string {
	t.Helper()
	opts := []goldmark.Option{goldmark.WithExtensions(extension.GFM)}
	md := goldmark.New(opts...)
	if ours {
		md = goldmark.New(append(opts, goldmark.WithParser(newParserNoGFM()))...)
	}
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// newParserNoGFM is newParser without its own GFM set-up: the GFM
// extension of the goldmark it is given adds it, as in gfm().
func newParserNoGFM() parser.Parser { return newParser(nil) }

// R2: the bounded link parser reads every document as goldmark does: the
// same HTML, links that close and links that do not, on one line or
// across lines, in block quotes and lists.
func TestRule_R2_TheBoundedLinkParserReadsAsGoldmarkDoes(t *testing.T) {
	t.Parallel()
	for _, src := range linkSeeds {
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
