package bugbot

import (
	"github.com/review-loop/review-loop/engines"
)

// Kinds of Bugbot post (S8, S9).
const (
	// KindReviewClean is the review body of a finished review that found
	// nothing new: "✅ Bugbot reviewed your changes and found no new issues!".
	KindReviewClean = "review-clean"
	// KindReviewFindings is the review body of a finished review that
	// found N: "Cursor Bugbot has reviewed your changes and found N
	// potential issue(s)." (N is a stated count, S6).
	KindReviewFindings = "review-findings"
	// KindFreeTierNotice is a review body that is only a free-tier notice
	// ("This PR is being reviewed by Cursor Bugbot"), no verdict.
	KindFreeTierNotice = "free-tier-notice"
	// KindUsageLimit is the usage-limit stop (T8), in a comment or a check.
	KindUsageLimit = "usage-limit"
	// KindCheckResult is the check output's "Final Result" and counts.
	KindCheckResult = "check-result"
)

var proofKinds = []engines.ProofKind{
	{Kind: KindReviewClean, Surface: engines.SurfaceReview, Sample: "bugbot/04-review-summary-bodies.md"},
	{Kind: KindReviewFindings, Surface: engines.SurfaceReview, Sample: "bugbot/10-review-body-fix-all-markers-jdx-mise-pr13233.md"},
}

// ProofKinds implements engines.Prover: only a Bugbot review body with its
// verdict line proves Bugbot finished reviewing a commit. The check run
// alone does not (it concludes neutral when cancelled, and an
// API-triggered clean run may post no review).
func (*Bugbot) ProofKinds() []engines.ProofKind { return proofKinds }

// Bugbot's words live in its definition, engines/defs/bugbot.yaml (S12).
var (
	reviewCleanRE    = engines.BuiltinText(Name, KindReviewClean)
	reviewFindingsRE = engines.BuiltinText(Name, KindReviewFindings)
	freeTierRE       = engines.BuiltinText(Name, KindFreeTierNotice)
)

// Classify implements engines.Prover.
func (b *Bugbot) Classify(s engines.Surface, text string) engines.Reading {
	r := engines.Unknown()
	if _, ok := ParseUsageLimit(text); ok && s != engines.SurfaceInline {
		r.Kind, r.Quota = KindUsageLimit, true
		return r
	}
	switch s {
	case engines.SurfaceReview:
		switch {
		case reviewFindingsRE.MatchString(text):
			r.Kind, r.Stated = KindReviewFindings, atoi(reviewFindingsRE.FindStringSubmatch(text)[1])
		case reviewCleanRE.MatchString(text):
			r.Kind, r.Stated = KindReviewClean, 0
		case freeTierRE.MatchString(text):
			r.Kind = KindFreeTierNotice
		}
	case engines.SurfaceCheck:
		if c := ParseCheck("", text, ""); c.Known {
			r.Kind, r.Stated = KindCheckResult, c.Total
		}
	}
	r.Proof = engines.Allowed(proofKinds, s, r.Kind)
	return r
}
