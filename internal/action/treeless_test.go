package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
)

// treelessWorld is a world whose workflow has no checkout step: the
// workspace is an empty directory, and the GitHub server (the fake) serves
// the repository over HTTPS-like smart HTTP.
func treelessWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, nil)
	w.workspace = t.TempDir()
	w.env["GITHUB_WORKSPACE"] = w.workspace
	w.env["GITHUB_SERVER_URL"] = w.fake.URL()
	return w
}

// TestTreeless_ATriggerAndAWaitCloneNothing: with no checkout step, the
// first cycle (it triggers Copilot) and a wake while Copilot is still
// reviewing read the PR through the API only: no git traffic, no
// repository made anywhere.
func TestTreeless_ATriggerAndAWaitCloneNothing(t *testing.T) {
	t.Parallel()
	w := treelessWorld(t)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if got := res.PRs[0].Plan.Action; got != loop.ActionTrigger {
		t.Fatalf("plan = %s, want trigger", got)
	}
	w.now = w.now.Add(time.Minute)
	res, err = w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if got := res.PRs[0].Plan.Action; got != loop.ActionWait {
		t.Fatalf("plan = %s, want wait", got)
	}
	for _, p := range res.PRs {
		if p.CheckedOut {
			t.Errorf("PR #%d: a waiting cycle checked out", p.PR)
		}
	}
	if g := w.fake.GitRequests(); len(g) != 0 {
		t.Errorf("a trigger and a wait made %d git requests, want none: %+v", len(g), g)
	}
	if entries, _ := os.ReadDir(w.workspace); len(entries) != 0 {
		t.Errorf("the workspace is no longer empty: %v", entries)
	}
}

