package github_test

import (
	"context"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

func TestObserveSmoke(t *testing.T) {
	f := ghfake.New(ghfake.Options{})
	defer f.Close()
	if err := f.AddRepo("o", "r", "main"); err != nil {
		t.Fatal(err)
	}
	n, err := f.CreatePR("o", "r", ghfake.PROptions{Head: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	f.AddUser("cursor", 206951365, true)
	rid, _ := f.AddReview("o", "r", n, ghfake.ReviewOptions{Author: "cursor", Body: "found 1"})
	f.AddReviewComment("o", "r", n, ghfake.CommentOptions{Author: "cursor", Body: "bug", Path: "main.go", Line: 3, ReviewID: rid})
	f.SetCheckRun("o", "r", n, ghfake.CheckRunOptions{Name: "Cursor Bugbot", AppSlug: "cursor", Conclusion: "NEUTRAL"})
	f.AddIssueComment("o", "r", n, "o", "", "@review-loop go")
	c, err := github.New(github.Options{APIURL: f.URL(), GraphQLURL: f.GraphQLURL()})
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.Observe(context.Background(), "o", "r", n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", o)
	t.Log(f.Requests(), c.Requests())
}
