package action

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
	"github.com/review-loop/review-loop/internal/triage"
)

// bugbotTriggers counts the `bugbot run` comments on PR #1.
func (w *world) bugbotTriggers() int {
	n := 0
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		if strings.TrimSpace(c.Body) == "bugbot run" {
			n++
		}
	}
	return n
}

// TestRule_T5_OurIdenticalRecentTriggerIsNotPostedAgain goes through the
// action's trigger path: the PR's last comment is the trigger identity's
// own `bugbot run` from a minute ago and Bugbot has not started yet, so
// the cycle posts no second one and logs retrigger-skipped /
// recent-duplicate. Older than the 5-minute window, it is posted.
func TestRule_T5_OurIdenticalRecentTriggerIsNotPostedAgain(t *testing.T) {
	t.Parallel()
	in := map[string]string{"engines": "bugbot", "trigger-token": "ghp_maintainer"}
	t.Run("within the window", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		w.now = w.now.Add(-time.Minute)
		if _, err := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "bugbot run"); err != nil {
			t.Fatal(err)
		}
		w.now = w.now.Add(time.Minute)
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
			t.Fatalf("%v\n%s", err, w.out.String())
		}
		if n := w.bugbotTriggers(); n != 1 {
			t.Errorf("%d `bugbot run` comments on the PR, want 1 (ours from a minute ago, not repeated)", n)
		}
		st, _ := statusState(t, w.fake)
		skipped := false
		for _, ev := range st.Events {
			if ev.Name == state.EventRetriggerSkipped && ev.Reason == "recent-duplicate" && ev.Engine == "bugbot" {
				skipped = true
			}
		}
		if !skipped {
			t.Errorf("no retrigger-skipped/recent-duplicate event for bugbot: %+v", st.Events)
		}
	})
	t.Run("outside the window", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		w.now = w.now.Add(-6 * time.Minute)
		if _, err := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "bugbot run"); err != nil {
			t.Fatal(err)
		}
		w.now = w.now.Add(6 * time.Minute)
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
			t.Fatalf("%v\n%s", err, w.out.String())
		}
		if n := w.bugbotTriggers(); n != 2 {
			t.Errorf("%d `bugbot run` comments on the PR, want 2 (a stale one and a new trigger)", n)
		}
	})
}

// TestRule_E6_Tier3ThreadsStayOpen: a Tier 3 row (it touches
// .github/workflows/) is escalated even when it carries a reply: the
// cycle neither replies to it nor resolves its thread, while the fixed
// finding's thread is resolved.
func TestRule_E6_Tier3ThreadsStayOpen(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	head := w.fake.HeadSHA("octo", "app", 1)
	rid, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview", CommitSHA: head})
	if err != nil {
		t.Fatal(err)
	}
	fixedID, fixedThread, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head, Body: "Add subtracts."})
	if err != nil {
		t.Fatal(err)
	}
	wfID, wfThread, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: ".github/workflows/ci.yml", Line: 3, CommitSHA: head, Body: "Pin this action by SHA."})
	if err != nil {
		t.Fatal(err)
	}
	findings := []loop.Finding{
		{ID: "copilot-fixed", Engine: "copilot", CommentID: fixedID, ThreadID: fixedThread, Path: "calc/calc.go", Line: 5, Title: "Add subtracts"},
		{ID: "copilot-wf", Engine: "copilot", CommentID: wfID, ThreadID: wfThread, Path: ".github/workflows/ci.yml", Line: 3, Title: "Pin this action by SHA"},
	}
	// Triage escalates the workflow finding; a Tier 3 row may still carry
	// a reply (an outdated escalation in Copilot-only mode): it must not
	// be posted, nor the thread resolved.
	table := triage.Table{Rows: []triage.Row{{FindingID: "copilot-wf", Engine: "copilot", CommentID: wfID, Tier: triage.Tier3,
		Outcome: triage.OutcomeEscalated, Reason: "touches .github/workflows/", Verdict: triage.VerdictOutdated, Reply: "Outdated: the code changed since."}}}
	client, err := github.New(github.Options{Token: actionToken, APIURL: w.fake.URL(), GraphQLURL: w.fake.GraphQLURL(), RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := &prCycle{runner: &runner{gh: client, gha: githubactions.New(githubactions.WithWriter(&out))}, owner: "octo", repo: "app", number: 1}
	byID := map[string]loop.Finding{}
	for _, f := range findings {
		byID[f.ID] = f
	}
	cyc := fix.CycleResult{Results: []fix.Result{{ID: "copilot-fixed", Outcome: fix.OutcomeFixed}}}
	c.replyAndResolve(context.Background(), cyc, table, byID, true)

	for _, th := range w.fake.PR("octo", "app", 1).Threads {
		switch th.NodeID {
		case fixedThread:
			if !th.Resolved {
				t.Errorf("the fixed finding's thread is open")
			}
		case wfThread:
			if th.Resolved {
				t.Errorf("the Tier 3 thread was resolved (E6: Tier 3 threads stay open)")
			}
			if len(th.Comments) != 1 {
				t.Errorf("the Tier 3 thread got a reply: %d comments", len(th.Comments))
			}
		}
	}
}
