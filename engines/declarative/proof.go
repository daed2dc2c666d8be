package declarative

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/engines"
)

// Notice kinds a declarative engine reads from its phrase lists.
const (
	KindQuota       = "quota"
	KindNotReviewed = "not-reviewed"
	KindError       = "error"
)

type kindMatcher struct {
	def KindDef
	re  *regexp.Regexp
}

// ProofKinds implements engines.Prover: the definition's kinds marked
// proof (S8).
func (e *Engine) ProofKinds() []engines.ProofKind {
	var out []engines.ProofKind
	for _, k := range e.def.Kinds {
		if k.Proof {
			out = append(out, engines.ProofKind{Kind: k.Kind, Surface: engines.Surface(k.Surface), Sample: k.Sample})
		}
	}
	return out
}

// Classify implements engines.Prover: the phrase lists first (quota, not
// reviewed, error), then the definition's kinds in order; a review body
// states the summary count (S6).
func (e *Engine) Classify(s engines.Surface, text string) engines.Reading {
	r := engines.Unknown()
	if s == engines.SurfaceInline {
		return r
	}
	switch n := e.classify(text, zeroTime); n.kind {
	case noticeQuota:
		r.Kind, r.Quota = KindQuota, true
		return r
	case noticeUnproven:
		r.Kind = KindNotReviewed
		return r
	case noticeError:
		r.Kind = KindError
		return r
	}
	for _, k := range e.kinds {
		if string(s) == k.def.Surface && k.re.MatchString(text) {
			r.Kind = k.def.Kind
			break
		}
	}
	if s == engines.SurfaceReview && r.Kind != engines.KindUnknown {
		if n, ok := e.SummaryCount(text); ok {
			r.Stated = n
		}
	}
	r.Proof = engines.Allowed(e.ProofKinds(), s, r.Kind)
	return r
}

// ReviewedCommit is the commit a review body says it reviewed, "" when it
// says none (reviewed_commit).
func (e *Engine) ReviewedCommit(body string) string {
	if e.reviewed == nil {
		return ""
	}
	ms := e.reviewed.FindAllStringSubmatch(body, -1)
	if ms == nil {
		return ""
	}
	m := ms[len(ms)-1]
	for i := len(m) - 1; i > 0; i-- {
		if c := strings.Trim(m[i], "` "); c != "" {
			return strings.ToLower(c)
		}
	}
	return ""
}

// sameCommit compares a full SHA with a possibly abbreviated one (at
// least 5 hex digits).
func sameCommit(full, abbr string) bool {
	if len(abbr) < 5 || len(abbr) > len(full) {
		return false
	}
	if _, err := strconv.ParseUint(abbr[:5], 16, 32); err != nil {
		return false
	}
	return strings.HasPrefix(strings.ToLower(full), abbr)
}
