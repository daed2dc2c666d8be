package copilot

import (
	"github.com/review-loop/review-loop/engines"
)

// Kinds of Copilot post (S8, S9).
const (
	// PostOverviewClassic is the "Pull request overview" review body with
	// "Copilot reviewed X out of Y changed files … and generated K
	// comments" (K is a stated count, S6).
	PostOverviewClassic = "overview-classic"
	// PostOverviewV2 is the "<!-- ccr-overview-v2 -->" review body with
	// "**Findings:** N" (and "Previously missed (N)", S6).
	PostOverviewV2 = "overview-v2"
	// PostOverviewDetails is the 2026-09 overview: a verdict heading
	// ("### 🟢 Approval recommended") and a "Review details" list with
	// "**Comments generated:** N" (N is stated, S6). Not an allow-listed
	// kind: it proves a review only by structure (S10), with Copilot's
	// dynamic check run concluded on the head (copilot/16-…).
	PostOverviewDetails = "overview-details"
	// PostError is a review body saying Copilot could not review.
	PostError = "error"
	// PostPartialSuite is the note that Copilot could not run its full
	// agentic suite, on its own.
	PostPartialSuite = "partial-suite-note"
	// PostQuota is a review body saying the requester has reached their
	// quota limit (T8, helm/helm#32229).
	PostQuota = "quota"
)

var proofKinds = []engines.ProofKind{
	{Kind: PostOverviewClassic, Surface: engines.SurfaceReview, Sample: "copilot/04-review-body-pull-request-overview-iolo-fed-pr6.md"},
	{Kind: PostOverviewV2, Surface: engines.SurfaceReview, Sample: "copilot/08-review-overview-v2-needs-closer-look-ronen-postcode-pr6.md"},
}

// ProofKinds implements engines.Prover: a Copilot review body of the
// overview kinds, each stating its count. The 2026-05 overview that lists
// "**Changes:**" and states no count has no real sample here and is not
// proof.
func (*Copilot) ProofKinds() []engines.ProofKind { return proofKinds }

// Copilot's words live in its definition, engines/defs/copilot.yaml (S12).
var (
	quotaBodyRE = engines.BuiltinText(Name, PostQuota)
	classicRE   = engines.BuiltinText(Name, PostOverviewClassic)
)

// Classify implements engines.Prover.
func (c *Copilot) Classify(s engines.Surface, text string) engines.Reading {
	r := engines.Unknown()
	if s != engines.SurfaceReview {
		return r
	}
	ov := ParseOverview(text)
	switch {
	case quotaBodyRE.MatchString(text):
		r.Kind, r.Quota = PostQuota, true
	case ov.Kind == KindError:
		r.Kind = PostError
	case ov.Kind == KindV2 && findingsRE.MatchString(text):
		r.Kind, r.Stated = PostOverviewV2, ov.Comments+ov.PreviouslyMissed
	case ov.Kind == KindClassic && classicRE.MatchString(text):
		r.Kind, r.Stated = PostOverviewClassic, ov.Comments+ov.PreviouslyMissed
	case ov.Kind == KindDetails:
		r.Kind, r.Stated = PostOverviewDetails, ov.Comments+ov.PreviouslyMissed
	case partialRE.MatchString(text):
		r.Kind = PostPartialSuite
	}
	r.Proof = engines.Allowed(proofKinds, s, r.Kind)
	return r
}
