package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// references are the patterns GitHub turns into links to issues and
// pull requests (and so into cross-references on them): #12, GH-12 and
// owner/repo#12.
var references = regexp.MustCompile(`(?i)(^|[^\w&])#\d|\bgh-\d|[\w.-]+/[\w.-]+#\d`)

// TB10 (extended): untrusted text posted as the bot — a finding's title,
// a fixer's reply or reason, a prepare job's text — keeps no live bare
// link and no cross-reference. Rendered as GitHub renders comments
// (CommonMark with GFM's autolinks) it holds no link at all, and none of
// GitHub's reference patterns survive. What stays live is only what
// review-loop itself writes around it (its links to the run, the
// finding's comment and the rules).
func TestRule_TB10_UntrustedTextKeepsNoLiveLinksOrReferences(t *testing.T) {
	t.Parallel()
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, in := range []string{
		"see https://evil.example/x?a=1 now",
		"HTTPS://EVIL.EXAMPLE/upper",
		"plain http://evil.example",
		"go to www.evil.example please",
		"WWW.EVIL.EXAMPLE",
		"fixes #12 and #3",
		"#12 at the start",
		"closes octo/app#12",
		"see GH-12",
		"mail me at a@evil.example",
		"(https://evil.example)",
		"<https://evil.example>",
		"[x](https://evil.example)",
		"ftp://evil.example and xmpp:a@evil.example",
	} {
		out := Escape(in, 0)
		var html bytes.Buffer
		if err := md.Convert([]byte(out), &html); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(html.String(), "<a ") {
			t.Errorf("Escape(%q) = %q renders a link: %s", in, out, html.String())
		}
		if m := references.FindString(out); m != "" {
			t.Errorf("Escape(%q) = %q keeps the reference %q", in, out, m)
		}
	}
	// Read as text it is unchanged but for zero-width spaces.
	if got := strings.ReplaceAll(Escape("see https://x.example/#12", 0), "\u200b", ""); got != "see https://x.example/#12" {
		t.Errorf("the text reads %q", got)
	}
}
