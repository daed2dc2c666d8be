package copilot

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// Copilot's check run is the job of its "Copilot code review" dynamic
// workflow, reported as "Agent" by third-party code (unconfirmed,
// ENGINES.md round 2): whatever its name, a check run is only a RUNNING
// hint, and the review whose commit is the head SHA is DONE.
func TestRule_S1_copilotCheckRunIsOnlyARunningHint(t *testing.T) {
	const head = "head"
	bot := github.Actor{Login: ReviewerLogin, DatabaseID: BotID, IsBot: true}
	review := github.Review{DatabaseID: 7, Author: bot, CommitSHA: head, State: "COMMENTED",
		Body: "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated no comments.", SubmittedAt: t0.Add(2 * time.Minute)}
	old := review
	old.DatabaseID, old.CommitSHA = 5, "old"
	check := func(name, app, status, conclusion string, started time.Time) github.CheckRun {
		return github.CheckRun{DatabaseID: 9, Name: name, AppSlug: app, Status: status, Conclusion: conclusion, StartedAt: started}
	}
	for _, tt := range []struct {
		name   string
		checks []github.CheckRun
		revs   []github.Review
		want   loop.Signal
		id     int64
	}{
		{"the job Agent in progress is RUNNING", []github.CheckRun{check("Agent", "github-actions", "IN_PROGRESS", "", t0)}, []github.Review{old}, loop.SignalRunning, 9},
		{"the job Agent queued is RUNNING", []github.CheckRun{check("agent", "github-actions", "QUEUED", "", t0)}, nil, loop.SignalRunning, 9},
		{"the workflow's name in progress is RUNNING", []github.CheckRun{check(CheckRunName, "github-actions", "IN_PROGRESS", "", t0)}, nil, loop.SignalRunning, 9},
		{"a job named Agent of another app is no hint", []github.CheckRun{check("Agent", "some-ci", "IN_PROGRESS", "", t0)}, nil, loop.SignalNone, 0},
		{"no check run and no review is nothing", nil, nil, loop.SignalNone, 0},
		{"the review on the head without any check run is DONE", nil, []github.Review{old, review}, loop.SignalDone, 7},
		{"the review on the head beside a completed Agent is DONE", []github.CheckRun{check("Agent", "github-actions", "COMPLETED", "SUCCESS", t0)}, []github.Review{review}, loop.SignalDone, 7},
		{"the review on the head while the job that posted it winds down is DONE", []github.CheckRun{check("Agent", "github-actions", "IN_PROGRESS", "", t0)}, []github.Review{review}, loop.SignalDone, 7},
		{"a job started after the head's review is a new review: RUNNING", []github.CheckRun{check("Agent", "github-actions", "IN_PROGRESS", "", t0.Add(5*time.Minute))}, []github.Review{review}, loop.SignalRunning, 9},
		{"a review of an older commit is not DONE", nil, []github.Review{old}, loop.SignalNone, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obs := &github.Observation{HeadSHA: head, CheckRuns: tt.checks, Reviews: tt.revs, Complete: true}
			v := New().Observe(obs, engines.Env{})
			if v.Signal != tt.want || v.SignalID != tt.id {
				t.Fatalf("signal %s id %d, want %s id %d", v.Signal, v.SignalID, tt.want, tt.id)
			}
		})
	}
	t.Run("a failed Agent job without a review on the head is DONE and ERRORED", func(t *testing.T) {
		obs := &github.Observation{HeadSHA: head, CheckRuns: []github.CheckRun{check("Agent", "github-actions", "COMPLETED", "FAILURE", t0)}}
		if v := New().Observe(obs, engines.Env{}); v.Signal != loop.SignalDone || v.Material != loop.MaterialErrored {
			t.Fatalf("signal %s material %s", v.Signal, v.Material)
		}
	})
}
