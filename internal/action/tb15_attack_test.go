package action_test

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// TB15: while a loop fixes a Copilot suggestion, a user with no write
// permission (a stranger; one with the triage role) submits a
// changes-requested review. Run with the built binary as Actions runs it,
// in single and hardened mode, with and without a checkout step: the loop
// does not yield to it — the fix is pushed — and the status comment says
// once that the review was ignored and why. The same review by the PR's
// author still makes the loop yield.
func TestRule_TB15_AStrangersChangesRequestedReviewDoesNotPauseTheLoop(t *testing.T) {
	t.Parallel()
	type by struct{ login, role string }
	for _, who := range []by{{"stranger", ""}, {"triager", "triage"}, {"maintainer", ""}} {
		for _, mode := range attackModes {
			if who.login != "stranger" && mode != "single" {
				continue // the other reviewers once, in the plain mode
			}
			t.Run(who.login+", "+mode, func(t *testing.T) {
				t.Parallel()
				g := newRig(t, mode)
				if who.role != "" {
					if err := g.e.fake.SetPermission("octo", "app", who.login, who.role); err != nil {
						t.Fatal(err)
					}
				}
				inputs := map[string]string{"engines": "copilot"}
				g.cycle(t, "workflow_dispatch", dispatch("1"), inputs)
				if _, err := g.e.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: who.login, State: "CHANGES_REQUESTED", Body: "stop fixing"}); err != nil {
					t.Fatal(err)
				}
				head := g.e.head
				_, pub := g.cycle(t, "pull_request_review", g.e.copilotSuggestion(t), inputs)
				pushed := g.e.fake.HeadSHA("octo", "app", 1) != head
				// Mentions are neutralised with a zero-width space (TB10).
				status := strings.ReplaceAll(g.e.statusComment(t), "\u200b", "")
				if who.login == "maintainer" {
					if pushed || !strings.Contains(status, "yielding to a changes-requested review by @maintainer") {
						t.Fatalf("the PR author's review: pushed=%v\n%s", pushed, status)
					}
					return
				}
				if !pushed {
					t.Errorf("the loop yielded to @%s's review: nothing was pushed\n%s\n%s", who.login, pub.stdout, status)
				}
				if !strings.Contains(status, "ignored a changes-requested review by @"+who.login) || !strings.Contains(status, "TB15") {
					t.Errorf("the status comment does not report the ignored review:\n%s", status)
				}
			})
		}
	}
}

// TB15: a user with the triage role (who may label, and whose `start`
// command is refused) adds the `review-loop` label: no loop starts, and
// the run says why. A maintainer's label starts one (exitpaths_test.go).
func TestRule_TB15_ATriageUsersLabelStartsNoLoop(t *testing.T) {
	t.Parallel()
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			if err := g.e.fake.SetPermission("octo", "app", "triager", "triage"); err != nil {
				t.Fatal(err)
			}
			g.e.fake.ResetRequests()
			payload := map[string]any{"action": "labeled", "number": 1, "repository": repo, "label": map[string]any{"name": "review-loop"},
				"sender":       map[string]any{"login": "triager", "type": "User"},
				"pull_request": map[string]any{"number": 1, "state": "open", "head": map[string]any{"sha": g.e.head, "ref": "feature"}}}
			prep, pub := g.cycle(t, "pull_request", payload, map[string]string{"engines": "bugbot"})
			if n := g.e.writes(); n != 0 {
				t.Errorf("the triage user's label started a loop: %d writes\n%s\n%s", n, pub.stdout, pub.stderr)
			}
			// The job that decides says why: the single job, or prepare.
			if said := prep.summary + prep.stdout; !strings.Contains(said, "TB15") || !strings.Contains(said, "@triager") {
				t.Errorf("the run does not say why the label was ignored:\n%s\n%s", prep.summary, prep.stdout)
			}
		})
	}
}
