package claude

import (
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// A workflow started by an issue comment runs from the default branch
// (GitHub docs, "Events that trigger workflows", issue_comment: GITHUB_SHA
// is the last commit on the default branch), so after an "@claude review
// once" trigger Claude's job check run is not on the PR head: its run is
// found among the Claude workflow's issue_comment runs created since the
// trigger, and read as the signal.
func TestRule_S1_claudeCommentTriggeredRunOnTheDefaultBranch(t *testing.T) {
	const head, mainSHA, wf = "head", "main-head", ".github/workflows/claude.yml"
	trigger := github.IssueComment{DatabaseID: 500, Author: github.Actor{Login: "loop-maintainer"}, Body: TriggerBody, CreatedAt: t0, UpdatedAt: t0}
	claude := github.Actor{Login: "claude", DatabaseID: BotID, IsBot: true}
	verdict := github.IssueComment{DatabaseID: 600, Author: claude, Body: "**Claude finished @loop-maintainer's task in 54s**\n\nNo issues found.", CreatedAt: t0.Add(3 * time.Minute), UpdatedAt: t0.Add(3 * time.Minute)}
	files := []engines.WorkflowFile{
		{Path: ".github/workflows/claude-code-review.yml", Content: "on: pull_request\njobs:\n  r:\n    steps:\n      - uses: anthropics/claude-code-action@v1\n"},
		{Path: wf, Content: "on:\n  issue_comment:\n    types: [created]\njobs:\n  claude:\n    steps:\n      - uses: anthropics/claude-code-action@v1\n"},
	}
	run := func(id int64, event, status, conclusion, actor string, created time.Time) github.WorkflowRun {
		return github.WorkflowRun{ID: id, Name: "Claude Code", Path: wf, Event: event, Status: status, Conclusion: conclusion, HeadSHA: mainSHA,
			HeadBranch: "main", Actor: actor, CreatedAt: created, UpdatedAt: created.Add(2 * time.Minute), RunStartedAt: created.Add(time.Second)}
	}
	trig := map[string]engines.Trigger{Name: {SHA: head, At: t0.Add(10 * time.Second), CommentID: trigger.DatabaseID}}
	env := engines.Env{HasTriggerToken: true, WorkflowFiles: files, Triggers: trig}
	headCheck := github.CheckRun{DatabaseID: 40, Name: DefaultJobName, AppSlug: "github-actions", Status: "COMPLETED", Conclusion: "SUCCESS", StartedAt: t0.Add(-time.Hour), CompletedAt: t0.Add(-50 * time.Minute)}

	t.Run("queries", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			checks []github.CheckRun
			env    engines.Env
			want   int
		}{
			{"a comment trigger for the head and no check run on it asks for the comment workflow's runs", nil, env, 1},
			{"a check run on the head older than the trigger is an earlier run: still asks", []github.CheckRun{headCheck}, env, 1},
			{"a check run on the head since the trigger is Claude's run: no request", []github.CheckRun{{Name: DefaultJobName, AppSlug: "github-actions", Status: "IN_PROGRESS", StartedAt: t0.Add(time.Minute)}}, env, 0},
			{"no trigger recorded: no request", nil, engines.Env{WorkflowFiles: files}, 0},
			{"a trigger for an older head: no request", nil, engines.Env{WorkflowFiles: files, Triggers: map[string]engines.Trigger{Name: {SHA: "old", CommentID: 500}}}, 0},
			{"a trigger with no comment (push-triggered only): no request", nil, engines.Env{WorkflowFiles: files, Triggers: map[string]engines.Trigger{Name: {SHA: head}}}, 0},
			{"workflow files unknown: nothing to ask for", nil, engines.Env{Triggers: trig}, 0},
		} {
			t.Run(tt.name, func(t *testing.T) {
				obs := &github.Observation{HeadSHA: head, CheckRuns: tt.checks, IssueComments: []github.IssueComment{trigger}, Complete: true}
				qs := New(Options{}).WorkflowRunQueries(obs, tt.env)
				if len(qs) != tt.want {
					t.Fatalf("queries %+v, want %d", qs, tt.want)
				}
				if tt.want == 1 && (qs[0].File != wf || qs[0].Event != "issue_comment" || !qs[0].Since.Equal(t0)) {
					t.Fatalf("query %+v, want %s issue_comment since the comment's own time", qs[0], wf)
				}
			})
		}
	})

	for _, tt := range []struct {
		name     string
		checks   []github.CheckRun
		runs     []github.WorkflowRun
		comments []github.IssueComment
		want     loop.Signal
		id       int64
		material loop.Material
	}{
		{"no run yet: TRIGGERED, not DONE", nil, nil, nil, loop.SignalNone, 0, loop.MaterialPending},
		{"the queued run is RUNNING", nil, []github.WorkflowRun{run(70, "issue_comment", "queued", "", "loop-maintainer", t0.Add(2*time.Second))}, nil, loop.SignalRunning, 70, loop.MaterialPending},
		{"the run in progress is RUNNING", nil, []github.WorkflowRun{run(70, "issue_comment", "in_progress", "", "loop-maintainer", t0.Add(2*time.Second))}, nil, loop.SignalRunning, 70, loop.MaterialPending},
		{"the completed run with Claude's comment since is DONE with material", nil, []github.WorkflowRun{run(70, "issue_comment", "completed", "success", "loop-maintainer", t0.Add(2*time.Second))}, []github.IssueComment{verdict}, loop.SignalDone, 70, loop.MaterialOK},
		{"the completed run beats an older check run on the head", []github.CheckRun{headCheck}, []github.WorkflowRun{run(70, "issue_comment", "completed", "success", "loop-maintainer", t0.Add(2*time.Second))}, []github.IssueComment{verdict}, loop.SignalDone, 70, loop.MaterialOK},
		{"a failed run is DONE and ERRORED", nil, []github.WorkflowRun{run(70, "issue_comment", "completed", "failure", "loop-maintainer", t0.Add(2*time.Second))}, nil, loop.SignalDone, 70, loop.MaterialErrored},
		{"a run created before the trigger is not ours", nil, []github.WorkflowRun{run(69, "issue_comment", "completed", "success", "loop-maintainer", t0.Add(-time.Minute))}, nil, loop.SignalNone, 0, loop.MaterialPending},
		{"a skipped run is another comment's", nil, []github.WorkflowRun{run(70, "issue_comment", "in_progress", "", "loop-maintainer", t0.Add(2*time.Second)), run(71, "issue_comment", "completed", "skipped", "claude[bot]", t0.Add(time.Minute))}, nil, loop.SignalRunning, 70, loop.MaterialPending},
		{"a run started by someone else is not ours", nil, []github.WorkflowRun{run(72, "issue_comment", "in_progress", "", "alice", t0.Add(5*time.Second))}, nil, loop.SignalNone, 0, loop.MaterialPending},
		{"a run of another event is not ours", nil, []github.WorkflowRun{run(73, "pull_request", "completed", "success", "loop-maintainer", t0.Add(5*time.Second))}, nil, loop.SignalNone, 0, loop.MaterialPending},
		{"the newest of two matching runs is the signal", nil, []github.WorkflowRun{run(74, "issue_comment", "completed", "success", "loop-maintainer", t0.Add(2*time.Second)), run(75, "issue_comment", "in_progress", "", "loop-maintainer", t0.Add(time.Minute))}, nil, loop.SignalRunning, 75, loop.MaterialPending},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obs := &github.Observation{HeadSHA: head, CheckRuns: tt.checks, WorkflowRuns: tt.runs,
				IssueComments: append([]github.IssueComment{trigger}, tt.comments...), Complete: true}
			v := New(Options{}).Observe(obs, env)
			if v.Signal != tt.want || v.SignalID != tt.id || v.Material != tt.material {
				t.Fatalf("signal %s id %d material %s (%s), want %s id %d material %s", v.Signal, v.SignalID, v.Material, v.MaterialNote, tt.want, tt.id, tt.material)
			}
			if tt.material == loop.MaterialOK && !v.VerdictSetProven {
				t.Error("a completed run with Claude's verdict since should prove the verdict set")
			}
		})
	}

	t.Run("without the trigger comment in the observation the recorded time less a minute bounds the run", func(t *testing.T) {
		obs := &github.Observation{HeadSHA: head, WorkflowRuns: []github.WorkflowRun{run(70, "issue_comment", "in_progress", "", "alice", t0.Add(2*time.Second))}}
		if v := New(Options{}).Observe(obs, env); v.Signal != loop.SignalRunning || v.SignalID != 70 {
			t.Fatalf("signal %s id %d", v.Signal, v.SignalID)
		}
	})
}
