package action

import (
	"strings"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/loop"
)

// headPusher is who pushed the observed head, when this wake is that
// push's event (its sender); empty when the wake does not say (HY1).
func (c *prCycle) headPusher() string {
	if c.wake.Kind == event.KindOutsidePush && c.wake.HeadSHA != "" && c.wake.HeadSHA == c.obs.HeadSHA {
		return c.wake.Actor
	}
	return ""
}

// isBotLogin: a REST sender login of a GitHub App bot ends in "[bot]".
func isBotLogin(login string) bool {
	return strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// humans are people's changes-requested reviews and thread replies on the
// PR (HY1): never a bot's, never review-loop's own identity's, and never
// a thread's root comment (that is the finding itself).
func (c *prCycle) humans() []loop.HumanActivity {
	ours := func(login string) bool {
		return strings.EqualFold(strings.TrimSuffix(login, "[bot]"), strings.TrimSuffix(c.obs.ViewerLogin, "[bot]"))
	}
	var out []loop.HumanActivity
	for _, r := range c.obs.Reviews {
		if r.State == "CHANGES_REQUESTED" && !r.Author.IsBot && r.Author.Login != "" && !ours(r.Author.Login) {
			out = append(out, loop.HumanActivity{Kind: loop.HumanChangesRequested, ID: r.DatabaseID, Login: r.Author.Login, At: r.SubmittedAt})
		}
	}
	for _, t := range c.obs.Threads {
		for i, cm := range t.Comments {
			if i == 0 || cm.Author.IsBot || cm.Author.Login == "" || ours(cm.Author.Login) {
				continue
			}
			out = append(out, loop.HumanActivity{Kind: loop.HumanReply, ID: cm.DatabaseID, Login: cm.Author.Login, At: cm.CreatedAt, ThreadID: t.NodeID})
		}
	}
	return out
}
