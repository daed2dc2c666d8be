package observe

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/event"
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

// IN1: a wake that is no sweep concerns the PRs its payload lists, else
// those whose head is its commit (one read), else the `pr` input; with
// none of them the run names the way out.
func TestRule_IN1_TheWakesPullRequestsAreListedLookedUpOrTheInput(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	ctx := context.Background()
	head := r.fake.HeadSHA("octo", "app", 1)
	cases := []struct {
		name  string
		wake  event.Wake
		input int
		want  []int
		reads int
	}{
		{"listed", event.Wake{Owner: "octo", Repo: "app", PRs: []int{7}, HeadSHA: head}, 3, []int{7}, 0},
		{"looked up", event.Wake{Owner: "octo", Repo: "app", HeadSHA: head}, 3, []int{1}, 1},
		{"the input", event.Wake{Owner: "octo", Repo: "app"}, 3, []int{3}, 0},
	}
	for _, c := range cases {
		r.fake.ResetRequests()
		got, err := PRsOf(ctx, r.gh, c.wake, c.input)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
		if n := len(r.fake.Requests()); n != c.reads {
			t.Errorf("%s: %d requests, want %d", c.name, n, c.reads)
		}
	}
	if _, err := PRsOf(ctx, r.gh, event.Wake{Owner: "octo", Repo: "app"}, 0); err == nil || !strings.Contains(err.Error(), "set the `pr` input (IN1)") {
		t.Errorf("no PR anywhere: %v, want the IN1 way out", err)
	}
}
