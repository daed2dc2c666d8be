package triage

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/review-loop/review-loop/internal/loop"
)

// builtin is the catalogue Category reads, made on first use: most runs
// of the binary never triage, and each would pay for the parse at start.
var builtin = sync.OnceValue(Builtin)

// Category is the normalised no-progress category of a finding (W2) under
// the built-in catalogue; see (*Catalogue).Category.
func Category(f loop.Finding) string { return builtin().Category(f) }

// Category is the normalised no-progress category of a finding, so the
// same nit reworded maps to one category: `<engine>:cosmetic-prose` for
// cosmetic prose (docs, changelog, wording, typos in comments), else the
// matched pattern's id, else Bugbot's stable bug id, else a keyword bucket,
// else `<engine>:other`.
func (c *Catalogue) Category(f loop.Finding) string {
	return category(&f, c.Match(f), &lazyBucket{f: &f})
}

// category is Category with the finding's pattern p (c.Match) and its
// keyword bucket b already at hand: classify matches the catalogue and
// reads the bucket once per finding for its category, tier and
// justification.
func category(f *loop.Finding, p *Pattern, b *lazyBucket) string {
	if p != nil && p.Cosmetic || isProsePath(f.Path) || p == nil && b.get() == "cosmetic-prose" {
		return strings.ToLower(f.Engine) + ":cosmetic-prose"
	}
	if p != nil {
		return p.ID
	}
	if f.Key != "" {
		return "key:" + f.Key
	}
	if b := b.get(); b != "" {
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

// buckets are the keyword buckets, first match wins. A bucket holds when
// one of its terms is among the title's normalised words: a word, a
// phrase of consecutive words ("off by one") or, ending in "*", a word's
// prefix ("concurren*": concurrent, concurrency…). Matching whole words
// this way gives what `\b(term|…)\b` matched on the normalised title
// (FuzzBucketIsTheKeywordRegexps holds the two together) at a fraction of
// the cost: the regular expressions were half of a busy cycle's triage.
var buckets = []struct {
	name  string
	terms []string
}{
	{"cosmetic-prose", []string{"typo", "spelling", "grammar", "wording", "phrasing", "comment", "docstring", "documentation", "changelog"}},
	{"race", []string{"race", "data race", "concurren*", "mutex", "atomic", "deadlock"}},
	{"security", []string{"inject*", "xss", "csrf", "secret", "token", "credential", "sanitiz*", "escap*", "traversal"}},
	{"nil-check", []string{"nil", "null", "undefined", "none"}},
	{"error-handling", []string{"err", "error", "errors", "exception", "panic"}},
	{"bounds", []string{"bound", "bounds", "index", "overflow", "off by one"}},
	{"resource-leak", []string{"leak*", "close", "closed", "defer"}},
	{"performance", []string{"performance", "slow", "allocat*", "inefficien*", "quadratic"}},
	{"naming", []string{"naming", "rename", "name"}},
	{"tests", []string{"test", "tests", "coverage"}},
}

// bucketNeedles are the buckets' terms as substrings of " word word … ":
// " term " for a word or a phrase, " prefix" for a prefix.
var bucketNeedles = func() [][]string {
	out := make([][]string, len(buckets))
	for i, b := range buckets {
		for _, t := range b.terms {
			if prefix, ok := strings.CutSuffix(t, "*"); ok {
				out[i] = append(out[i], " "+prefix)
			} else {
				out[i] = append(out[i], " "+t+" ")
			}
		}
	}
	return out
}()

// lazyBucket is a finding's keyword bucket, worked out on first use.
type lazyBucket struct {
	f    *loop.Finding
	done bool
	name string
}

func (l *lazyBucket) get() string {
	if !l.done {
		l.name, l.done = bucket(l.f), true
	}
	return l.name
}

// bucket normalises a finding's title (or, without a title, the first
// prose line of its body) to lower-case words and picks the first keyword
// bucket that matches.
func bucket(f *loop.Finding) string {
	text := f.Title
	if strings.TrimSpace(text) == "" {
		text = firstProse(f.Body)
	}
	norm := normWords(strings.ToLower(strings.ReplaceAll(text, "-", " ")))
	for i, needles := range bucketNeedles {
		if slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(norm, n) }) {
			return buckets[i].name
		}
	}
	return ""
}

// normWords returns s's runs of a–z and 0–9 (what [a-z0-9]+ finds: no
// byte of a multi-byte character is one of them), each with a space
// before and after: " word word ".
func normWords(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			b.WriteByte(c)
			in = true
		} else if in {
			b.WriteByte(' ')
			in = false
		}
	}
	if in {
		b.WriteByte(' ')
	}
	return b.String()
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
