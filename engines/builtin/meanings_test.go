package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/engines/claude"
	"github.com/review-loop/review-loop/engines/copilot"
	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/engines/internal/samples"
)

// verdict is what a sample text means to the loop (S9).
type verdict string

const (
	// finished: a finished review, proof for the adapter (S8).
	finished verdict = "finished-review"
	// notProof: an engine post that is no proof of a finished review
	// (placeholder, ack, refusal, notice, walkthrough, error, quota).
	notProof verdict = "not-proof"
	// finding: an inline finding comment, read by the finding parser.
	finding verdict = "finding"
	// doc: no engine text to classify (templates, tables, notes).
	doc verdict = "documentation"
	// structural: a finished review that is no S8 allow-listed kind: it
	// proves the review only by structure (S10), with the engine's own
	// completion signal concluded successfully for the head.
	structural verdict = "finished-by-structure"
)

// meaning is the declared meaning of one text of a sample file: its
// fenced block (index in samples.Blocks; for a .json sample, 0 is the
// object's body), the surface it was posted on, and what it means.
type meaning struct {
	block   int
	surface engines.Surface
	kind    string
	verdict verdict
	stated  int // -1: states no count
	quota   bool
}

func m(block int, s engines.Surface, kind string, v verdict, stated int, quota bool) meaning {
	return meaning{block, s, kind, v, stated, quota}
}

const (
	rv = engines.SurfaceReview
	cm = engines.SurfaceComment
	ck = engines.SurfaceCheck
	in = engines.SurfaceInline
	un = engines.KindUnknown
)

