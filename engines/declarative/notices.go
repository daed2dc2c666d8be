package declarative

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// noticeKind is what an engine's status text says about its review.
type noticeKind int

const (
	noticeNone     noticeKind = iota
	noticeQuota               // a usage, rate or quota limit stopped the review (T8)
	noticeUnproven            // the engine completed without reviewing (S7)
	noticeError               // the engine failed
)

// notice is one status text of the engine.
type notice struct {
	kind   noticeKind
	phrase string
	// text is the engine's own words: the phrase's line, and the line
	// stating the wait when that is another one.
	text string
	wait time.Duration
	at   time.Time
}

// classify reads a comment or check-run text: quota phrases first (a
// rate-limit notice may carry a walkthrough below it, 07-…), then skip
// phrases, then error phrases.
func (e *Engine) classify(body string, at time.Time) notice {
	for _, k := range []struct {
		kind    noticeKind
		phrases []string
	}{{noticeQuota, e.def.QuotaPhrases}, {noticeUnproven, e.def.UnprovenPhrases}, {noticeError, e.def.ErrorPhrases}} {
		for _, p := range k.phrases {
			i := strings.Index(body, p)
			if i < 0 {
				continue
			}
			n := notice{kind: k.kind, phrase: p, at: at, text: noticeText(body, i)}
			if k.kind == noticeQuota {
				if w, j, ok := e.quotaWait(body); ok {
					n.wait = w
					if t := noticeText(body, j); !strings.Contains(n.text, t) {
						n.text += " — " + t
					}
				}
			}
			return n
		}
	}
	return notice{}
}

// quotaWait reads the cooldown a quota notice states, by the definition's
// quota_waits patterns (first group: "55 minutes and 34 seconds", "41
// minutes", "24 hours"), and where it was found.
func (e *Engine) quotaWait(body string) (time.Duration, int, bool) {
	for _, re := range e.waits {
		m := re.FindStringSubmatchIndex(body)
		if m == nil || m[2] < 0 {
			continue
		}
		if d, ok := ParseWait(body[m[2]:m[3]]); ok {
			return d, m[0], true
		}
	}
	return 0, 0, false
}

var waitPartRE = regexp.MustCompile(`(?i)(\d{1,6})\s*(hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b`)

// ParseWait reads a stated wait such as "55 minutes and 34 seconds", "41
// minutes", "1 hour 5 minutes" or "24 hours"; false when it names no
// duration. Waits are capped at a week.
func ParseWait(s string) (time.Duration, bool) {
	var d time.Duration
	found := false
	for _, m := range waitPartRE.FindAllStringSubmatch(s, 4) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		unit := time.Second
		switch u := strings.ToLower(m[2]); {
		case strings.HasPrefix(u, "h"):
			unit = time.Hour
		case strings.HasPrefix(u, "m"):
			unit = time.Minute
		}
		d += time.Duration(n) * unit
		found = true
	}
	if !found || d <= 0 {
		return 0, false
	}
	return min(d, 7*24*time.Hour), true
}

var noticeNoiseRE = regexp.MustCompile(`^[>#\s]+|\[![A-Z]+\]|<!--.*?-->|<[^>]{0,200}>`)

// noticeText is the line of body holding offset i, without blockquote,
// heading and HTML markup; a heading line takes the next prose line with
// it ("## Review failed" + "Failed to post review comments").
func noticeText(body string, i int) string {
	start := strings.LastIndex(body[:i], "\n") + 1
	lines := strings.Split(body[start:], "\n")
	out := clean(lines[0])
	heading := strings.HasPrefix(strings.TrimLeft(lines[0], "> "), "#")
	if heading {
		for _, l := range lines[1:min(len(lines), 6)] {
			if c := clean(l); c != "" {
				out += ": " + c
				break
			}
		}
	}
	if r := []rune(out); len(r) > 300 {
		out = string(r[:300]) + "…"
	}
	return out
}

func clean(l string) string {
	return strings.TrimSpace(noticeNoiseRE.ReplaceAllString(strings.TrimSpace(l), ""))
}
