package observe

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file reads the API budgets the loop decides on (B7), the live
// loops the scheduled sweep visits (SW1) and the pull requests any other
// wake concerns (IN1).

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

// PRsOf are the pull requests a wake that is no sweep concerns: those its
// payload lists, else those whose head is the wake's commit (one read),
// else the `pr` input.
func PRsOf(ctx context.Context, gh *github.Client, w event.Wake, inputPR int) ([]int, error) {
	switch {
	case len(w.PRs) > 0:
		return w.PRs, nil
	case w.NeedsLookup():
		prs, err := gh.PullRequestsForCommit(ctx, w.Owner, w.Repo, w.HeadSHA)
		if err != nil {
			return nil, fmt.Errorf("finding the pull requests of %s: %w", w.HeadSHA, err)
		}
		return prs, nil
	case inputPR > 0:
		return []int{inputPR}, nil
	}
	return nil, errors.New("no pull request: this event names none; set the `pr` input (IN1)")
}
