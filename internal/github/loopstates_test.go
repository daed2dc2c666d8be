package github_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/contract"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

// TestRule_EQ2_LoopStatesPagesLongThreadsInBatchesWithinTheBudget reads
// pull requests' state comments in batched GraphQL: a state in the first
// 100 comments costs nothing more, one further down is found in the
// batched pages that follow, one beyond them is reported as not read;
// the window ends at the first pull request updated before since; the
// requests stay within LoopStateBudget, and every document validates
// against GitHub's public schema.
func TestRule_EQ2_LoopStatesPagesLongThreadsInBatchesWithinTheBudget(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := now.AddDate(0, 0, -90)
	e := setupFake(t, ghfake.New(ghfake.Options{SchemaPath: contract.SchemaPath(), Now: func() time.Time { return clock }}))
	const marker = "<!-- review-loop:state"
	state := func(n int) string { return "## review-loop\n" + marker + " v1\nPR" + strings.Repeat("x", n) + "\n-->" }
	pr := func(head string) int {
		n, err := e.f.CreatePR("o", "r", ghfake.PROptions{Head: head})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	comment := func(n int, login, body string) {
		if _, err := e.f.AddIssueComment("o", "r", n, login, "NONE", body); err != nil {
			t.Fatal(err)
		}
	}
	clock = now.Add(-48 * time.Hour)
	early := pr("early")
	comment(early, "github-actions[bot]", state(1))
	deep := pr("deep")
	for range 230 {
		comment(deep, "alice", "a comment")
	}
	comment(deep, "github-actions[bot]", state(2))
	beyond := pr("beyond")
	for range 320 {
		comment(beyond, "alice", "a comment")
	}
	comment(beyond, "github-actions[bot]", state(3))
	none := pr("none")
	comment(none, "alice", "no loop here")
	clock = now.Add(-time.Hour)
	comment(e.pr, "mallory", state(4)) // setup's PR, updated last
	got, err := e.c.LoopStates(context.Background(), "o", "r", marker, now.AddDate(0, 0, -30), 500, "")
	if err != nil {
		t.Fatal(err)
	}
	byNum := map[int]github.PRStates{}
	for _, p := range got.PRs {
		byNum[p.Number] = p
	}
	if len(got.PRs) != 5 || got.PRs[0].Number != e.pr {
		t.Fatalf("read %+v, want 5 pull requests, the last updated first", got.PRs)
	}
	if c := byNum[early].Comments; len(c) != 1 || c[0].Author != "github-actions" || !strings.Contains(c[0].Body, "PRx\n") || c[0].ID == 0 {
		t.Errorf("early: %+v", c)
	}
	if c := byNum[deep].Comments; len(c) != 1 || !strings.Contains(c[0].Body, "PRxx\n") {
		t.Errorf("deep (comment 231): %+v", byNum[deep])
	}
	if p := byNum[beyond]; len(p.Comments) != 0 || !p.Incomplete {
		t.Errorf("beyond (comment 321): %+v, want not read and incomplete", p)
	}
	if p := byNum[none]; len(p.Comments) != 0 || p.Incomplete {
		t.Errorf("none: %+v", p)
	}
	if c := byNum[e.pr].Comments; len(c) != 1 || c[0].Author != "mallory" {
		t.Errorf("the stranger's comment is returned with its author for the caller to refuse: %+v", c)
	}
	// One page of pull requests, and two batched pages of long threads.
	if got.Requests != 3 || got.Requests > github.LoopStateBudget(len(got.PRs)) || len(e.rec.exchanges()) != 3 {
		t.Errorf("requests = %d (%d sent), want 3 within the budget of %d", got.Requests, len(e.rec.exchanges()), github.LoopStateBudget(len(got.PRs)))
	}
	assertContract(t, e.rec)
}