// meanings is S9's one table: every real sample in testdata/engines, and
// for each of its texts the kind, verdict, stated count and quota the
// adapter must read. A sample without an entry fails the build
// (TestRule_S9_EverySampleHasADeclaredMeaning).
var meanings = map[string][]meaning{
	"bugbot/01-inline-high-severity-people-directory-pr1.md":               {m(0, in, un, finding, -1, false)},
	"bugbot/02-inline-medium-additional-locations-people-directory-pr2.md": {m(0, in, un, finding, -1, false)},
	"bugbot/04-review-summary-bodies.md": {
		m(0, rv, bugbot.KindReviewClean, finished, 0, false),
		m(1, rv, bugbot.KindReviewClean, finished, 0, false),
		m(2, rv, bugbot.KindReviewFindings, finished, 1, false),
		m(3, rv, bugbot.KindReviewClean, finished, 0, false),
	},
	// The PR description block Bugbot edits: not a review.
	"bugbot/05-pr-description-cursor-summary-block.md": {
		m(0, rv, un, notProof, -1, false), m(1, rv, un, notProof, -1, false), m(2, rv, un, notProof, -1, false),
	},
	"bugbot/06-issue-comment-usage-limit-dsifry-metareview-pr206.md": {m(0, cm, bugbot.KindUsageLimit, notProof, -1, true)},
	"bugbot/08-check-run-output-texts-forum-and-quoted.md": {
		m(0, ck, bugbot.KindCheckResult, notProof, 0, false),
		// Four quoted summaries in one block: the largest count, 2.
		m(1, ck, bugbot.KindCheckResult, notProof, 2, false),
		m(2, ck, un, doc, -1, false), m(3, ck, un, doc, -1, false),
	},
	"bugbot/09-review-body-free-tier-notices-joiabagur-pv-pr1-pr3.md": {
		m(0, rv, bugbot.KindFreeTierNotice, notProof, -1, false),
		m(1, rv, bugbot.KindReviewFindings, finished, 2, false),
	},
	"bugbot/10-review-body-fix-all-markers-jdx-mise-pr13233.md": {
		m(0, rv, bugbot.KindReviewFindings, finished, 1, false),
		m(1, in, un, finding, -1, false),
	},

	"copilot/01-review-overview-v2-clean-edburns-cargotracker-pr7.json": {m(0, rv, copilot.PostOverviewV2, finished, 0, false)},
	"copilot/03-review-comment-with-suggestion-iolo-fed-pr6.json":       {m(0, in, un, finding, -1, false)},
	"copilot/04-review-body-pull-request-overview-iolo-fed-pr6.md": {
		m(0, rv, un, doc, -1, false), // the `gh pr view` header lines
		m(1, rv, copilot.PostOverviewClassic, finished, 5, false),
	},
	"copilot/05-review-body-suppressed-low-confidence.md": {
		m(0, rv, copilot.PostOverviewClassic, finished, 4, false),
		m(1, rv, copilot.PostOverviewClassic, finished, 5, false),
	},
	"copilot/06-inline-comment-bodies-public-threads.md": {
		m(0, in, un, finding, -1, false), m(1, in, un, finding, -1, false), m(2, in, un, finding, -1, false),
	},
	"copilot/07-error-and-no-files-messages.md": {
		m(0, rv, copilot.PostError, notProof, -1, false),
		m(1, rv, copilot.PostError, notProof, -1, false),
		m(2, rv, copilot.PostPartialSuite, notProof, -1, false),
	},
	// "**Findings:** None" plus one "Previously missed (1)": 1 stated.
	"copilot/08-review-overview-v2-needs-closer-look-ronen-postcode-pr6.md":        {m(0, rv, copilot.PostOverviewV2, finished, 1, false)},
	"copilot/09-review-body-suppressed-low-confidence-boostorg-openmethod-pr37.md": {m(0, rv, copilot.PostOverviewClassic, finished, 0, false)},
	"copilot/10-review-body-legacy-overview-key-issues-rjmurillo-pr142.md":         {m(0, rv, copilot.PostOverviewClassic, finished, 8, false)},
	"copilot/13-error-reviews-then-success-vllm-pr31104.md": {
		m(0, rv, copilot.PostError, notProof, -1, false),
		m(1, rv, copilot.PostError, notProof, -1, false),
		m(2, rv, copilot.PostOverviewClassic, finished, 0, false),
	},
	"copilot/14-review-body-quota-limit-helm-pr32229.md": {m(0, rv, copilot.PostQuota, notProof, -1, true)},
	// Reports of a failed check with no output: no engine text at all.
	"copilot/15-failed-dynamic-check-no-output-unity-helpers-issue460.md": {m(-1, ck, un, doc, -1, false)},

	"claude/01-action-tracking-comment-final-flashinfer-bench-issue177.md": {m(0, cm, claude.KindActionFinished, finished, -1, false)},
	"claude/02-action-pr-review-comments-wshobson-agents-pr618.md": {
		m(0, cm, claude.KindActionFinished, finished, -1, false),
		m(1, cm, claude.KindActionFinished, finished, -1, false),
	},
	"claude/03-action-comment-templates-from-source.md": {
		m(0, cm, claude.KindActionWorking, notProof, -1, false),
		m(1, cm, claude.KindActionFinished, finished, -1, false),
		m(2, cm, un, doc, -1, false),
	},
	"claude/04-code-review-plugin-output-template.md": {
		m(0, cm, un, doc, -1, false),
		m(1, cm, claude.KindPluginSummary, finished, -1, false),
		m(2, cm, claude.KindPluginSummary, finished, -1, false),
		m(3, cm, un, doc, -1, false),
		m(4, cm, claude.KindPluginSummary, finished, -1, false),
	},
	"claude/05-managed-code-review-check-run-text.md": {
		m(0, ck, claude.KindManagedCheck, finished, 4, false),
		m(1, ck, claude.KindManagedCheck, finished, 4, false),
		m(2, ck, un, doc, -1, false),
	},
	"claude/06-action-pr-review-comment-verificay-pr3.md": {m(0, cm, claude.KindActionFinished, finished, -1, false)},

	"gemini/01-review-body-and-inline-tbxark-mcp-proxy-pr49.md": {
		m(0, rv, "code-review", finished, -1, false),
		m(1, in, un, finding, -1, false), m(2, in, un, finding, -1, false), m(3, in, un, finding, -1, false),
	},
	"gemini/02-inline-critical-video-agent-skill-pr20.md": {m(0, in, un, finding, -1, false)},
	"gemini/04-summary-help-and-sunset-notices.md": {
		m(0, cm, un, doc, -1, false),
		m(1, cm, declarative.KindError, notProof, -1, false),
	},
	"gemini/05-quota-warning-and-code-review-positive-llc-pr36.md": {
		m(0, rv, "code-review", finished, -1, false),
		m(1, in, un, finding, -1, false), m(2, in, un, finding, -1, false),
		m(3, cm, declarative.KindQuota, notProof, -1, true),
	},
	"gemini/06-summary-of-changes-review-lexlattice-tf-lang-pr101.md": {
		m(0, rv, "summary-placeholder", notProof, -1, false),
		m(1, rv, "code-review", finished, -1, false),
	},
	"gemini/07-unsupported-file-types-note-rjmurillo-ai-agents.md": {m(0, cm, declarative.KindNotReviewed, notProof, -1, false)},

	"coderabbit/01-inline-comment-2026-format-roundfix-pr154.md": {m(0, in, un, finding, -1, false)},
	"coderabbit/02-walkthrough-and-review-body-black-swa-v1-pr14.md": {
		m(0, cm, "walkthrough", notProof, -1, false),
		m(1, rv, "actionable-comments", finished, 2, false),
	},
	"coderabbit/03-walkthrough-paused-and-pr-body-summary-jdx-mise-12718.md": {
		m(0, cm, "release-notes", notProof, -1, false),
		m(1, cm, "walkthrough", notProof, -1, false),
	},
	"coderabbit/04-rate-limit-and-status-notices.md": {
		m(0, cm, declarative.KindQuota, notProof, -1, true),
		m(1, cm, declarative.KindQuota, notProof, -1, true),
		m(2, cm, "ack", notProof, -1, false),
		m(3, cm, declarative.KindError, notProof, -1, false),
	},
	"coderabbit/06-review-skipped-auto-reviews-disabled-mryfmo-dotfiles-pr297.md": {
		m(0, cm, declarative.KindNotReviewed, notProof, -1, false),
		m(1, ck, declarative.KindNotReviewed, notProof, -1, false),
	},
	"coderabbit/07-review-limit-spending-cap-walkthrough-purrdf-pr507.md":      {m(0, cm, declarative.KindQuota, notProof, -1, true)},
	"coderabbit/08-review-body-outside-diff-duplicates-nitpicks-exstruct.md":   {m(0, rv, "actionable-comments", finished, 0, false)},
	"coderabbit/09-review-failed-post-comments-walkthrough-rjmurillo-pr142.md": {m(0, cm, declarative.KindError, notProof, -1, false)},
	"coderabbit/10-review-bodies-included-availability-jdx-mise-pr13233.md": {
		m(0, cm, "walkthrough", notProof, -1, false),
		m(1, rv, "actionable-comments", finished, 1, false),
		m(2, rv, "review-status-body", finished, -1, false),
	},
	"coderabbit/12-inline-nitpick-assertive-partcad-pr220.md":                         {m(0, in, un, finding, -1, false)},
	"coderabbit/13-full-review-fallback-notice-jdx-mise-pr12882.md":                   {m(0, cm, un, notProof, -1, false)},
	"coderabbit/14-walkthrough-review-in-progress-flujo-pr555.md":                     {m(0, cm, "walkthrough", notProof, -1, false)},
	"coderabbit/15-review-body-nitpick-only-no-actionable-header-jdx-mise-pr12904.md": {m(0, rv, "review-status-body", finished, -1, false)},
	"copilot/16-review-overview-approval-recommended-review-details-teqplay-pr869.md": {m(0, rv, copilot.PostOverviewDetails, structural, 0, false)},
	"bugbot/11-review-bodies-stale-total-unresolved-using-effort.md": {
		m(0, rv, bugbot.KindStaleReview, notProof, -1, false),
		m(1, rv, bugbot.KindReviewFindings, finished, 2, false),
		m(2, rv, bugbot.KindReviewFindings, finished, 1, false),
	},
	"coderabbit/11-action-not-completed-already-reviewed-lhpaul-issue1591.md": {
		m(0, cm, "refusal", notProof, -1, false),
		m(1, cm, un, doc, -1, false),
	},

	"github-threads/01-outdated-line-null-and-reply-review-ids.md": {m(-1, in, un, doc, -1, false)},
}

