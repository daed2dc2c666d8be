package observe

import (
	"context"
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// B7: the budgets are those GitHub last reported to the client, nil until
// one is known; the REST one is read from GET /rate_limit only when no
// response carried it, once.
func TestRule_B7_TheBudgetsAreTheLastReportedAndReadOnce(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	if core, gql := Budgets(r.gh); core != nil || gql != nil {
		t.Fatalf("budgets %+v %+v before any request, want none", core, gql)
	}
	r.fake.SetRateRemaining("github-actions", ghfake.ResourceCore, 50)
	r.observe()
	if _, gql := Budgets(r.gh); gql == nil || gql.Resource != "graphql" {
		t.Errorf("graphql budget %+v after the observation, want it known", gql)
	}
	ctx := context.Background()
	r.fake.ResetRequests()
	for range 2 {
		if err := ReadBudget(ctx, r.gh); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(r.fake.Requests()); n != 1 {
		t.Errorf("%d requests for two reads of the budget, want 1", n)
	}
	core, _ := Budgets(r.gh)
	want := r.fake.RateLimit("github-actions", ghfake.ResourceCore)
	if core == nil || core.Remaining != 50 || core.Limit != want.Limit || !core.ResetAt.Equal(want.Reset) {
		t.Errorf("core budget %+v, want 50 of %d left", core, want.Limit)
	}
}

// SW1: the sweep's live loops are the open PRs carrying the live label,
// oldest first, with the default branch to dispatch on.
func TestRule_SW1_TheLiveLoopsAreTheLabelledPRsOldestFirst(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	var prs []int
	for _, head := range []string{"b", "c"} {
		n, err := r.fake.CreatePR("octo", "app", ghfake.PROptions{Head: head, Files: map[string]string{head + ".txt": "x\n"}, Author: "maintainer"})
		if err != nil {
			t.Fatal(err)
		}
		prs = append(prs, n)
	}
	for _, n := range []int{prs[1], prs[0]} {
		if err := r.fake.AddLabel("octo", "app", n, loop.LiveLabel); err != nil {
			t.Fatal(err)
		}
	}
	got, def, err := LivePRs(context.Background(), r.gh, "octo", "app")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, prs) || def != "main" {
		t.Errorf("live PRs %v on %q, want %v on main", got, def, prs)
	}
}
