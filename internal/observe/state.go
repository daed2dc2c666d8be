package observe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/state"
)

// This file finds the loop's state among the PR's issue comments: by
// marker AND author, the earliest of review-loop's own (SC4), or lost
// when it cannot be read or was not among the comments read (SC3).

// Loaded is the state a PR's comments hold.
type Loaded struct {
	// State is the adopted state, state.New() when there is none.
	State state.State
	// Comment is review-loop's status comment (also when its state is
	// unreadable); nil when there is none yet.
	Comment *github.IssueComment
	// Lost says why a loop's state could not be read (SC3); "" when it
	// was found or there never was one.
	Lost string
	// Warnings are for the job log, Notices for the status comment too.
	Warnings, Notices []string
}

// State finds the status comment of PR number among obs's issue comments
// (by marker AND author) and decodes its state; a state comment written
// by anyone else is ignored and reported. Its ownership is proved as
// origin says (SC4, owner.go), which may read one workflow run.
//
// SC4: the earliest state comment by our identity is the state; later ones
// carrying the marker (a second run's, or a copy) are reported on the
// status comment and never adopted. SC3: when a loop existed but its state
// cannot be read (our own comment's state is unreadable), or the
// observation could not read every issue comment and no state was found
// in those it read, Lost says so (loop.FailClosed decides what follows).
// On an error the warnings and notices found so far are still returned.
func State(ctx context.Context, gh *github.Client, owner, repo string, number int, obs *github.Observation, origin Origin) (Loaded, error) {
	out := Loaded{State: state.New()}
	comments := slices.Clone(obs.IssueComments)
	slices.SortStableFunc(comments, func(a, b github.IssueComment) int {
		if d := a.CreatedAt.Compare(b.CreatedAt); d != 0 {
			return d
		}
		return cmp.Compare(a.DatabaseID, b.DatabaseID)
	})
	// The other driver's comment is looked for only when this identity
	// holds none: a handed-over loop has one status comment, and the
	// common case costs no permission read.
	own := slices.ContainsFunc(comments, func(ic github.IssueComment) bool {
		return SameLogin(ic.Author.Login, obs.ViewerLogin) && strings.Contains(ic.Body, state.Marker)
	})
	for i := range comments {
		ic := &comments[i]
		st, found, err := state.Decode(ic.Body)
		if !found {
			continue
		}
		other := false
		if !own && !SameLogin(ic.Author.Login, obs.ViewerLogin) {
			var oerr error
			if other, oerr = otherDriver(ctx, gh, owner, repo, origin, ic, st, err == nil); oerr != nil {
				return out, oerr
			}
		}
		if !other && !SameLogin(ic.Author.Login, obs.ViewerLogin) {
			out.Warnings = append(out.Warnings, fmt.Sprintf("ignored a review-loop state comment written by @%s (comment %d): only review-loop's own identity (@%s) may hold the state",
				ic.Author.Login, ic.DatabaseID, obs.ViewerLogin))
			continue
		}
		if out.Comment != nil {
			out.report(fmt.Sprintf("comment %d also carries a review-loop state; the earliest one, comment %d, is the state and the other is ignored (SC4)", ic.DatabaseID, out.Comment.DatabaseID))
			continue
		}
		// An unreadable state names no owner and keeps the SC3 path below:
		// the cycle fails closed and only reset goes on.
		proof, why, oerr := st.Owner, "", error(nil)
		if !other {
			proof, why, oerr = owned(ctx, gh, owner, repo, number, origin, ic, st, err == nil)
		}
		if oerr != nil {
			return out, oerr
		}
		if err == nil && why != "" {
			out.report(fmt.Sprintf("comment %d carries a review-loop state under review-loop's identity but is not adopted: %s; another workflow of the repository may have written it (SC4)", ic.DatabaseID, why))
			continue
		}
		if err == nil {
			st.Owner = proof
		}
		var newer *state.NewerVersionError
		if errors.As(err, &newer) {
			return out, fmt.Errorf("status comment %d: %w", ic.DatabaseID, err)
		}
		out.Comment = ic
		if other {
			obs.DriverLogins = append(obs.DriverLogins, ic.Author.Login)
		}
		if err != nil {
			out.Lost = fmt.Sprintf("the state in status comment %d cannot be read (%v)", ic.DatabaseID, err)
			continue
		}
		out.State = st
	}
	if out.Comment == nil && !obs.IssueCommentsComplete {
		out.Lost = fmt.Sprintf("not every comment of PR #%d could be read (%d read), and the state is not among those read", number, len(comments))
	}
	return out, nil
}

// report is a warning that the status comment repeats.
func (l *Loaded) report(msg string) {
	l.Warnings = append(l.Warnings, msg)
	l.Notices = append(l.Notices, msg)
}

// SameLogin reports whether two logins name the same account, a GitHub
// App's bot login ("x[bot]") matching its app name ("x").
func SameLogin(a, b string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), "[bot]") }
	return a != "" && norm(a) == norm(b)
}

// ActionsLogin is the login of GITHUB_TOKEN's identity, which writes the
// status comment when the Action drives the loop.
const ActionsLogin = "github-actions"

// otherDriver reports whether comment ic, written by another identity
// than this run's, was written by the loop's other driver, so that a loop
// started in a terminal goes on in the Action and back (LW1). The two
// drivers write the same status comment under their own identities:
//
//   - in a workflow run (the Action), a state comment by a person whose
//     state says `review-loop watch` created it (state.Owner.Driver) is
//     watch's when that person holds write, maintain or admin permission
//     on the repository, read through the API (TB3's permission: such a
//     person may push to the PR and give every command anyway); one by
//     anyone else, or with no such mark, is ignored and reported;
//   - outside one (watch), a state comment by the Actions bot is the
//     Action's when its state names the comment's own id
//     (state.Owner.CommentID), which only review-loop's own workflow
//     writes, right after creating it (SC4).
//
// An error is a failed permission read: the question stays open and the
// cycle stops.
func otherDriver(ctx context.Context, gh *github.Client, owner, repo string, origin Origin, ic *github.IssueComment, st state.State, readable bool) (bool, error) {
	if origin.Workflow == "" || origin.RunID == 0 {
		return SameLogin(ic.Author.Login, ActionsLogin) && readable && st.Owner != nil && st.Owner.CommentID == ic.DatabaseID, nil
	}
	if ic.Author.IsBot || ic.Author.Login == "" || IsBotLogin(ic.Author.Login) || !readable || st.Owner == nil || st.Owner.Driver != "watch" {
		return false, nil
	}
	p, err := gh.CollaboratorPermission(ctx, owner, repo, ic.Author.Login)
	if github.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("proving who wrote status comment %d (LW1): %w", ic.DatabaseID, err)
	}
	return p.Permission == "admin" || p.Permission == "write", nil
}
