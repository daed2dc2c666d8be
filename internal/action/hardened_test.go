package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/prepared"
)

const readOnlyToken = "ghs_readonly_0123456789"

// hardenedWorld is a world whose two jobs each have their own checkout:
// prepare holds only a read-only token, publish the write token.
type hardenedWorld struct {
	*world
	artifact string
	publish  string // the publish job's checkout
}

func newHardenedWorld(t *testing.T) *hardenedWorld {
	t.Helper()
	w := newWorld(t, nil)
	w.fake.AddToken(readOnlyToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true, ReadOnly: true})
	h := &hardenedWorld{world: w, artifact: t.TempDir(), publish: t.TempDir()}
	run(t, "", "git", "clone", "--quiet", "--branch", "feature", w.fake.CloneURL("octo", "app"), h.publish)
	return h
}

// job runs one half: prepare in the first checkout with the read-only
// token, publish in its own checkout with the write token. It returns the
// requests the job made.
func (h *hardenedWorld) job(mode string) (Result, []ghfake.Request, error) {
	h.t.Helper()
	return h.jobWith(mode, nil)
}

// jobWith is job with more inputs.
func (h *hardenedWorld) jobWith(mode string, extra map[string]string) (Result, []ghfake.Request, error) {
	h.t.Helper()
	saved := h.env
	h.env = map[string]string{}
	for k, v := range saved {
		h.env[k] = v
	}
	defer func() { h.env = saved }()
	if mode == config.ModePrepare {
		h.env["INPUT_GITHUB-TOKEN"] = readOnlyToken
	} else {
		h.env["GITHUB_WORKSPACE"] = h.publish
	}
	before := len(h.fake.Requests())
	in := map[string]string{"engines": "copilot", "mode": mode, "artifact-dir": h.artifact}
	for k, v := range extra {
		in[k] = v
	}
	res, err := h.cycle("workflow_dispatch", dispatchPayload(1), in)
	return res, h.fake.Requests()[before:], err
}

func (h *hardenedWorld) copilotSuggestion(t *testing.T) string {
	t.Helper()
	head := h.fake.HeadSHA("octo", "app", 1)
	rid, _ := h.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\ngenerated 1 comment.", CommitSHA: head})
	if _, _, err := h.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
		Body: "Add subtracts.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	h.now = h.now.Add(time.Minute)
	return head
}

// noCheckout takes the checkout away from both jobs: each clones on its
// own when it needs the tree.
func (h *hardenedWorld) noCheckout() {
	h.workspace, h.publish = h.t.TempDir(), h.t.TempDir()
	h.env["GITHUB_WORKSPACE"], h.env["GITHUB_SERVER_URL"] = h.workspace, h.fake.URL()
}

// prepareSuggestionFix runs a first cycle through both jobs, posts
// Copilot's suggestion and prepares its fix; it returns the head the
// prepare job fixed.
func (h *hardenedWorld) prepareSuggestionFix(t *testing.T) string {
	t.Helper()
	for _, mode := range []string{config.ModePrepare, config.ModePublish} {
		if _, _, err := h.job(mode); err != nil {
			t.Fatal(err)
		}
	}
	head := h.copilotSuggestion(t)
	if _, _, err := h.job(config.ModePrepare); err != nil {
		t.Fatal(err)
	}
	return head
}

func noWrites(t *testing.T, reqs []ghfake.Request) {
	t.Helper()
	for _, r := range reqs {
		if r.Operation == "mutation" || (r.Operation == "" && r.Method != "GET" && r.Method != "HEAD") {
			t.Errorf("the prepare job wrote: %s %s %s (status %d)", r.Method, r.Path, r.GraphQL, r.Status)
		}
	}
}

// TestRule_TB1_hardenedModeFixesThroughTwoJobs: the prepare job, with a
// read-only token, fixes a Copilot suggestion and writes nothing to
// GitHub; the publish job, which runs no repository code, pushes the fix
// and resolves the thread.
func TestRule_TB1_hardenedModeFixesThroughTwoJobs(t *testing.T) {
	t.Parallel()
	hardenedFix(t, newHardenedWorld(t))
}

// The same with no checkout step in either job: prepare clones with its
// read-only token only for the fix cycle, publish only to apply the
// prepared patch; the waking cycles clone nothing.
func TestRule_TB1_hardenedModeWithNoCheckoutStepsFixesThroughTwoJobs(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	h.noCheckout()
	hardenedFix(t, h)
	for _, g := range h.fake.GitRequests() {
		if g.Service == "git-receive-pack" && g.Method == "POST" {
			t.Errorf("a push over git as %q: the fix goes through the API (TB13)", g.Login)
		}
	}
	if n := refUpdates(h.fake, "github-actions"); n != 1 {
		t.Errorf("%d branch updates through the API as github-actions, want the publish job's one", n)
	}
}

// refUpdates counts the successful branch updates through the API
// (PATCH git/refs) made as login.
func refUpdates(fake *ghfake.Fake, login string) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.Method == "PATCH" && strings.Contains(r.Path, "/git/refs/") && r.Status == 200 && r.Login == login {
			n++
		}
	}
	return n
}