// TestTreeless_AFixCycleChecksOutThePRHeadAndPushes: the cycle that fixes
// clones the PR head branch one commit deep with the token, applies the
// suggestion, pushes one commit over HTTP and resolves the thread.
func TestTreeless_AFixCycleChecksOutThePRHeadAndPushes(t *testing.T) {
	t.Parallel()
	w := treelessWorld(t)
	w.env["RUNNER_TEMP"] = t.TempDir()
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(3 * time.Minute)
	head := w.fake.HeadSHA("octo", "app", 1)
	w.fake.ResetGitRequests()
	res, err := w.cycle("pull_request_review", w.copilotReview(t, head, addSuggestion), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	p := res.PRs[0]
	if !p.CheckedOut {
		t.Errorf("the fix cycle did not report its checkout")
	}
	if p.Pushed == "" {
		t.Fatalf("nothing pushed; plan %+v\n%s", p.Plan, w.out.String())
	}
	pr := w.fake.PR("octo", "app", 1)
	if pr.HeadSHA != p.Pushed {
		t.Errorf("PR head %s is not the pushed fix %s", pr.HeadSHA, p.Pushed)
	}
	bare := strings.TrimPrefix(w.fake.CloneURL("octo", "app"), "file://")
	if got := run(t, "", "git", "--git-dir", bare, "show", p.Pushed+":calc/calc.go"); !strings.Contains(got, "return a + b") {
		t.Errorf("the suggestion is not in the pushed commit:\n%s", got)
	}
	if got := run(t, "", "git", "--git-dir", bare, "rev-parse", p.Pushed+"^"); got != head {
		t.Errorf("the fix commit's parent is %s, want the PR head %s", got, head)
	}
	var fetches, pushes int
	for _, g := range w.fake.GitRequests() {
		switch {
		case g.Status == 401 && g.Login == "" && g.Path == "/octo/app.git/info/refs":
			// git asks its credential helper only once challenged (TB7:
			// the token is in no header set ahead, no environment).
		case g.Login != "github-actions":
			t.Errorf("a git request as %q, want the action's token: %+v", g.Login, g)
		case g.Service == "git-upload-pack":
			fetches++
		case g.Service == "git-receive-pack":
			pushes++
		}
	}
	if fetches == 0 || pushes != 0 {
		t.Errorf("git traffic: %d fetch and %d push requests; want the clone over HTTP and no git push (TB13: the fix goes through the API)", fetches, pushes)
	}
	if n := refUpdates(w.fake, "github-actions"); n != 1 {
		t.Errorf("%d branch updates through the API as github-actions, want the fix's one", n)
	}
	if entries, _ := os.ReadDir(w.workspace); len(entries) != 0 {
		t.Errorf("the clone went into the workspace other steps share: %v", entries)
	}
	matches, _ := filepath.Glob(filepath.Join(w.env["RUNNER_TEMP"], "review-loop-checkout-*", ".git"))
	if len(matches) != 1 {
		t.Fatalf("checkouts under RUNNER_TEMP: %v, want one", matches)
	}
	if strings.Contains(w.out.String(), "removed the credential") {
		t.Errorf("review-loop's own clone persisted a credential (removed before the commands ran):\n%s", w.out.String())
	}
	cfg := run(t, filepath.Dir(matches[0]), "git", "config", "--local", "--list")
	if strings.Contains(cfg, actionToken) || strings.Contains(strings.ToLower(cfg), "extraheader") {
		t.Errorf("the clone's config holds a credential:\n%s", cfg)
	}
	if n := run(t, filepath.Dir(matches[0]), "git", "rev-list", "--count", head); n != "1" {
		t.Errorf("the clone holds %s commits of the PR head, want 1 (depth 1)", n)
	}
}

// TestTreeless_TheConfigIsReadFromTheDefaultBranch: with no checkout the
// repository config comes from the default branch through the API; a
// config the PR branch alone carries is not read.
func TestTreeless_TheConfigIsReadFromTheDefaultBranch(t *testing.T) {
	t.Parallel()
	w := treelessWorld(t)
	bad := map[string]string{".github/review-loop.yml": "engines: [this is not a mapping\n"}
	if _, err := w.fake.PushCommit("octo", "app", "feature", bad, "a broken config on the PR branch"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatalf("the PR branch's config was read: %v", err)
	}
	if err := w.fake.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.PushCommit("octo", "app", "main", bad, "a broken config on the default branch"); err != nil {
		t.Fatal(err)
	}
	_, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err == nil || !strings.Contains(err.Error(), ".github/review-loop.yml") || !strings.Contains(err.Error(), "default branch") {
		t.Fatalf("err = %v, want the default branch's broken config named", err)
	}
}

// TestTreeless_AFixFoundDuringTheInJobWaitClonesFirst: with no checkout
// step and wait-seconds (the comment-only example), the review that
// arrives while the run waits is fixed in the same run: the re-decision
// after the wait clones the PR head like a cycle's first decision does.
func TestTreeless_AFixFoundDuringTheInJobWaitClonesFirst(t *testing.T) {
	t.Parallel()
	w := treelessWorld(t)
	in := map[string]string{"engines": "copilot", "wait-seconds": "120", "poll-interval": "30"}
	if _, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), in, func(d *Deps) {
		d.Sleep = func(_ context.Context, dur time.Duration) error { w.now = w.now.Add(dur); return nil }
	}); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	slept := 0
	res, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), in, func(d *Deps) {
		d.Sleep = func(_ context.Context, dur time.Duration) error {
			slept++
			w.now = w.now.Add(dur)
			if slept == 1 {
				w.copilotReview(t, head, addSuggestion)
			}
			return nil
		}
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	p := res.PRs[0]
	if p.Pushed == "" || p.Plan.Action != loop.ActionFix || !p.CheckedOut {
		t.Fatalf("the review found during the wait was not fixed from a clone: plan %s (%s), checked out %v, pushed %q\n%s", p.Plan.Action, p.Plan.Why, p.CheckedOut, p.Pushed, w.out.String())
	}
	if w.fake.HeadSHA("octo", "app", 1) != p.Pushed {
		t.Errorf("the PR head is not the pushed fix")
	}
}
