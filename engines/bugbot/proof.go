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
	// KindStaleReview is the body Bugbot gives the reviews of an earlier
	// run when it clears them: "Stale Bugbot comment from a previous
	// run." (bugbot/11-… A). Not a review.
	KindStaleReview = "stale-review"
	// KindCheckException is a check output's word that the run reviewed
	// nothing (cancelled, skipped, failed): an exception (S10).
	KindCheckException = "check-exception"
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
	staleRE          = engines.BuiltinText(Name, KindStaleReview)
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
		case staleRE.MatchString(text):
			r.Kind = KindStaleReview
		case reviewFindingsRE.MatchString(text):
			r.Kind, r.Stated = KindReviewFindings, atoi(reviewFindingsRE.FindStringSubmatch(text)[1])
		case reviewCleanRE.MatchString(text):
			r.Kind, r.Stated = KindReviewClean, 0
		case freeTierRE.MatchString(text):
			r.Kind = KindFreeTierNotice
		}
		// S6 on every surface: "There are N total unresolved issues
		// (including M from previous review)" in a finished review's body
		// (11-… B), beside "found N" or "found no new issues".
		if r.Kind == KindReviewFindings || r.Kind == KindReviewClean {
			if m := totalRE.FindStringSubmatch(text); m != nil && atoi(m[1]) > r.Stated {
				r.Stated = atoi(m[1])
			}
		}
	case engines.SurfaceCheck:
		if c := ParseCheck("", text, ""); c.Known {
			r.Kind, r.Stated = KindCheckResult, c.Total
		}
	}
	r.Proof = engines.Allowed(proofKinds, s, r.Kind)
	return r
}
