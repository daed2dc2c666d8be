package action

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// wideFiles are three lines of 1.1 M characters each: a diff of a handful
// of lines (far under Bugbot's 100,000) and over 3.3 M characters (over
// its 3 M), as a minified bundle makes.
func wideFiles() map[string]string {
	line := strings.Repeat("x", 1_100_000)
	return map[string]string{"dist/bundle.min.js": line + "\n" + line + "\n" + line + "\n"}
}

// diffReads counts the REST reads of PR #n itself (pulls/get: only the
// diff media type is asked for).
func (w *world) diffReads(n string) int {
	k := 0
	for _, r := range w.fake.Requests() {
		if r.Method == "GET" && r.Path == "/repos/octo/app/pulls/"+n {
			k++
		}
	}
	return k
}

func bugbotIn() map[string]string {
	return map[string]string{"engines": "bugbot", "trigger-token": "ghp_maintainer"}
}

func wantTooLarge(t *testing.T, w *world, res Result, why string) {
	t.Helper()
	p := res.PRs[0].Plan
	if p.Action != loop.ActionHandBack || p.EndReason != loop.EndTooLarge {
		t.Fatalf("plan %s/%s (%s), want a too-large hand-back\n%s", p.Action, p.EndReason, p.Why, w.out.String())
	}
	if _, body := statusState(t, w.fake); !strings.Contains(body, why) {
		t.Fatalf("the status comment does not say %q:\n%s", why, body)
	}
	if n := w.bugbotTriggers(); n != 0 {
		t.Fatalf("%d `bugbot run` comments for a diff Bugbot will not review", n)
	}
}

// TestRule_CV6_ADiffOverBugbotsCharacterLimitIsSaidNotAwaited: a PR of
// three lines and 3.3 M characters is over Bugbot's 3 M character limit
// though far under its line limit. The cycle counts the diff's characters
// (one REST read of the diff with no checkout; none with a checkout that
// holds the base and the head), says "skipped: too large" and hands back
// instead of asking Bugbot and waiting for a review that will not come.
func TestRule_CV6_ADiffOverBugbotsCharacterLimitIsSaidNotAwaited(t *testing.T) {
	t.Parallel()
	const why = "changed characters are over bugbot's limit of 3000000"
	t.Run("no checkout: GitHub's diff", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, wideFiles())
		w.workspace = t.TempDir()
		w.env["GITHUB_WORKSPACE"] = w.workspace
		w.env["GITHUB_SERVER_URL"] = w.fake.URL()
		res, err := w.cycle("workflow_dispatch", dispatchPayload(1), bugbotIn())
		if err != nil {
			t.Fatal(err)
		}
		wantTooLarge(t, w, res, why)
		if n := w.diffReads("1"); n != 1 {
			t.Fatalf("%d reads of the diff, want 1", n)
		}
	})
	t.Run("checkout: git diff base...head", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, wideFiles())
		res, err := w.cycle("workflow_dispatch", dispatchPayload(1), bugbotIn())
		if err != nil {
			t.Fatal(err)
		}
		wantTooLarge(t, w, res, why)
		if n := w.diffReads("1"); n != 0 {
			t.Fatalf("%d REST reads of the diff with a checkout holding base and head, want 0", n)
		}
	})
}

// TestRule_CV6_TheCharacterCountCostsNoRequestUnlessNeeded: the diff is
// not read when no selected engine has a character limit, when the lines
// already put the only such engine over its limit, or when GitHub would
// refuse the diff (over 20,000 lines); and when GitHub refuses it anyway
// (its line count includes context the additions do not), the size is
// unknown and the loop goes on: Bugbot is asked as usual.
func TestRule_CV6_TheCharacterCountCostsNoRequestUnlessNeeded(t *testing.T) {
	t.Parallel()
	treeless := func(t *testing.T, o ghfake.PROptions) *world {
		w := newWorld(t, nil)
		w.workspace = t.TempDir()
		w.env["GITHUB_WORKSPACE"] = w.workspace
		w.env["GITHUB_SERVER_URL"] = w.fake.URL()
		if o.Head != "" {
			o.Author = "maintainer"
			if _, err := w.fake.CreatePR("octo", "app", o); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	t.Run("a second wake on the same head", func(t *testing.T) {
		t.Parallel()
		w := treeless(t, ghfake.PROptions{})
		for i := 0; i < 3; i++ {
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), bugbotIn()); err != nil {
				t.Fatal(err)
			}
		}
		if n := w.diffReads("1"); n != 1 {
			t.Fatalf("%d reads of the diff in three wakes on one head, want 1: the count is saved with the commits it was made on", n)
		}
	})
	t.Run("no engine with a character limit", func(t *testing.T) {
		t.Parallel()
		w := treeless(t, ghfake.PROptions{})
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
			t.Fatal(err)
		}
		if n := w.diffReads("1"); n != 0 {
			t.Fatalf("%d reads of the diff, want 0", n)
		}
	})
	t.Run("over Bugbot's line limit", func(t *testing.T) {
		t.Parallel()
		w := treeless(t, ghfake.PROptions{Head: "big", Additions: 150_000})
		res, err := w.cycle("workflow_dispatch", dispatchPayload(2), bugbotIn())
		if err != nil {
			t.Fatal(err)
		}
		if p := res.PRs[0].Plan; p.EndReason != loop.EndTooLarge {
			t.Fatalf("plan %s/%s, want too-large by its lines", p.Action, p.EndReason)
		}
		if n := w.diffReads("2"); n != 0 {
			t.Fatalf("%d reads of the diff, want 0", n)
		}
	})
	t.Run("GitHub would refuse", func(t *testing.T) {
		t.Parallel()
		w := treeless(t, ghfake.PROptions{Head: "mid", Additions: 30_000})
		res, err := w.cycle("workflow_dispatch", dispatchPayload(2), bugbotIn())
		if err != nil {
			t.Fatal(err)
		}
		if p := res.PRs[0].Plan; p.Action != loop.ActionTrigger {
			t.Fatalf("plan %s/%s, want Bugbot asked", p.Action, p.EndReason)
		}
		if n := w.diffReads("2"); n != 0 {
			t.Fatalf("%d reads of a diff GitHub would refuse, want 0", n)
		}
	})
	t.Run("GitHub refuses", func(t *testing.T) {
		t.Parallel()
		long := strings.Repeat("x\n", ghfake.MaxDiffLines)
		w := treeless(t, ghfake.PROptions{Head: "long", Files: map[string]string{"long.txt": long}, Additions: 19_000})
		var log bytes.Buffer
		res, err := w.cycleDeps("workflow_dispatch", dispatchPayload(2), bugbotIn(), func(d *Deps) { d.Log = slog.New(slog.NewTextHandler(&log, nil)) })
		if err != nil {
			t.Fatal(err)
		}
		if p := res.PRs[0].Plan; p.Action != loop.ActionTrigger {
			t.Fatalf("plan %s/%s, want Bugbot asked: the size is unknown", p.Action, p.EndReason)
		}
		if n := w.diffReads("2"); n != 1 {
			t.Fatalf("%d reads of the diff, want 1 (refused)", n)
		}
		if !strings.Contains(log.String(), "GitHub refused the diff as too large") {
			t.Errorf("the refusal is not logged:\n%s", log.String())
		}
	})
}
