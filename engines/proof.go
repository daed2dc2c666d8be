package engines

import (
	"slices"

	"github.com/review-loop/review-loop/internal/loop"
)

// Surface is where an engine's text was posted.
type Surface string

// Surfaces an adapter classifies text on.
const (
	SurfaceReview  Surface = "review"  // a pull request review's body
	SurfaceComment Surface = "comment" // a conversation (issue) comment
	SurfaceCheck   Surface = "check"   // a check run's title, summary and text
	SurfaceInline  Surface = "inline"  // an inline review comment (a finding)
)

// KindUnknown is the kind of a text an adapter does not classify.
const KindUnknown = "unknown"

// Reading is an adapter's classification of one engine text (S8, S9).
type Reading struct {
	// Kind is the kind of post, KindUnknown when the adapter does not
	// know the text.
	Kind string
	// Proof is true only when Kind is one of the adapter's declared
	// finished-review kinds for the surface (its ProofKinds).
	Proof bool
	// Stated is the number of open findings the text states (S6); -1
	// when it states none.
	Stated int
	// Quota is true when the text is a usage, rate or quota notice (T8).
	Quota bool
}

// ProofKind is one kind of post an adapter accepts as a finished review
// (S8): an allow-list entry, each backed by a real sample.
type ProofKind struct {
	Kind    string
	Surface Surface
	// Sample is the real sample that shows this kind,
	// "<engine>/<file>" under testdata/engines.
	Sample string
}

// Prover is implemented by every adapter (S8): the kinds of post it
// recognises as a finished review, and its reading of any one text. An
// adapter sets EngineView.Proof only from a Reading whose Proof is true.
type Prover interface {
	ProofKinds() []ProofKind
	Classify(s Surface, text string) Reading
}

// Allowed reports whether kind on surface s is one of kinds: the one place
// a Reading's Proof is decided.
func Allowed(kinds []ProofKind, s Surface, kind string) bool {
	return kind != "" && kind != KindUnknown && slices.ContainsFunc(kinds, func(k ProofKind) bool {
		return k.Surface == s && k.Kind == kind
	})
}

// Unknown is the reading of a text an adapter does not classify.
func Unknown() Reading { return Reading{Kind: KindUnknown, Stated: -1} }

// ProveBy sets v.Proof from r when r proves a finished review of sha
// carried by post id, and otherwise keeps text as the engine's unproven
// word (S8). It reports whether the proof was set.
func ProveBy(v *loop.EngineView, r Reading, sha string, id int64, text string) bool {
	if r.Proof && sha != "" {
		v.Proof = &loop.Proof{Kind: r.Kind, SHA: sha, ID: id}
		return true
	}
	v.Unproven = text
	return false
}
