package github_test

import (
	"context"
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// TestRulesetReads_MatchGitHubsDescription: the rules of a branch, one
// ruleset as the token sees it, and the default branch, read from the
// fake, with every request and answer checked against GitHub's published
// descriptions.
func TestRulesetReads_MatchGitHubsDescription(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	id, err := e.f.AddRuleset("o", "r", ghfake.Ruleset{Name: "PR branches", Include: []string{"~ALL"}, Exclude: []string{"~DEFAULT_BRANCH"},
		Rules: []ghfake.RulesetRule{{Type: "required_signatures"}, {Type: "required_status_checks", StatusChecks: []string{"build", "test"}}}})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := e.c.BranchRules(ctx, "o", "r", "feat")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Type != "required_signatures" || rules[1].RulesetID != id || !slices.Equal(rules[1].StatusChecks, []string{"build", "test"}) {
		t.Errorf("rules of feat: %+v", rules)
	}
	if main, err := e.c.BranchRules(ctx, "o", "r", "main"); err != nil || len(main) != 0 {
		t.Errorf("rules of main (excluded): %+v %v", main, err)
	}
	rs, err := e.c.Ruleset(ctx, "o", "r", id)
	if err != nil || rs.Name != "PR branches" || rs.CurrentUserCanBypass != "never" {
		t.Errorf("ruleset: %+v %v", rs, err)
	}
	if def, err := e.c.DefaultBranch(ctx, "o", "r"); err != nil || def != "main" {
		t.Errorf("default branch %q %v", def, err)
	}
	if _, err := e.c.Ruleset(ctx, "o", "r", id+100); err == nil {
		t.Error("an unknown ruleset read without error")
	}
	assertContract(t, e.rec)
}