// texts returns the texts of a sample: its top-level fenced blocks, or
// for a .json sample the object's body.
func texts(t *testing.T, s samples.Sample) []string {
	t.Helper()
	if strings.HasSuffix(s.Name, ".json") {
		var o struct {
			Body string `json:"body"`
		}
		if err := json.Unmarshal([]byte(s.Text), &o); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		return []string{o.Body}
	}
	return samples.Blocks(s.Text)
}

func provers(t *testing.T) map[string]engines.Prover {
	t.Helper()
	r, err := Registry(Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]engines.Prover{}
	for _, n := range r.Names() {
		e, _ := r.Lookup(n)
		p, ok := e.(engines.Prover)
		if !ok {
			t.Fatalf("engine %s declares no finished-review kinds (engines.Prover, S8)", n)
		}
		out[n] = p
	}
	return out
}

func parseFinding(t *testing.T, engine, body string) engines.Parsed {
	t.Helper()
	switch engine {
	case "bugbot":
		return bugbot.ParseFinding(body)
	case "copilot":
		return copilot.ParseComment(body)
	case "claude":
		return claude.ParseFinding(body)
	}
	r, _ := Registry(Options{})
	e, _ := r.Lookup(engine)
	return e.(*declarative.Engine).ParseFinding(body)
}

