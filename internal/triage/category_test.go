package triage

import (
	"regexp"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// regexpBuckets are the keyword buckets as the regular expressions they
// were written as, over the title's lower-case words joined by single
// spaces: the reference bucket must agree with.
var regexpBuckets = []struct {
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

func regexpBucket(f loop.Finding) string {
	text := f.Title
	if strings.TrimSpace(text) == "" {
		text = firstProse(f.Body)
	}
	norm := strings.Join(regexp.MustCompile(`[a-z0-9]+`).FindAllString(strings.ToLower(strings.ReplaceAll(text, "-", " ")), -1), " ")
	for _, b := range regexpBuckets {
		if b.re.MatchString(norm) {
			return b.name
		}
	}
	return ""
}

// W2: the word matching of the keyword buckets picks the bucket the
// regular expressions pick, on any title or body.
func FuzzBucketIsTheKeywordRegexps(f *testing.F) {
	for _, s := range []string{"Possible data race on the cache map", "Off-by-one in loop bound", "off by  one", "offbyone",
		"Concurrency bug", "unconcurrent", "Leaky close", "the_name", "ERR: Nil", "K\u212a nil", "\xffnil\xfe", "allocations-heavy",
		"rename_it", "a test9", "9test", "tests?", "dataRace", "data\nrace", ""} {
		f.Add(s, "")
	}
	f.Add("", "```go\nnil\n```\n_note_\nLeaks a file")
	f.Fuzz(func(t *testing.T, title, body string) {
		fd := loop.Finding{Title: title, Body: body}
		if got, want := bucket(&fd), regexpBucket(fd); got != want {
			t.Fatalf("title %q body %q: bucket %q, the regular expressions say %q", title, body, got, want)
		}
	})
}
