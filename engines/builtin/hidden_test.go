package builtin

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/github"
)

// S8 (ENGINES.md round 3: Bugbot hides its own earlier reviews on rerun):
// a minimized review is never proof of a finished review and never the
// engine's latest review, for every engine; the newest visible finished
// review of the head decides.
// copilotClean is the clean overview line of copilot/13-… (vllm PR 31104).
const copilotClean = "Pull request overview Copilot reviewed 35 out of 35 changed files in this pull request and generated no new comments."

func TestRule_S8_AHiddenReviewIsNeverProof(t *testing.T) {
	cases := []struct {
		engine string
		obs    func(t *testing.T) *github.Observation
	}{
		{"bugbot", func(t *testing.T) *github.Observation {
			obs := observation()
			obs.Reviews = []github.Review{review("bugbot", 7, head, block(t, "bugbot", "04-", 0), 0)}
			obs.CheckRuns = []github.CheckRun{check("Cursor Bugbot", "cursor", "COMPLETED", "SUCCESS", -time.Minute)}
			return obs
		}},
		{"copilot", func(t *testing.T) *github.Observation {
			obs := observation()
			obs.Reviews = []github.Review{review("copilot", 7, head, copilotClean, 0)}
			return obs
		}},
		{"gemini", func(t *testing.T) *github.Observation {
			obs := observation()
			obs.Reviews = []github.Review{review("gemini", 7, head, block(t, "gemini", "06-", 1), 0)}
			return obs
		}},
	}
	for _, c := range cases {
		t.Run(c.engine, func(t *testing.T) {
			obs := c.obs(t)
			if ok, why, v := cleanOf(t, c.engine, obs); !ok || v.Proof == nil || v.Proof.ID != 7 {
				t.Fatalf("the visible finished review of the head is not clean: %s", why)
			}
			// The engine hid that review (its rerun has posted nothing yet).
			obs.Reviews[0].IsMinimized = true
			ok, why, v := cleanOf(t, c.engine, obs)
			if ok {
				t.Errorf("%s's hidden finished review of the head reads CLEAN (%s); a hidden review is never proof (S8)", c.engine, why)
			}
			if v.Proof != nil && v.Proof.ID == 7 {
				t.Errorf("%s's hidden review %d is its proof", c.engine, v.Proof.ID)
			}
			if v.LatestReviewID == 7 {
				t.Errorf("%s's hidden review is its latest review", c.engine)
			}
			// An earlier visible finished review of the head decides.
			earlier := obs.Reviews[0]
			earlier.DatabaseID, earlier.IsMinimized, earlier.SubmittedAt = 5, false, earlier.SubmittedAt.Add(-time.Minute)
			obs.Reviews = append([]github.Review{earlier}, obs.Reviews...)
			if ok, why, v := cleanOf(t, c.engine, obs); !ok || v.Proof == nil || v.Proof.ID != 5 || v.LatestReviewID != 5 {
				t.Errorf("the newest visible finished review of the head (5) does not decide: clean=%v (%s), proof %+v, latest %d", ok, why, v.Proof, v.LatestReviewID)
			}
		})
	}
}