func TestRule_S9_EverySampleHasADeclaredMeaning(t *testing.T) {
	root := filepath.Dir(samples.Dir(t, "bugbot"))
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		for _, s := range samples.Load(t, d.Name()) {
			key := d.Name() + "/" + s.Name
			seen[key] = true
			if !strings.HasPrefix(s.Source, "<!-- source:") {
				t.Errorf("%s: the first line must name its source", key)
			}
			if len(meanings[key]) == 0 {
				t.Errorf("%s: no declared meaning in the S9 table (engines/builtin/meanings_test.go)", key)
			}
		}
	}
	for key := range meanings {
		if !seen[key] {
			t.Errorf("S9 table names %s, which is not a sample", key)
		}
	}
}

func TestRule_S9_TheAdaptersReadEverySampleAsTheTableSays(t *testing.T) {
	ps := provers(t)
	for key, ms := range meanings {
		engine, name, _ := strings.Cut(key, "/")
		p := ps[engine]
		if engine == "github-threads" {
			continue
		}
		s := samples.Get(t, samples.Load(t, engine), name)
		txts := texts(t, s)
		covered := make([]bool, len(txts))
		for _, mn := range ms {
			if mn.block < 0 {
				if len(txts) != 0 {
					t.Errorf("%s: declared without texts, but has %d", key, len(txts))
				}
				continue
			}
			if mn.block >= len(txts) {
				t.Errorf("%s: block %d missing (%d blocks)", key, mn.block, len(txts))
				continue
			}
			covered[mn.block] = true
			text := txts[mn.block]
			if mn.verdict == finding {
				if pf := parseFinding(t, engine, text); pf.Title == "" {
					t.Errorf("%s[%d]: a finding the %s parser reads no title from", key, mn.block, engine)
				}
			}
			got := p.Classify(mn.surface, text)
			want := engines.Reading{Kind: mn.kind, Proof: mn.verdict == finished, Stated: mn.stated, Quota: mn.quota}
			if mn.verdict == finding && engine == "claude" {
				want = engines.Reading{Kind: claude.KindPluginInline, Proof: true, Stated: -1}
			}
			if got != want {
				t.Errorf("%s[%d] on %s: adapter reads %+v, the table says %+v", key, mn.block, mn.surface, got, want)
			}
			// Only the declared surface may prove: the same text elsewhere
			// never does (a review body quoted in a comment is no review).
			for _, other := range []engines.Surface{rv, cm, ck} {
				if other != mn.surface && p.Classify(other, text).Proof {
					t.Errorf("%s[%d]: proof on surface %s too", key, mn.block, other)
				}
			}
		}
		for i, c := range covered {
			if !c {
				t.Errorf("%s: block %d has no declared meaning", key, i)
			}
		}
	}
}

// Every finished-review kind an adapter accepts is backed by a real sample
// the table declares as that kind (S8).
func TestRule_S8_EveryProofKindIsBackedByARealSample(t *testing.T) {
	for engine, p := range provers(t) {
		kinds := p.ProofKinds()
		if len(kinds) == 0 {
			t.Errorf("%s: no finished-review kind: it could never be CLEAN", engine)
		}
		for _, k := range kinds {
			ms, ok := meanings[k.Sample]
			if !ok || !strings.HasPrefix(k.Sample, engine+"/") {
				t.Errorf("%s: kind %s names sample %q, which is not one of its samples in the S9 table", engine, k.Kind, k.Sample)
				continue
			}
			if !slices.ContainsFunc(ms, func(mn meaning) bool {
				return mn.kind == k.Kind && mn.verdict == finished && mn.surface == k.Surface
			}) && !(engine == "claude" && k.Kind == claude.KindPluginInline) {
				t.Errorf("%s: kind %s on %s: sample %s has no text of that kind", engine, k.Kind, k.Surface, k.Sample)
			}
		}
	}
}
