package engines

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// FuzzRule_S12_EngineTextsParse: any config text either parses into
// patterns that all compile (or are phrases), or is refused with an
// error; it never panics.
func FuzzRule_S12_EngineTextsParse(f *testing.F) {
	f.Add("engine_texts:\n  bugbot:\n    quota: [\"out of credits\"]\n")
	f.Add("engine_texts:\n  bugbot:\n    proof:\n      - {kind: x, surface: review, pattern: 'a(b'}\n")
	f.Add("engine_texts: [1, 2]\n")
	f.Add("engine_texts:\n  Bad Name:\n    skip: [{}]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		for _, origin := range []string{OriginBuiltin, OriginRepository} {
			ts, err := ParseEngineTexts([]byte(doc), origin)
			if err != nil {
				continue
			}
			for e, ps := range ts {
				for _, p := range ps {
					if (p.Pattern == "") == (p.Phrase == "") || (p.Pattern != "" && p.re == nil) {
						t.Fatalf("%s: accepted an entry that is neither one phrase nor one compiled pattern: %+v", e, p)
					}
				}
			}
		}
	})
}

// FuzzRule_S12_AnExceptionAlwaysWinsOverARepositorysProof: whatever the
// head review says, when it holds the repository's quota text and its
// proof text, the engine is in quota and not proven; and a proof text
// never proves a review of another commit.
func FuzzRule_S12_AnExceptionAlwaysWinsOverARepositorysProof(f *testing.F) {
	f.Add("all clear", "all clear", "no credits left")
	f.Add("## Review\nall clear\nno credits left", "all clear", "no credits left")
	f.Fuzz(func(t *testing.T, body, proof, quota string) {
		if strings.TrimSpace(proof) == "" || strings.TrimSpace(quota) == "" || strings.ContainsAny(proof+quota, "\n\r") {
			return
		}
		ps := []TextPattern{{Class: TextProof, Phrase: proof, Surface: "any"}, {Class: TextQuota, Phrase: quota, Surface: "any"}}
		a := Author{Logins: []string{"acme"}, ID: 7}
		const head, old = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
		at := time.Unix(1_800_000_000, 0)
		for _, reviewed := range []string{head, old} {
			o := &github.Observation{HeadSHA: head, Complete: true,
				Reviews: []github.Review{{DatabaseID: 9, Author: github.Actor{Login: "acme", DatabaseID: 7, IsBot: true}, CommitSHA: reviewed,
					State: "COMMENTED", Body: body + "\n" + quota, SubmittedAt: at}}}
			v := loop.EngineView{Engine: "acme", Signal: loop.SignalDone, Material: loop.MaterialOK}
			ApplyTexts(&v, o, a, ps)
			if loop.Proven(v, head) {
				t.Fatalf("proven over the quota text (review of %s): %+v", reviewed[:7], v.Proof)
			}
			if reviewed == head && v.Material != loop.MaterialQuota {
				t.Fatalf("material %s, want QUOTA", v.Material)
			}
			// Without the quota text: proof only of the head review.
			o.Reviews[0].Body = body + "\n" + proof
			if strings.Contains(o.Reviews[0].Body, quota) {
				continue
			}
			v = loop.EngineView{Engine: "acme", Signal: loop.SignalDone, Material: loop.MaterialOK}
			ApplyTexts(&v, o, a, ps)
			if got := loop.Proven(v, head); got != (reviewed == head) {
				t.Fatalf("review of %s: proven %v", reviewed[:7], got)
			}
		}
	})
}
