package action

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
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
