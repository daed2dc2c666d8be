package action

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/ghfake"
)

// A finding with no suggestion block, left unfixed because the fixer in
// effect applies suggestion blocks only, makes the status comment say
// what to add (an agent's key, or a fixer command); with an agent fixer
// set up it does not.
func TestNoFixer_TheStatusCommentSaysWhatToAddForAFindingOnlyAFixerCouldFix(t *testing.T) {
	t.Parallel()
	for _, fixer := range []string{"suggestions", "command"} {
		t.Run(fixer, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			in := map[string]string{"engines": "copilot", "test-command": "go test {packages}", "fixer": fixer}
			if fixer == "command" {
				in["fixer-command"] = "true"
			}
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
				t.Fatal(err)
			}
			head := w.fake.HeadSHA("octo", "app", 1)
			w.now = w.now.Add(time.Minute)
			review := w.copilotReview(t, head, "Add ignores integer overflow: the sum of two large values wraps around.")
			if _, err := w.cycle("pull_request_review", review, in); err != nil {
				t.Fatal(err)
			}
			_, body := statusState(t, w.fake)
			said := strings.Contains(body, "for want of a fixer: add an ANTHROPIC")
			if want := fixer == "suggestions"; said != want {
				t.Errorf("fixer %s: the status comment names the secret to add: %v, want %v\n%s", fixer, said, want, body)
			}
		})
	}
}

// In hardened mode the publish job runs no fixer, and its fixer input is
// the default: the status comment it writes names the secret to add only
// when the prepare job had no fixer either (the fixer it names in the
// artifact), and keeps saying so on the wakes after.
func TestNoFixer_ThePublishJobSaysWhatToAddFromThePrepareJobsFixer(t *testing.T) {
	t.Parallel()
	for _, fixer := range []string{"suggestions", "command"} {
		t.Run(fixer, func(t *testing.T) {
			t.Parallel()
			h := newHardenedWorld(t)
			prepare := map[string]string{"test-command": "go test {packages}", "fixer": fixer}
			if fixer == "command" {
				prepare["fixer-command"] = "true"
			}
			publish := map[string]string{"test-command": "go test {packages}"}
			both := func() {
				t.Helper()
				if _, _, err := h.jobWith(config.ModePrepare, prepare); err != nil {
					t.Fatal(err)
				}
				if _, _, err := h.jobWith(config.ModePublish, publish); err != nil {
					t.Fatal(err)
				}
			}
			both()
			head := h.fake.HeadSHA("octo", "app", 1)
			rid, _ := h.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\ngenerated 1 comment.", CommitSHA: head})
			if _, _, err := h.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
				Body: "Add ignores integer overflow: the sum of two large values wraps around."}); err != nil {
				t.Fatal(err)
			}
			h.now = h.now.Add(time.Minute)
			both()
			_, body := statusState(t, h.fake)
			said := strings.Contains(body, "for want of a fixer: add an ANTHROPIC")
			if want := fixer == "suggestions"; said != want {
				t.Errorf("prepare's fixer %s: the publish job's status comment names the secret to add: %v, want %v\n%s", fixer, said, want, body)
			}
		})
	}
}

// TR2: a prose finding an agent could fix is Tier 2 and waits for a
// maintainer's approval; the first status comment that lists it says, in
// one line with the command, what to comment to have the fixer fix it.
func TestRule_TR2_TheFirstStatusCommentSaysWhatToCommentToFixAProseFinding(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot", "test-command": "go test {packages}", "fixer": "command", "fixer-command": "true"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	w.now = w.now.Add(time.Minute)
	review := w.copilotReview(t, head, "Add ignores integer overflow: the sum of two large values wraps around.")
	if _, err := w.cycle("pull_request_review", review, in); err != nil {
		t.Fatal(err)
	}
	st, body := statusState(t, w.fake)
	var id string
	for _, r := range st.Triage {
		if r.Tier == 2 {
			id = r.FindingID
		}
	}
	if id == "" {
		t.Fatalf("the prose finding is not Tier 2: %+v", st.Triage)
	}
	want := "comment `@review-loop approve " + id + "` to let the fixer command fix it."
	line := ""
	for _, l := range strings.Split(body, "\n") {
		if strings.Contains(l, want) {
			line = l
		}
	}
	if line == "" || !strings.HasPrefix(line, "> ") {
		t.Errorf("the status comment has no notice line %q:\n%s", want, body)
	}
}
