package observe

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// bugbotOn is a PR whose Bugbot check completed on head with one review
// body of Bugbot's on reviewed.
func bugbotOn(head, reviewed, body string) *github.Observation {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cursor := github.Actor{Login: "cursor", DatabaseID: bugbot.BotID, IsBot: true}
	return &github.Observation{Owner: "o", Repo: "r", Number: 1, HeadSHA: head, Complete: true,
		CheckRuns: []github.CheckRun{{DatabaseID: 5, Name: "Cursor Bugbot", Status: "COMPLETED", Conclusion: "SUCCESS", StartedAt: t0, CompletedAt: t0.Add(time.Minute)}},
		Reviews:   []github.Review{{DatabaseID: 9, Author: cursor, CommitSHA: reviewed, State: "COMMENTED", Body: body, SubmittedAt: t0.Add(time.Minute)}}}
}

// S12: a repository's config adds texts to an engine's words without a
// release (engine_texts). Its proof phrase proves a review of the head in
// words the adapter does not know; its exceptions win over any proof, the
// built-in one included; a proof phrase proves no other commit and lifts
// no exception; another account's post is not the engine's.
func TestRule_S12_ARepositorysTextsAddToAnEnginesWords(t *testing.T) {
	t.Parallel()
	texts, err := engines.ParseEngineTexts([]byte(`engine_texts:
  bugbot:
    proof: ["Bugbot looked over every change in this pull request and has nothing to flag"]
    quota: ["Bugbot is out of credits"]
    skip: ["Bugbot skipped this pull request"]
`), engines.OriginRepository)
	if err != nil {
		t.Fatal(err)
	}
	env := engines.Env{Texts: texts}
	bb := []engines.Engine{bugbot.New()}
	view := func(o *github.Observation, env engines.Env) loop.EngineView { return Views(nil, bb, o, env)[0] }
	const head, old = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	newWords := "Bugbot looked over every change in this pull request and has nothing to flag!"

	// Words the adapter does not know, with a run that did not conclude
	// successfully (so no proof by structure, S10): not proof without the
	// repository's.
	o := bugbotOn(head, head, newWords)
	o.CheckRuns[0].Conclusion = "NEUTRAL"
	if v := view(o, engines.Env{}); loop.Proven(v, head) {
		t.Fatalf("unknown words proved the review: %+v", v.Proof)
	}
	if v := view(o, env); !loop.Proven(v, head) || v.Proof.Kind != engines.KindRepositoryProof {
		t.Fatalf("the repository's proof phrase did not prove the head review: %+v (%s)", v.Proof, v.Material)
	}
	// The same words on a review of another commit prove nothing.
	if v := view(bugbotOn(head, old, newWords), env); loop.Proven(v, head) {
		t.Fatalf("a proof phrase on a review of another commit proved the head: %+v", v.Proof)
	}
	// An exception wins over proof, a built-in proof included.
	o = bugbotOn(head, head, "✅ Bugbot reviewed your changes and found no new issues!\n\n> Bugbot is out of credits for this month.")
	if v := view(o, engines.Env{}); !loop.Proven(v, head) {
		t.Fatal("the built-in clean body is not proof")
	}
	v := view(o, env)
	if loop.Proven(v, head) || v.Material != loop.MaterialQuota || v.Quota == nil || !strings.Contains(v.Quota.Text, "out of credits") {
		t.Fatalf("the repository's quota phrase did not win: proof %+v, material %s, quota %+v", v.Proof, v.Material, v.Quota)
	}
	o = bugbotOn(head, head, newWords+"\nBugbot skipped this pull request: too many files.")
	if v := view(o, env); loop.Proven(v, head) || v.Material != loop.MaterialUnproven {
		t.Fatalf("the repository's skip phrase did not win: proof %+v, material %s", v.Proof, v.Material)
	}
	// A proof phrase never lifts an exception the adapter found: a
	// neutral check with no review of the head stays not proven.
	o = bugbotOn(head, old, newWords)
	o.CheckRuns[0].Conclusion = "NEUTRAL"
	if v := view(o, env); v.Material != loop.MaterialUnproven || loop.Proven(v, head) {
		t.Fatalf("material %s proof %+v, want UNPROVEN kept", v.Material, v.Proof)
	}
	// Another account's review with the phrase is not Bugbot's.
	o = bugbotOn(head, head, "✅ Bugbot reviewed your changes and found no new issues!")
	o.Reviews = append(o.Reviews, github.Review{DatabaseID: 10, Author: github.Actor{Login: "mallory"}, CommitSHA: head, Body: "Bugbot is out of credits", SubmittedAt: o.Reviews[0].SubmittedAt})
	if v := view(o, env); !loop.Proven(v, head) || v.Material != loop.MaterialOK {
		t.Fatalf("a stranger's post changed Bugbot's reading: proof %+v, material %s", v.Proof, v.Material)
	}
}

// S12 with ST6: a repository's pause text read on the engine's comment,
// with nothing on the head, makes it PAUSED rather than pending.
func TestRule_S12_ARepositorysPauseTextPausesTheEngine(t *testing.T) {
	t.Parallel()
	texts, err := engines.ParseEngineTexts([]byte("engine_texts:\n  bugbot:\n    pause: [\"Bugbot is paused for this pull request\"]\n"), engines.OriginRepository)
	if err != nil {
		t.Fatal(err)
	}
	o := &github.Observation{Owner: "o", Repo: "r", Number: 1, HeadSHA: "1111111111111111111111111111111111111111", Complete: true,
		IssueComments: []github.IssueComment{{DatabaseID: 3, Author: github.Actor{Login: "cursor", DatabaseID: bugbot.BotID, IsBot: true},
			Body: "Bugbot is paused for this pull request until you ask.", CreatedAt: time.Unix(0, 0), UpdatedAt: time.Unix(0, 0)}}}
	v := Views(nil, []engines.Engine{bugbot.New()}, o, engines.Env{Texts: texts})[0]
	if !strings.Contains(v.Paused, "paused its reviews") {
		t.Fatalf("paused %q, want PAUSED by the repository's text", v.Paused)
	}
	if v := Views(nil, []engines.Engine{bugbot.New()}, o, engines.Env{})[0]; v.Paused != "" {
		t.Fatalf("paused %q without the text", v.Paused)
	}
}
