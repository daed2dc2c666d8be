package observe

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/event"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// HY1: the people at work on a PR are people's changes-requested reviews
// and thread replies: never a bot's, never review-loop's own identity's,
// never a thread's root comment; and the head's pusher is known only from
// the wake of that push.
func TestRule_HY1_ThePeopleAtWorkAreNeitherBotsNorReviewLoopNorFindings(t *testing.T) {
	t.Parallel()
	person := github.Actor{Login: "maintainer"}
	bot := github.Actor{Login: "cursor", IsBot: true}
	ours := github.Actor{Login: "github-actions"}
	obs := &github.Observation{ViewerLogin: "github-actions[bot]", HeadSHA: "abc",
		Reviews: []github.Review{
			{DatabaseID: 1, Author: person, State: "CHANGES_REQUESTED"},
			{DatabaseID: 2, Author: person, State: "COMMENTED"},
			{DatabaseID: 3, Author: bot, State: "CHANGES_REQUESTED"},
			{DatabaseID: 4, Author: ours, State: "CHANGES_REQUESTED"},
		},
		Threads: []github.Thread{{NodeID: "T1", Comments: []github.ReviewComment{
			{DatabaseID: 10, Author: person}, {DatabaseID: 11, Author: bot}, {DatabaseID: 12, Author: ours}, {DatabaseID: 13, Author: person},
		}}},
	}
	var got []int64
	for _, h := range Humans(obs) {
		got = append(got, h.ID)
		if h.Login != "maintainer" || (h.ID == 13) != (h.Kind == loop.HumanReply && h.ThreadID == "T1") {
			t.Errorf("activity %+v", h)
		}
	}
	if !slices.Equal(got, []int64{1, 13}) {
		t.Errorf("human activity %v, want the changes requested (1) and the reply (13)", got)
	}

	push := event.Wake{Kind: event.KindOutsidePush, HeadSHA: "abc", Actor: "dependabot[bot]"}
	if p := HeadPusher(push, obs); p != "dependabot[bot]" || !IsBotLogin(p) {
		t.Errorf("pusher %q of the push's own wake, want dependabot[bot], a bot", p)
	}
	for _, w := range []event.Wake{{Kind: event.KindOutsidePush, HeadSHA: "old", Actor: "x"}, {Kind: event.KindDispatch, HeadSHA: "abc", Actor: "x"}} {
		if p := HeadPusher(w, obs); p != "" {
			t.Errorf("pusher %q from wake %+v, want none", p, w)
		}
	}
}
