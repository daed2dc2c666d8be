// Package docimg renders the report golden files (testdata/golden/report)
// to the GitHub-flavoured HTML pages the README's screenshots are taken
// from (docs/img/*.html). The HTML is regenerated and compared in every test
// run, so a change to the status comment or the job summary shows up as a
// stale picture; scripts/screenshots turns the pages into PNGs with a
// headless Chromium, which only that script needs.
package docimg

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// Picture is one screenshot: the golden markdown it shows and the page it
// is rendered to.
type Picture struct {
	// Name is the base name of docs/img/<Name>.html and .png.
	Name string
	// Golden is the golden file, relative to the repository root.
	Golden string
	// Title says what the picture shows (the page title and its alt text).
	Title string
	// Frame is the heading of the frame around the rendered markdown: who
	// posted the comment, or where the summary appears.
	Frame string
}

// Pictures are the README's screenshots, in the order the README shows
// them.
var Pictures = []Picture{
	{Name: "status-mid-loop", Golden: "testdata/golden/report/status-mid-loop.md", Title: "The status comment mid-loop", Frame: "github-actions bot commented"},
	{Name: "status-hand-back", Golden: "testdata/golden/report/status-clean.md", Title: "The status comment at a clean hand-back", Frame: "github-actions bot commented"},
	{Name: "job-summary", Golden: "testdata/golden/report/summary-asymmetric-hung.md", Title: "The job summary of a hand-back with one engine hung", Frame: "review-loop summary"},
}

// Dir is where the pages and their screenshots live, relative to the
// repository root.
const Dir = "docs/img"

// md renders as GitHub does for comments: CommonMark with the GFM
// extensions (tables, task lists, strikethrough, autolinks), raw HTML kept
// (<details>; the input is this repository's own golden files) and hard
// line breaks only where the source has them.
var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
)

// alert matches a GFM alert as goldmark renders it: a block quote whose
// first paragraph starts with [!KIND]. goldmark has no alert extension, so
// the block quote is rewritten to GitHub's markup. The golden files never
// nest block quotes, so the first closing tag ends the alert.
var alert = regexp.MustCompile(`(?s)<blockquote>\n<p>\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\n(.*?)</blockquote>`)

// Render turns one golden markdown file into a standalone HTML page.
func Render(p Picture, markdown []byte) ([]byte, error) {
	var body bytes.Buffer
	if err := md.Convert(markdown, &body); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", p.Golden, err)
	}
	out := alert.ReplaceAllStringFunc(body.String(), func(m string) string {
		sub := alert.FindStringSubmatch(m)
		kind := strings.ToLower(sub[1])
		return fmt.Sprintf("<div class=\"markdown-alert markdown-alert-%s\">\n<p class=\"markdown-alert-title\">%s</p>\n<p>%s</div>", kind, strings.ToUpper(kind[:1])+kind[1:], sub[2])
	})
	var page bytes.Buffer
	fmt.Fprintf(&page, pageTemplate, html.EscapeString(p.Title), css, html.EscapeString(p.Frame), out)
	return page.Bytes(), nil
}

// Generate renders every picture's page from the golden files under root,
// keyed by the page's path relative to root.
func Generate(root string) (map[string][]byte, error) {
	pages := map[string][]byte{}
	for _, p := range Pictures {
		src, err := os.ReadFile(filepath.Join(root, p.Golden))
		if err != nil {
			return nil, fmt.Errorf("reading the golden file of %s: %w", p.Name, err)
		}
		page, err := Render(p, src)
		if err != nil {
			return nil, err
		}
		pages[filepath.ToSlash(filepath.Join(Dir, p.Name+".html"))] = page
	}
	return pages, nil
}

// Write regenerates the pages under root.
func Write(root string) error {
	pages, err := Generate(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", Dir, err)
	}
	for path, b := range pages {
		if err := os.WriteFile(filepath.Join(root, path), b, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%s</title>
<style>
%s</style>
</head>
<body>
<div class="frame">
<div class="frame-header">%s</div>
<div class="markdown-body">
%s</div>
</div>
</body>
</html>
`

// css is a small subset of GitHub's light theme for comment bodies.
const css = `body { margin: 0; padding: 16px; background: #ffffff; width: 880px; }
.frame { border: 1px solid #d1d9e0; border-radius: 6px; overflow: hidden; }
.frame-header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Color Emoji"; }
.markdown-body { padding: 16px; color: #1f2328; word-wrap: break-word;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Color Emoji"; }
.markdown-body > *:first-child { margin-top: 0; }
.markdown-body h3, .markdown-body h4 { margin: 24px 0 16px; font-weight: 600; line-height: 1.25; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body h4 { font-size: 1em; }
.markdown-body p, .markdown-body ul, .markdown-body table, .markdown-body pre, .markdown-body details,
.markdown-body .markdown-alert { margin: 0 0 16px; }
.markdown-body ul { padding-left: 2em; }
.markdown-body a { color: #0969da; text-decoration: none; }
.markdown-body code { font: 85%/1.45 ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, monospace;
  background: rgba(129, 139, 152, 0.12); border-radius: 6px; padding: 0.2em 0.4em; }
.markdown-body pre { background: #f6f8fa; border-radius: 6px; padding: 16px; overflow: auto; }
.markdown-body pre code { background: none; padding: 0; font-size: 85%; }
.markdown-body table { border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; }
.markdown-body th, .markdown-body td { border: 1px solid #d1d9e0; padding: 6px 13px; }
.markdown-body th { font-weight: 600; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body summary { cursor: pointer; }
.markdown-alert { padding: 8px 16px; border-left: 0.25em solid #d1d9e0; }
.markdown-alert > p:last-child { margin-bottom: 0; }
.markdown-alert-title { font-weight: 500; margin-bottom: 4px !important; }
.markdown-alert-note { border-left-color: #0969da; } .markdown-alert-note .markdown-alert-title { color: #0969da; }
.markdown-alert-tip { border-left-color: #1a7f37; } .markdown-alert-tip .markdown-alert-title { color: #1a7f37; }
.markdown-alert-important { border-left-color: #8250df; } .markdown-alert-important .markdown-alert-title { color: #8250df; }
.markdown-alert-warning { border-left-color: #9a6700; } .markdown-alert-warning .markdown-alert-title { color: #9a6700; }
.markdown-alert-caution { border-left-color: #d1242f; } .markdown-alert-caution .markdown-alert-title { color: #d1242f; }
`
