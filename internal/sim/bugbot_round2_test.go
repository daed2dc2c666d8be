package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/internal/loop"
)

// lastCheck is the newest check run of that name.
func lastCheck(w *World, name string) (title, summary, text, conclusion string) {
	for _, cr := range w.Fake.PR(w.Owner, w.Repo, w.Number).CheckRuns {
		if cr.Name == name {
			title, summary, text, conclusion = cr.Title, cr.Summary, cr.Text, cr.Conclusion
		}
	}
	return
}

// Real Bugbot is incremental (cursor.com/docs/bugbot, ENGINES.md round 2):
// a still-present bug whose line did not move is not re-posted, the
// summary says "found no new issues", the check output states the total
// and stays neutral while a Bugbot thread is unresolved.
func TestBugbotIsIncrementalAndStatesItsTotals(t *testing.T) {
	t.Parallel()
	w, gh, _ := newWorld(t, botScenario(t, Bugbot, twoFindings))
	w.Advance(2 * time.Minute)
	w.Drain()
	// Div fixed on its own line: Max does not move.
	fixed := "package calc\n\nfunc Div(a, b int) int {\n\treturn a / max(b, 1)\n}\n\nfunc Max(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	if _, err := w.Fake.PushCommit(w.Owner, w.Repo, "feature", map[string]string{"calc/calc.go": fixed}, "fix div"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(2 * time.Minute)
	pr := w.Fake.PR(w.Owner, w.Repo, w.Number)
	if n := len(pr.Threads); n != 2 {
		t.Fatalf("%d threads, want the two first ones and no re-post", n)
	}
	if !strings.Contains(pr.Reviews[1].Body, "found no new issues") {
		t.Fatalf("second review body %q", pr.Reviews[1].Body)
	}
	title, summary, text, conclusion := lastCheck(w, BugbotCheck)
	if title != "Bugbot Review" || conclusion != "NEUTRAL" ||
		summary != "Final Result: Bugbot completed review - no new issues found! 1 previously reported issue remain unresolved." ||
		text != "There is 1 total unresolved issue (including 1 from previous review)." {
		t.Fatalf("check %q %q %q %q", title, summary, text, conclusion)
	}
	v := bugbot.New().Observe(observe(t, w, gh), engines.Env{HasTriggerToken: true})
	if v.Material != loop.MaterialOK || v.Stated == nil || v.Stated.N != 1 || !v.Incremental {
		t.Fatalf("adapter read material %s stated %+v incremental %v", v.Material, v.Stated, v.Incremental)
	}
	if a := loop.ActiveFindings(v, w.Fake.HeadSHA(w.Owner, w.Repo, w.Number)); len(a) == 0 {
		t.Fatal("the unresolved Max thread is not active on the new head (ST5)")
	}
}

func TestBugbotRepostsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	w, _, _ := newWorld(t, botScenario(t, Bugbot, twoFindings+"      - repost: true\n"))
	w.Advance(2 * time.Minute)
	fixed := "package calc\n\nfunc Div(a, b int) int {\n\treturn a / max(b, 1)\n}\n\nfunc Max(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	if _, err := w.Fake.PushCommit(w.Owner, w.Repo, "feature", map[string]string{"calc/calc.go": fixed}, "fix div"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(2 * time.Minute)
	pr := w.Fake.PR(w.Owner, w.Repo, w.Number)
	if n := len(pr.Threads); n != 3 || !strings.Contains(pr.Reviews[1].Body, "found 1 potential issue") {
		t.Fatalf("%d threads, body %q: want Max re-posted", n, pr.Reviews[1].Body)
	}
}

func TestBugbotUsageLimitAndCancelledRunsPostNoReview(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		round, title string
		material     loop.Material
	}{
		{"      - quota: true\n", "Error", loop.MaterialQuota},
		{"      - unproven: cancelled\n", "Bugbot Review", loop.MaterialUnproven},
		{"      - unproven: skipped\n", "Bugbot Review", loop.MaterialUnproven},
	} {
		w, gh, _ := newWorld(t, botScenario(t, Bugbot, tt.round))
		w.Advance(3 * time.Minute)
		pr := w.Fake.PR(w.Owner, w.Repo, w.Number)
		title, _, _, conclusion := lastCheck(w, BugbotCheck)
		if len(pr.Reviews) != 0 || title != tt.title || conclusion != "NEUTRAL" {
			t.Fatalf("%s: %d reviews, check %q %s", tt.round, len(pr.Reviews), title, conclusion)
		}
		v := bugbot.New().Observe(observe(t, w, gh), engines.Env{HasTriggerToken: true})
		if v.Material != tt.material {
			t.Fatalf("%s: material %s (%s)", tt.round, v.Material, v.MaterialNote)
		}
		if tt.material == loop.MaterialQuota && (v.Quota == nil || !strings.Contains(v.Quota.Text, "usage limit reached")) {
			t.Fatalf("quota %+v", v.Quota)
		}
	}
}
