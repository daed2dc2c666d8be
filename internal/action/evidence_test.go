package action

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

func repositoryQueries(w *world) int {
	n := 0
	for _, r := range w.fake.Requests() {
		if r.GraphQL == "repository" && r.Operation == "query" {
			n++
		}
	}
	return n
}

func planEngines(t *testing.T, res Result) []string {
	t.Helper()
	if len(res.PRs) != 1 {
		t.Fatalf("results %+v", res.PRs)
	}
	var out []string
	for _, e := range res.PRs[0].Plan.Engines {
		out = append(out, e.Engine)
	}
	return out
}

// TestRule_IN2_DefaultEnginesAreTheOnesTheRepositoryShows: with no
// `engines` input, the loop takes the engines seen on this PR, on a recent
// PR, or by their config file, and reading the recent PRs is one request,
// at the loop's start only.
func TestRule_IN2_DefaultEnginesAreTheOnesTheRepositoryShows(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.fake.AddUser("cursor", 206951365, true)
	w.fake.AddUser("copilot-pull-request-reviewer", 175728472, true)
	if _, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "cursor", Body: "Bugbot looked"}); err != nil {
		t.Fatal(err)
	}
	earlier, err := w.fake.CreatePR("octo", "app", ghfake.PROptions{Head: "earlier", Files: map[string]string{"x.txt": "x\n"}, Author: "maintainer"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.AddReview("octo", "app", earlier, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "Copilot looked"}); err != nil {
		t.Fatal(err)
	}
	if err := w.fake.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.PushCommit("octo", "app", "main", map[string]string{".coderabbit.yaml": "reviews: {}\n"}, "coderabbit config"); err != nil {
		t.Fatal(err)
	}
	w.fake.ResetRequests()
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := planEngines(t, res); !slices.Equal(got, []string{"bugbot", "coderabbit", "copilot"}) {
		t.Errorf("engines %v, want bugbot (this PR), coderabbit (its config) and copilot (an earlier PR)", got)
	}
	if n := repositoryQueries(w); n != 1 {
		t.Errorf("%d repository queries at the loop's start, want 1 (the recent PRs)", n)
	}
	w.fake.ResetRequests()
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), nil); err != nil {
		t.Fatal(err)
	}
	if n := repositoryQueries(w); n != 0 {
		t.Errorf("%d repository queries in a later cycle, want 0 (the engines are in the state)", n)
	}
}