// hardenedFix runs a loop's first cycle and its fix cycle through both
// jobs and checks that only publish wrote and pushed.
func hardenedFix(t *testing.T, h *hardenedWorld) {
	t.Helper()
	// First cycle: trigger the engine.
	if _, reqs, err := h.job(config.ModePrepare); err != nil {
		t.Fatal(err)
	} else {
		noWrites(t, reqs)
	}
	if _, _, err := h.job(config.ModePublish); err != nil {
		t.Fatal(err)
	}
	head := h.copilotSuggestion(t)
	// The test command proves it runs in the prepare job only.
	marker := filepath.Join(t.TempDir(), "ran")
	h.env["INPUT_TEST-COMMAND"] = "touch " + marker
	res, reqs, err := h.job(config.ModePrepare)
	if err != nil {
		t.Fatal(err)
	}
	noWrites(t, reqs)
	if h.fake.HeadSHA("octo", "app", 1) != head || res.PRs[0].Pushed != "" {
		t.Fatal("the prepare job pushed")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the prepare job did not run the test command: %v", err)
	}
	if _, _, err := prepared.Read(filepath.Join(h.artifact, "pr-1")); err != nil {
		t.Fatalf("the prepare job left no valid artifact: %v", err)
	}
	_ = os.Remove(marker)
	res, _, err = h.job(config.ModePublish)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the publish job ran the test command")
	}
	if res.PRs[0].Pushed == "" || h.fake.HeadSHA("octo", "app", 1) == head {
		t.Fatalf("the publish job pushed nothing: %+v\n%s", res.PRs[0], h.out.String())
	}
	bare := strings.TrimPrefix(h.fake.CloneURL("octo", "app"), "file://")
	got := run(t, "", "git", "--git-dir", bare, "show", res.PRs[0].Pushed+":calc/calc.go")
	if !strings.Contains(got, "return a + b") {
		t.Fatalf("pushed content:\n%s", got)
	}
	resolved := 0
	for _, th := range h.fake.PR("octo", "app", 1).Threads {
		if th.Resolved {
			resolved++
		}
	}
	if resolved != 1 {
		t.Errorf("%d threads resolved, want 1", resolved)
	}
}

// TestRule_TB1_publishRefusesATamperedPatch: a patch that reaches beyond
// the claimed file is refused by the publish job, which pushes nothing.
func TestRule_TB1_publishRefusesATamperedPatch(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	head := h.prepareSuggestionFix(t)
	p := filepath.Join(h.artifact, "pr-1", prepared.PatchFile)
	b, _ := os.ReadFile(p)
	evil := string(b) + "diff --git a/.github/workflows/x.yml b/.github/workflows/x.yml\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/.github/workflows/x.yml\n@@ -0,0 +1 @@\n+on: push\n"
	if err := os.WriteFile(p, []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := h.job(config.ModePublish)
	if err == nil || !strings.Contains(err.Error(), "refusing the prepared artifact") {
		t.Fatalf("err = %v, want the artifact refused", err)
	}
	if h.fake.HeadSHA("octo", "app", 1) != head {
		t.Fatal("the publish job pushed a tampered patch")
	}
}

// TestRule_TB1_publishStopsWhenThePRMovedAfterPrepare: a push between the
// two jobs makes the prepared cycle stale; publish acts on nothing.
func TestRule_TB1_publishStopsWhenThePRMovedAfterPrepare(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	h.prepareSuggestionFix(t)
	moved, err := h.fake.PushCommit("octo", "app", "feature", map[string]string{"README.md": "moved\n"}, "someone pushed")
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := h.job(config.ModePublish)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.PRs[0].Skipped, "no longer matches") || h.fake.HeadSHA("octo", "app", 1) != moved {
		t.Fatalf("skipped %q, head %s (want %s)", res.PRs[0].Skipped, h.fake.HeadSHA("octo", "app", 1), moved)
	}
}

// TestRule_TB10_publishRefusesAPlanItDoesNotReachItself: the prepare job
// writes the plan's effects down; the publish job plans its own from what
// it reads from GitHub and acts on nothing when they differ (an artifact
// asking for an effect the publish job would not plan).
func TestRule_TB10_publishRefusesAPlanItDoesNotReachItself(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	head := h.prepareSuggestionFix(t)
	p := filepath.Join(h.artifact, "pr-1", prepared.DecisionsFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(d["effects"]); got != "[claim fix]" {
		t.Fatalf("the prepare job wrote the effects %s, want its plan's [claim fix]", got)
	}
	d["effects"] = []string{"claim", "fix", "file-issues"}
	if b, err = json.Marshal(d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, reqs, err := h.job(config.ModePublish)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.PRs[0].Skipped, "no longer matches") || !strings.Contains(res.PRs[0].Skipped, "file-issues") {
		t.Fatalf("skipped %q, want the prepared plan refused", res.PRs[0].Skipped)
	}
	if h.fake.HeadSHA("octo", "app", 1) != head {
		t.Fatal("the publish job pushed a plan it did not reach itself")
	}
	noWrites(t, reqs)
}
