package declarative

import (
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/adversarial"
	"github.com/review-loop/review-loop/internal/github"
)

// R2: every declarative engine reads 65,536 characters of adversarial
// markdown — as a review body (its body sections and counts), as an
// inline comment, and as a PR comment — with work linear in the input.
func TestRule_R2_DeclarativeEnginesReadAdversarialBodiesLinearly(t *testing.T) {
	ds, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		e, err := New(d)
		if err != nil {
			t.Fatal(err)
		}
		author := github.Actor{Login: d.Author.Logins[0], DatabaseID: d.Author.ID, IsBot: true}
		observe := func(body string) {
			o := obsAt("sha1")
			o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: d.CheckRun, Status: "COMPLETED", Conclusion: "SUCCESS", StartedAt: t0}}
			o.Reviews = []github.Review{{DatabaseID: 1, Author: author, CommitSHA: "sha1", SubmittedAt: t0, Body: body}}
			o.Threads = []github.Thread{thread(author, 10, 1, "sha1", 3, body)}
			o.IssueComments = []github.IssueComment{{DatabaseID: 30, Author: author, Body: body, CreatedAt: t0}}
			e.Observe(o, engines.Env{})
		}
		adversarial.Check(t, d.Name+" Observe", observe, 20, 1500)
		adversarial.Check(t, d.Name+" ParseBodySections", func(s string) { ParseBodySections(s, d.BodySections) }, 8, 600)
	}
}
