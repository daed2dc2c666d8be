package triage

import (
	"path"
	"regexp"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
)

var builtin = Builtin()

// Category is the normalised no-progress category of a finding (W2) under
// the built-in catalogue; see (*Catalogue).Category.
func Category(f loop.Finding) string { return builtin.Category(f) }

// Category is the normalised no-progress category of a finding, so the
// same nit reworded maps to one category: `<engine>:cosmetic-prose` for
// cosmetic prose (docs, changelog, wording, typos in comments), else the
// matched pattern's id, else Bugbot's stable bug id, else a keyword bucket,
// else `<engine>:other`.
func (c *Catalogue) Category(f loop.Finding) string {
	p := c.Match(f)
	if p != nil && p.Cosmetic || isProsePath(f.Path) || bucket(f) == "cosmetic-prose" && p == nil {
		return strings.ToLower(f.Engine) + ":cosmetic-prose"
	}
	if p != nil {
		return p.ID
	}
	if f.Key != "" {
		return "key:" + f.Key
	}
	if b := bucket(f); b != "" {
		return b
	}
	return strings.ToLower(f.Engine) + ":other"
}

func isProsePath(p string) bool {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	return ext == ".md" || ext == ".rst" || ext == ".adoc" || ext == ".txt" ||
		strings.HasPrefix(base, "changelog") || strings.HasPrefix(p, "docs/")
}

var buckets = []struct {
	name string
	re   *regexp.Regexp
}{
	{"cosmetic-prose", regexp.MustCompile(`\b(typo|spelling|grammar|wording|phrasing|comment|docstring|documentation|changelog)\b`)},
	{"race", regexp.MustCompile(`\b(race|data race|concurren\w*|mutex|atomic|deadlock)\b`)},
	{"security", regexp.MustCompile(`\b(inject\w*|xss|csrf|secret|token|credential|sanitiz\w*|escap\w*|traversal)\b`)},
	{"nil-check", regexp.MustCompile(`\b(nil|null|undefined|none)\b`)},
	{"error-handling", regexp.MustCompile(`\b(err|error|errors|exception|panic)\b`)},
	{"bounds", regexp.MustCompile(`\b(bound|bounds|index|overflow|off by one)\b`)},
	{"resource-leak", regexp.MustCompile(`\b(leak\w*|close|closed|defer)\b`)},
	{"performance", regexp.MustCompile(`\b(performance|slow|allocat\w*|inefficien\w*|quadratic)\b`)},
	{"naming", regexp.MustCompile(`\b(naming|rename|name)\b`)},
	{"tests", regexp.MustCompile(`\b(test|tests|coverage)\b`)},
}

var wordRe = regexp.MustCompile(`[a-z0-9]+`)

// bucket normalises a finding's title (or, without a title, the first
// prose line of its body) to lower-case words and picks the first keyword
// bucket that matches.
func bucket(f loop.Finding) string {
	text := f.Title
	if strings.TrimSpace(text) == "" {
		text = firstProse(f.Body)
	}
	norm := strings.Join(wordRe.FindAllString(strings.ToLower(strings.ReplaceAll(text, "-", " ")), -1), " ")
	for _, b := range buckets {
		if b.re.MatchString(norm) {
			return b.name
		}
	}
	return ""
}

func firstProse(body string) string {
	inFence := false
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "![") || strings.HasPrefix(t, "_") {
			continue
		}
		return t
	}
	return ""
}
