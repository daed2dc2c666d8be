package github_test

import (
	"context"
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

func TestRule_B7_BudgetsAreReadFromEveryResponse(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	if _, ok := e.c.RateLimit("core"); ok {
		t.Fatal("a budget before any response")
	}
	if _, err := e.c.Observe(ctx, "o", "r", e.pr); err != nil {
		t.Fatal(err)
	}
	gql, ok := e.c.RateLimit("graphql")
	if !ok || gql.Limit != ghfake.DefaultGraphQLLimit || gql.Remaining >= gql.Limit || gql.Reset.IsZero() {
		t.Fatalf("graphql budget %+v (known %v), want the fake's, spent by the observation", gql, ok)
	}
	if err := e.c.AddLabel(ctx, "o", "r", e.pr, "review-loop:live"); err != nil {
		t.Fatal(err)
	}
	core1, ok := e.c.RateLimit("core")
	if !ok || core1.Limit != ghfake.DefaultRESTLimit {
		t.Fatalf("core budget %+v (known %v)", core1, ok)
	}
	e.f.SetRateRemaining("github-actions", ghfake.ResourceCore, 42)
	if err := e.c.RemoveLabel(ctx, "o", "r", e.pr, "review-loop:live"); err != nil {
		t.Fatal(err)
	}
	if core2, _ := e.c.RateLimit("core"); core2.Remaining != 41 {
		t.Fatalf("core remaining %d after one request from 42, want 41", core2.Remaining)
	}
}

func TestLabels_liveLoopsAreListedByLabelOnly(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	var live []int
	for i := range 5 {
		n, err := e.f.CreatePR("o", "r", ghfake.PROptions{Head: "b" + string(rune('a'+i)), Author: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := e.c.AddLabel(ctx, "o", "r", n, "review-loop:live"); err != nil {
				t.Fatal(err)
			}
			live = append(live, n)
		}
	}
	// A removed label is not an error, twice.
	if err := e.c.RemoveLabel(ctx, "o", "r", live[0], "review-loop:live"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RemoveLabel(ctx, "o", "r", live[0], "review-loop:live"); err != nil {
		t.Fatalf("removing a label the PR no longer carries: %v", err)
	}
	prs, def, err := e.c.ListLabeledPullRequests(ctx, "o", "r", "review-loop:live")
	if err != nil || def != "main" {
		t.Fatalf("default branch %q, err %v", def, err)
	}
	var got []int
	for _, p := range prs {
		got = append(got, p.Number)
	}
	if !slices.Equal(got, live[1:]) {
		t.Fatalf("labelled PRs %v, want %v", got, live[1:])
	}
	obs, err := e.c.Observe(ctx, "o", "r", live[1])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(obs.Labels, "review-loop:live") {
		t.Fatalf("observation labels %v", obs.Labels)
	}
}
