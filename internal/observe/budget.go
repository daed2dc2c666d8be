package observe

import (
	"context"
	"fmt"
	"slices"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file reads the API budgets the loop decides on (B7) and the live
// loops the scheduled sweep visits (SW1).

// Budgets are the API budgets GitHub last reported to gh, for the loop's
// observation (B7); unknown budgets stay nil and never defer a cycle.
func Budgets(gh *github.Client) (core, gql *loop.Budget) {
	conv := func(resource string) *loop.Budget {
		b, ok := gh.RateLimit(resource)
		if !ok {
			return nil
		}
		return &loop.Budget{Resource: b.Resource, Limit: b.Limit, Remaining: b.Remaining, ResetAt: b.Reset}
	}
	return conv("core"), conv("graphql")
}

// ReadBudget reads the REST API budget for the loop's decision (B7) when
// no REST response of this run carried it yet, from GET /rate_limit,
// which GitHub does not count against any budget; the GraphQL one comes
// with the observation. A failed read leaves it unknown: the error is
// for the log. A cycle reads it once, before it decides.
func ReadBudget(ctx context.Context, gh *github.Client) error {
	if _, ok := gh.RateLimit("core"); ok {
		return nil
	}
	return gh.ReadRateLimits(ctx)
}

// LivePRs is the sweep's read: the open PRs carrying loop.LiveLabel,
// oldest first, and the default branch to dispatch on. A label was chosen
// over searching for the status comment's marker because the search API
// does not index HTML comments and costs a request of its own per page; a
// label is read with the observation (no extra request).
func LivePRs(ctx context.Context, gh *github.Client, owner, repo string) ([]int, string, error) {
	refs, def, err := gh.ListLabeledPullRequests(ctx, owner, repo, loop.LiveLabel)
	if err != nil {
		return nil, "", fmt.Errorf("listing the live loops for the sweep: %w", err)
	}
	out := make([]int, 0, len(refs))
	for _, p := range refs {
		out = append(out, p.Number)
	}
	slices.Sort(out)
	return out, def, nil
}
