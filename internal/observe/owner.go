package observe

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/state"
)

// This file proves which workflow run wrote a status comment (SC4).

// SC4: GITHUB_TOKEN's identity is shared by every workflow of the
// repository, so a comment by that identity that carries a state marker
// proves nothing by its author alone: another workflow that echoes
// untrusted text into a comment can plant one. A state comment is adopted
// only on proof that review-loop's own workflow wrote it:
//
//   - its state names, as Owner.CommentID, the comment's own id: review-loop
//     writes it right after creating the comment, and no text can know the
//     id of the comment it will become; or
//   - the run it names (Owner.RunID, or for a state written before Owner
//     existed the run its visible part links) is a run of review-loop's
//     workflow file that was running when the comment was created, and that
//     ran for this PR when it ran for any PR: one read of the run, after
//     which the proof is cached as Owner.CommentID on the next save.
//
// What remains possible is in docs/rules.md (SC4).

// Origin is the workflow run reading the state: review-loop's own
// workflow file (".github/workflows/x.yml", "" outside a workflow run)
// and this run's id (0 outside one).
type Origin struct {
	Workflow string
	RunID    int64
}

// ownerSlack allows for the clocks of the run and the comment.
const ownerSlack = time.Minute

// runLink finds the run a status comment's visible part links.
var runLink = regexp.MustCompile(`/actions/runs/([0-9]+)\)`)

// owned says whether comment ic of PR number, whose decoded state is st
// (readable false when it could not be decoded), is review-loop's own:
// the proof to keep in the state, or why it is not. An error is a failed
// read of the run, which leaves the question open: the cycle stops.
func owned(ctx context.Context, gh *github.Client, owner, repo string, number int, origin Origin, ic *github.IssueComment, st state.State, readable bool) (*state.Owner, string, error) {
	ours := origin.Workflow
	if ours == "" || origin.RunID == 0 {
		// Outside a workflow run there is no other workflow to tell apart.
		return st.Owner, "", nil
	}
	if readable && st.Owner != nil && st.Owner.CommentID == ic.DatabaseID {
		return st.Owner, "", nil
	}
	var runID int64
	if readable && st.Owner != nil {
		runID = st.Owner.RunID
	} else if m := runLink.FindAllStringSubmatch(ic.Body, -1); len(m) > 0 {
		runID, _ = strconv.ParseInt(m[len(m)-1][1], 10, 64)
	}
	if runID == 0 {
		return nil, "it names no workflow run of review-loop", nil
	}
	if runID == origin.RunID {
		// This very run wrote it (a retried job): it is ours.
		return &state.Owner{RunID: runID, Workflow: ours, CommentID: ic.DatabaseID}, "", nil
	}
	run, err := gh.GetWorkflowRun(ctx, owner, repo, runID)
	if github.IsNotFound(err) {
		return nil, fmt.Sprintf("it names workflow run %d, which this repository does not have", runID), nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("PR #%d: proving who wrote status comment %d (SC4): %w", number, ic.DatabaseID, err)
	}
	path, _, _ := strings.Cut(run.Path, "@")
	switch {
	case path != ours:
		return nil, fmt.Sprintf("it names workflow run %d of %s, not of review-loop's workflow %s", runID, path, ours), nil
	case ic.CreatedAt.Before(run.CreatedAt.Add(-ownerSlack)):
		return nil, fmt.Sprintf("it was written before workflow run %d started", runID), nil
	case run.Status == "completed" && ic.CreatedAt.After(run.UpdatedAt.Add(ownerSlack)):
		return nil, fmt.Sprintf("it was written after workflow run %d ended", runID), nil
	case len(run.PRs) > 0 && !slices.Contains(run.PRs, number):
		return nil, fmt.Sprintf("workflow run %d ran for another pull request", runID), nil
	}
	return &state.Owner{RunID: runID, Workflow: ours, CommentID: ic.DatabaseID}, "", nil
}
