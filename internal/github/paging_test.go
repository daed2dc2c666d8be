package github_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

func addComments(t *testing.T, e *env, n int) []int64 {
	t.Helper()
	ids := make([]int64, 0, n)
	for i := range n {
		id, err := e.f.AddIssueComment("o", "r", e.pr, "bob", "CONTRIBUTOR", fmt.Sprintf("comment %d", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestObserve_ThirtyCommentsCostOneQuery(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ids := addComments(t, e, 30)
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.c.Requests(); got.Total != 1 {
		t.Errorf("requests = %+v, want exactly one query", got)
	}
	if len(o.IssueComments) != 30 || !o.IssueCommentsComplete || !o.Complete || o.IssueComments[0].DatabaseID != ids[0] {
		t.Errorf("got %d comments (complete %v/%v), want all 30 oldest first", len(o.IssueComments), o.IssueCommentsComplete, o.Complete)
	}
	assertContract(t, e.rec)
}

// A PR with 250 issue comments and 150 reviews: the first page of each is
// in the main query, then two pages of comments and one of reviews.
func TestObserve_PagesTwoHundredFiftyCommentsAndOneHundredFiftyReviews(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ids := addComments(t, e, 250)
	e.f.AddUser("cursor", 206951365, true)
	for range 150 {
		if _, err := e.f.AddReview("o", "r", e.pr, ghfake.ReviewOptions{Author: "cursor", Body: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.IssueComments) != 250 || len(o.Reviews) != 150 || !o.Complete || !o.IssueCommentsComplete || !o.ReviewsComplete {
		t.Fatalf("got %d comments, %d reviews (complete %v), want 250 and 150", len(o.IssueComments), len(o.Reviews), o.Complete)
	}
	for i, c := range o.IssueComments {
		if c.DatabaseID != ids[i] {
			t.Fatalf("comment %d is %d, want %d: not every comment once, oldest first", i, c.DatabaseID, ids[i])
		}
	}
	if got := e.c.Requests(); got.Reads != 4 || got.Writes != 0 {
		t.Errorf("requests = %+v, want 4 reads (1 + 2 comment pages + 1 review page)", got)
	}
	assertContract(t, e.rec)
}

// Past MaxPages the earliest comments are the ones read, and the
// observation says it is incomplete.
func TestObserve_PageCapKeepsTheEarliestAndSaysIncomplete(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *github.Options) { o.MaxPages = 2 })
	ids := addComments(t, e, 250)
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.IssueComments) != 200 || o.IssueComments[0].DatabaseID != ids[0] || o.IssueCommentsComplete || o.Complete {
		t.Errorf("got %d comments from %d (complete %v/%v), want the earliest 200 and incomplete", len(o.IssueComments), o.IssueComments[0].DatabaseID, o.IssueCommentsComplete, o.Complete)
	}
	if got := e.c.Requests(); got.Total != 2 {
		t.Errorf("requests = %+v, want 2", got)
	}
}

// GitHub answers CheckRun.databaseId null for ids of 2^31 and above; the
// check run still carries its node id and a stable signal id.
func TestObserve_CheckRunIDAboveTwoToThe31IsNullAndTheNodeIDIsUsed(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	id, err := e.f.SetCheckRun("o", "r", e.pr, ghfake.CheckRunOptions{Name: "Cursor Bugbot", AppSlug: "cursor", Conclusion: "CANCELLED"})
	if err != nil {
		t.Fatal(err)
	}
	if id < 1<<31 {
		t.Fatalf("fake check run id %d is below 2^31", id)
	}
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	cr := o.CheckRuns[0]
	if cr.DatabaseID != 0 || cr.NodeID == "" {
		t.Fatalf("check run %+v: want databaseId null (0) and a node id", cr)
	}
	o2, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if cr.SignalID() == 0 || cr.SignalID() != o2.CheckRuns[0].SignalID() {
		t.Errorf("signal id %d, then %d: want a stable non-zero id", cr.SignalID(), o2.CheckRuns[0].SignalID())
	}
	rerun, _ := e.f.SetCheckRun("o", "r", e.pr, ghfake.CheckRunOptions{Name: "Cursor Bugbot", AppSlug: "cursor", Conclusion: "CANCELLED", Rerun: true})
	o3, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range o3.CheckRuns {
		if c.NodeID == fmt.Sprintf("CR_%d", rerun) && c.SignalID() == cr.SignalID() {
			t.Errorf("a re-run has the first run's signal id %d", c.SignalID())
		}
	}
	assertContract(t, e.rec)
}

// IN7: a user account whose login is a bot's (Copilot, cursor) answers
// __typename User with its own id; the bot answers Bot with the bot's id.
func TestObserve_AUserNamedLikeAnEngineBotIsAUser(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	e.f.AddUser("user:Copilot", 90001, false)
	e.f.AddUser("user:cursor", 90002, false)
	for _, login := range []string{"Copilot", "user:Copilot", "cursor", "user:cursor"} {
		rid, err := e.f.AddReview("o", "r", e.pr, ghfake.ReviewOptions{Author: login, Body: login})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.f.AddReviewComment("o", "r", e.pr, ghfake.CommentOptions{Author: login, Body: "```suggestion\nx\n```", Path: "a.go", Line: 1, ReviewID: rid}); err != nil {
			t.Fatal(err)
		}
	}
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	want := []github.Actor{{Login: "Copilot", DatabaseID: 175728472, IsBot: true}, {Login: "Copilot", DatabaseID: 90001},
		{Login: "cursor", DatabaseID: 206951365, IsBot: true}, {Login: "cursor", DatabaseID: 90002}}
	for i, r := range o.Reviews {
		if r.Author != want[i] || o.Threads[i].Comments[0].Author != want[i] {
			t.Errorf("review %d by %+v, comment by %+v; want %+v", i, r.Author, o.Threads[i].Comments[0].Author, want[i])
		}
	}
	assertContract(t, e.rec)
}
