package builtin

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
)

var fuzzEngines = []string{"bugbot", "claude", "coderabbit", "copilot", "gemini"}

// fuzzObservation posts the three texts as the engine would: a review of
// the head with body review, the engine's completed check run with output
// check, and a later conversation comment.
func fuzzObservation(engine, review, checkText, comment string) *github.Observation {
	obs := observation()
	obs.Reviews = []github.Review{{DatabaseID: 11, Author: bots[engine], CommitSHA: head, State: "COMMENTED", Body: review, SubmittedAt: r3t0.Add(2 * time.Minute)}}
	obs.IssueComments = []github.IssueComment{{DatabaseID: 12, Author: bots[engine], Body: comment, CreatedAt: r3t0.Add(3 * time.Minute), UpdatedAt: r3t0.Add(3 * time.Minute)}}
	var cr github.CheckRun
	switch engine {
	case "bugbot":
		cr = check("Cursor Bugbot", "cursor", "COMPLETED", "SUCCESS", time.Minute)
	case "coderabbit":
		cr = check("CodeRabbit", "coderabbitai", "COMPLETED", "SUCCESS", time.Minute)
	case "claude":
		cr = check("Claude Code Review", "claude", "COMPLETED", "NEUTRAL", time.Minute)
	case "copilot":
		cr = check("copilot-pull-request-reviewer", "github-actions", "COMPLETED", "SUCCESS", time.Minute)
		cr.WorkflowPath = "dynamic/agents/copilot-pull-request-reviewer/copilot-pull-request-reviewer"
	default:
		return obs
	}
	cr.Title, cr.Summary, cr.Text = "", checkText, checkText
	obs.CheckRuns = []github.CheckRun{cr}
	return obs
}

// FuzzRule_S8_NeverCleanWithoutARecognisedFinishedReview feeds arbitrary
// text as each engine's review body, check output and comment: the engine
// is CLEAN only when one of those texts, on the surface it was posted on,
// is a finished-review kind the adapter declares, and the view carries
// that proof for the head (S8).
func FuzzRule_S8_NeverCleanWithoutARecognisedFinishedReview(f *testing.F) {
	// Each distinct seed once: a block several samples share (or an
	// empty one) would run the five engines again on the same input.
	seen := map[[3]string]bool{}
	add := func(review, checkText, comment string) {
		if k := [3]string{review, checkText, comment}; !seen[k] {
			seen[k] = true
			f.Add(review, checkText, comment)
		}
	}
	for _, e := range fuzzEngines {
		for _, s := range samples.Load(f, e) {
			for _, b := range samples.Blocks(s.Text) {
				add(b, "", "")
				add("", b, "")
				add("", "", b)
			}
		}
	}
	add("", "", "")
	f.Fuzz(func(t *testing.T, review, checkText, comment string) {
		for _, e := range fuzzEngines {
			ok, _, v := cleanOf(t, e, fuzzObservation(e, review, checkText, comment))
			if !ok {
				continue
			}
			p := engine(t, e).(engines.Prover)
			proven := p.Classify(engines.SurfaceReview, review).Proof ||
				p.Classify(engines.SurfaceComment, comment).Proof ||
				p.Classify(engines.SurfaceCheck, checkText+"\n"+checkText).Proof ||
				p.Classify(engines.SurfaceCheck, "\n"+checkText+"\n"+checkText).Proof
			if !proven || v.Proof == nil || v.Proof.SHA != head {
				t.Fatalf("%s is CLEAN without a recognised finished review of the head: proof %+v\nreview %q\ncheck %q\ncomment %q", e, v.Proof, review, checkText, comment)
			}
		}
	})
}
