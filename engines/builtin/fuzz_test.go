package builtin

import (
	"strings"
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
			// S10: a proof by structure needs the engine's own completion
			// signal concluded successfully for the head, which this
			// observation gives every engine but Gemini;
			// FuzzRule_S10_NeverCleanWithoutTheCompletionSignal takes it away.
			structural := e != "gemini" && v.Proof != nil && strings.HasPrefix(v.Proof.Kind, engines.StructureKindPrefix)
			if !proven && !structural || v.Proof == nil || v.Proof.SHA != head {
				t.Fatalf("%s is CLEAN without a recognised finished review of the head: proof %+v\nreview %q\ncheck %q\ncomment %q", e, v.Proof, review, checkText, comment)
			}
		}
	})
}

// signalless is fuzzObservation without a successful completion signal
// for the head after the loop's trigger: how names the way it is taken
// away — no signal at all, a signal that did not conclude successfully,
// or a successful one that completed before the trigger.
func signalless(engine, how, review, checkText, comment string) (*github.Observation, engines.Env) {
	obs := fuzzObservation(engine, review, checkText, comment)
	env := engines.Env{HasTriggerToken: true, Now: r3t0.Add(time.Hour)}
	switch how {
	case "none":
		obs.CheckRuns = nil
	case "unsuccessful":
		for i := range obs.CheckRuns {
			obs.CheckRuns[i].Conclusion = "CANCELLED"
		}
	case "before-trigger":
		env.Triggers = map[string]engines.Trigger{engine: {SHA: head, At: r3t0.Add(4 * time.Minute)}}
	}
	return obs, env
}

// FuzzRule_S10_NeverCleanWithoutTheCompletionSignal: whatever the texts,
// on every surface, an engine without its own completion signal
// concluded successfully for the head after the trigger is CLEAN only
// through an S8 allow-listed kind of post (Gemini, which has no signal,
// only ever so).
func FuzzRule_S10_NeverCleanWithoutTheCompletionSignal(f *testing.F) {
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
	add("LGTM", "Bugbot completed review - no issues found! ✅", "<!-- recent_review_start -->\nbetween "+older+" and "+head+".\n<!-- recent_review_end -->")
	f.Fuzz(func(t *testing.T, review, checkText, comment string) {
		for _, e := range fuzzEngines {
			p := engine(t, e).(engines.Prover)
			for _, how := range []string{"none", "unsuccessful", "before-trigger"} {
				obs, env := signalless(e, how, review, checkText, comment)
				v := engine(t, e).Observe(obs, env)
				if v.Proof != nil && strings.HasPrefix(v.Proof.Kind, engines.StructureKindPrefix) {
					t.Fatalf("%s (%s signal) carries a proof by structure %+v\nreview %q\ncheck %q\ncomment %q", e, how, v.Proof, review, checkText, comment)
				}
				ok, _, _ := loopVerdict(t, e, v)
				if !ok {
					continue
				}
				s8 := p.Classify(engines.SurfaceReview, review).Proof || p.Classify(engines.SurfaceComment, comment).Proof ||
					p.Classify(engines.SurfaceCheck, checkText+"\n"+checkText).Proof || p.Classify(engines.SurfaceCheck, "\n"+checkText+"\n"+checkText).Proof
				if !s8 {
					t.Fatalf("%s is CLEAN with no completion signal for the head (%s) and no S8 kind: proof %+v\nreview %q\ncheck %q\ncomment %q", e, how, v.Proof, review, checkText, comment)
				}
			}
		}
	})
}
