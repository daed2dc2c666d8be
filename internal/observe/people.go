package observe

import (
	"context"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file finds the people at work on a PR (HY1): who pushed the head,
// and the people's reviews and replies; and what a commenter may do on
// the repository (TB3).

// HeadPusher is who pushed the observed head, when the wake is that
// push's event (its sender); empty when the wake does not say (HY1).
func HeadPusher(wake event.Wake, obs *github.Observation) string {
	if wake.Kind == event.KindOutsidePush && wake.HeadSHA != "" && wake.HeadSHA == obs.HeadSHA {
		return wake.Actor
	}
	return ""
}

// IsBotLogin reports whether a REST sender login is a GitHub App bot's:
// such a login ends in "[bot]".
func IsBotLogin(login string) bool {
	return strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// Humans are people's changes-requested reviews and thread replies on the
// PR (HY1): never a bot's, never review-loop's own identity's, and never
// a thread's root comment (that is the finding itself).
func Humans(obs *github.Observation) []loop.HumanActivity {
	var out []loop.HumanActivity
	for _, r := range obs.Reviews {
		if r.State == "CHANGES_REQUESTED" && !r.Author.IsBot && r.Author.Login != "" && !loopIdentity(obs, r.Author.Login) {
			out = append(out, loop.HumanActivity{Kind: loop.HumanChangesRequested, ID: r.DatabaseID, Login: r.Author.Login, At: r.SubmittedAt})
		}
	}
	for _, t := range obs.Threads {
		for i, cm := range t.Comments {
			if i == 0 || cm.Author.IsBot || cm.Author.Login == "" || loopIdentity(obs, cm.Author.Login) {
				continue
			}
			out = append(out, loop.HumanActivity{Kind: loop.HumanReply, ID: cm.DatabaseID, Login: cm.Author.Login, At: cm.CreatedAt, ThreadID: t.NodeID})
		}
	}
	return out
}

// Permissions caches each user's permission on a repository, so a run
// asks GitHub once per user (TB3).
type Permissions map[string]github.Permission

// Of returns login's permission on owner/repo, asked once per run.
func (ps *Permissions) Of(ctx context.Context, gh *github.Client, owner, repo, login string) (github.Permission, error) {
	key := strings.ToLower(owner + "/" + repo + "@" + login)
	if p, ok := (*ps)[key]; ok {
		return p, nil
	}
	p, err := gh.CollaboratorPermission(ctx, owner, repo, login)
	if err != nil {
		return p, err
	}
	if *ps == nil {
		*ps = Permissions{}
	}
	(*ps)[key] = p
	return p, nil
}

// loopIdentity reports whether login is one of the loop's drivers: this
// run's identity, or the other driver's whose status comment it adopted.
func loopIdentity(obs *github.Observation, login string) bool {
	if SameLogin(login, obs.ViewerLogin) {
		return true
	}
	return slices.ContainsFunc(obs.DriverLogins, func(l string) bool { return SameLogin(login, l) })
}
