package docimg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var root = filepath.Join("..", "..")

// TestDocImages_CommittedHTMLIsTheGoldenFilesRendered is the CI check of
// the README's pictures: the pages under docs/img are what the golden
// files render to now, so a change to the status comment or the job
// summary fails here until scripts/screenshots is run again.
func TestDocImages_CommittedHTMLIsTheGoldenFilesRendered(t *testing.T) {
	t.Parallel()
	pages, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range pages {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Errorf("%s: %v; run scripts/screenshots and commit docs/img", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its golden file rendered now; run scripts/screenshots and commit docs/img", path)
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, Dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".html") && pages[Dir+"/"+e.Name()] == nil {
			t.Errorf("%s/%s is no picture of Pictures; remove it", Dir, e.Name())
		}
	}
}

// TestDocImages_EachPNGWasTakenFromItsCommittedHTML reads the source stamp
// scripts/screenshots writes into each PNG: a picture taken from another
// version of its page fails.
func TestDocImages_EachPNGWasTakenFromItsCommittedHTML(t *testing.T) {
	t.Parallel()
	for _, p := range Pictures {
		page, err := os.ReadFile(filepath.Join(root, Dir, p.Name+".html"))
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		img, err := os.ReadFile(filepath.Join(root, Dir, p.Name+".png"))
		if err != nil {
			t.Errorf("%s: %v; run scripts/screenshots", p.Name, err)
			continue
		}
		src, err := SourceOf(img)
		if err != nil {
			t.Errorf("%s.png: %v", p.Name, err)
			continue
		}
		if want := SourceID(page); src != want {
			t.Errorf("%s.png was taken from a page with digest %s, the committed %s.html has %s; run scripts/screenshots", p.Name, src, p.Name, want)
		}
	}
}

func TestRender_GitHubAlertsTablesAndDetails(t *testing.T) {
	t.Parallel()
	src := "### title\n\n> [!WARNING]\n> **Asymmetric clearance:** x\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<details><summary>Event log</summary>\n\n```jsonl\n{\"a\":1}\n```\n\n</details>\n"
	page, err := Render(Picture{Name: "x", Golden: "x.md", Title: "T <x>", Frame: "F"}, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{
		`<div class="markdown-alert markdown-alert-warning">`,
		`<p class="markdown-alert-title">Warning</p>`,
		"<strong>Asymmetric clearance:</strong> x",
		"<table>", "<td>2</td>",
		"<details><summary>Event log</summary>",
		`<code class="language-jsonl">`,
		"<title>T &lt;x&gt;</title>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "[!WARNING]") || strings.Contains(s, "<blockquote>") {
		t.Errorf("the alert is left as a block quote:\n%s", s)
	}
}
