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
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/prepared"
)

// tamper rewrites the prepare job's artifact for PR 1 (tamperArtifact).
func (h *hardenedWorld) tamper(t *testing.T, edit func(d map[string]any, patch string) string) {
	t.Helper()
	tamperArtifact(t, h.artifact, edit)
}

// tamperArtifact rewrites the prepare job's artifact for PR 1 in
// artifact: edit gets the decisions as a JSON object and the patch, and
// returns the new patch.
func tamperArtifact(t testing.TB, artifact string, edit func(d map[string]any, patch string) string) {
	t.Helper()
	dir := filepath.Join(artifact, "pr-1")
	raw, err := os.ReadFile(filepath.Join(dir, prepared.DecisionsFile))
	if err != nil {
		t.Fatalf("the prepare job left no artifact: %v", err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	patch, err := os.ReadFile(filepath.Join(dir, prepared.PatchFile))
	if err != nil {
		t.Fatal(err)
	}
	newPatch := edit(d, string(patch))
	out, _ := json.MarshalIndent(d, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, prepared.DecisionsFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, prepared.PatchFile), []byte(newPatch), 0o644); err != nil {
		t.Fatal(err)
	}
}

// preparedFix runs the trigger cycle through both jobs, posts the Copilot
// suggestion on calc/calc.go (and the extra comments), and runs the
// prepare job of the fix cycle; it returns the PR head.
func (h *hardenedWorld) preparedFix(t *testing.T, extra ...ghfake.CommentOptions) string {
	t.Helper()
	if _, _, err := h.job(config.ModePrepare); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.job(config.ModePublish); err != nil {
		t.Fatal(err)
	}
	head := h.fake.HeadSHA("octo", "app", 1)
	rid, _ := h.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: fmt.Sprintf("## Pull request overview\n\ngenerated %d comments.", 1+len(extra)), CommitSHA: head})
	all := append([]ghfake.CommentOptions{{Path: "calc/calc.go", Line: 5, Body: "Add subtracts.\n\n```suggestion\n\treturn a + b\n```"}}, extra...)
	for _, o := range all {
		o.Author, o.ReviewID, o.CommitSHA = "Copilot", rid, head
		if _, _, err := h.fake.AddReviewComment("octo", "app", 1, o); err != nil {
			t.Fatal(err)
		}
	}
	h.now = h.now.Add(time.Minute)
	if _, _, err := h.job(config.ModePrepare); err != nil {
		t.Fatal(err)
	}
	return head
}

// newFileDiff is a git patch that creates path with one line.
func newFileDiff(path, line string) string {
	return "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/" + path + "\n@@ -0,0 +1 @@\n+" + line + "\n"
}

// pushedFiles lists the files the PR head changes from base, "" when the
// head did not move.
func (h *hardenedWorld) pushedFiles(t *testing.T, base string) string {
	t.Helper()
	head := h.fake.HeadSHA("octo", "app", 1)
	if head == base {
		return ""
	}
	bare := strings.TrimPrefix(h.fake.CloneURL("octo", "app"), "file://")
	return strings.TrimSpace(run(t, "", "git", "--git-dir", bare, "diff-tree", "--no-commit-id", "--name-only", "-r", base, head))
}

// TB10: the publish job accepts hunks only in files the findings it read
// from GitHub name: a prepare job that claims a tool, action or config
// file no finding is on gets its patch refused and nothing is pushed.
func TestRule_TB10_PublishRefusesAClaimOnAFileNoFindingNames(t *testing.T) {
	t.Parallel()
	for _, path := range []string{".github/actions/x/action.yml", ".gitattributes", ".gitmodules", ".husky/pre-commit", ".github/review-loop.yml", "docs/notes.md"} {
		for _, checkout := range []bool{true, false} {
			name := path
			if !checkout {
				name += " with no checkout step"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				h := newHardenedWorld(t)
				if !checkout {
					h.noCheckout()
				}
				claimNoFindingNames(t, h, path)
			})
		}
	}
}

func claimNoFindingNames(t *testing.T, h *hardenedWorld, path string) {
	t.Helper()
	head := h.preparedFix(t)
	h.tamper(t, func(d map[string]any, patch string) string {
		f := d["fix"].(map[string]any)
		f["changed"] = append(f["changed"].([]any), path)
		return patch + newFileDiff(path, "planted by prepare")
	})
	_, _, err := h.job(config.ModePublish)
	if got := h.pushedFiles(t, head); strings.Contains(got, path) {
		t.Fatalf("the publish job pushed %s on the prepare job's word (err %v); the commit holds:\n%s", path, err, got)
	}
	if err == nil || !strings.Contains(err.Error(), "TB10") {
		t.Errorf("err = %v, want a TB10 refusal", err)
	}
}

// TB10: a finding is fixed only where the patch touches its file: the
// prepare job marks a README.md finding fixed with a patch that only
// changes calc/calc.go; its thread stays open and it is not counted fixed.
func TestRule_TB10_PublishMarksFixedOnlyWhereThePatchTouchesTheFile(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	head := h.preparedFix(t, ghfake.CommentOptions{Path: "README.md", Line: 1, Body: "Title case.\n\n```suggestion\n# Fake Repository\n```"})
	h.tamper(t, func(d map[string]any, patch string) string {
		f := d["fix"].(map[string]any)
		f["changed"] = []any{"calc/calc.go"}
		i := strings.Index(patch, "diff --git a/README.md")
		j := strings.Index(patch, "diff --git a/calc/calc.go")
		if i < 0 || j < 0 {
			t.Fatalf("the prepared patch does not hold both files:\n%s", patch)
		}
		if i < j {
			return patch[j:]
		}
		return patch[:i]
	})
	res, _, err := h.job(config.ModePublish)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.pushedFiles(t, head); got != "calc/calc.go" {
		t.Fatalf("pushed %q, want calc/calc.go", got)
	}
	for _, th := range h.fake.PR("octo", "app", 1).Threads {
		if th.Path == "README.md" && th.Resolved {
			t.Errorf("the README.md thread was resolved although the patch does not touch README.md")
		}
	}
	st, _ := statusState(t, h.fake)
	for _, r := range st.Triage {
		if strings.Contains(r.FindingID, "copilot") && r.Outcome == "fixed" && r.CommentID != 0 {
			for _, th := range h.fake.PR("octo", "app", 1).Threads {
				if th.Path == "README.md" && th.Comments[0].ID == r.CommentID {
					t.Errorf("the README.md finding %s is recorded fixed (plan %s)", r.FindingID, res.PRs[0].Plan.Action)
				}
			}
		}
	}
}

// TB10: the prepare job's reply texts are untrusted: markdown, HTML, a
// mention and a forged state marker are escaped, and a huge reply is cut.
func TestRule_TB10_PrepareReplyTextIsEscapedAndLengthLimited(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	h.preparedFix(t, ghfake.CommentOptions{Path: "README.md", Line: 1, Body: "Title case.\n\n```suggestion\n# Fake Repository\n```"})
	evil := "<img src=x onerror=alert(1)> [click](https://evil.example) @maintainer approve\n<!-- review-loop:state v1 -->\n" + strings.Repeat("A", 100_000)
	h.tamper(t, func(d map[string]any, patch string) string {
		f := d["fix"].(map[string]any)
		f["changed"], f["commit"] = []any{}, false
		for _, r := range f["results"].([]any) {
			r := r.(map[string]any)
			r["Outcome"], r["Reply"], r["Files"] = "disagreed", evil, nil
		}
		return ""
	})
	if _, _, err := h.job(config.ModePublish); err != nil {
		t.Fatal(err)
	}
	replies := 0
	for _, th := range h.fake.PR("octo", "app", 1).Threads {
		for _, c := range th.Comments[1:] {
			replies++
			for _, bad := range []string{"<img", "[click](", "@maintainer", "<!--"} {
				// review-loop's own trailing won't-fix marker (WF1) aside
				if strings.Contains(loop.ReplyText(c.Body), bad) {
					t.Errorf("the reply posted as the bot holds %q verbatim:\n%.300s", bad, c.Body)
				}
			}
			if n := len([]rune(c.Body)); n > 2000 {
				t.Errorf("the reply posted is %d characters long", n)
			}
		}
	}
	if replies == 0 {
		t.Fatal("no reply was posted")
	}
}

// TB9 in hardened mode: the prepare job's test command plants a workflow
// and edits README.md; the publish job pushes calc/calc.go only, and the
// status comment says what was left out.
func TestRule_TB9_HardenedPushCarriesOnlyTheClaimedFile(t *testing.T) {
	t.Parallel()
	hardenedPlant(t, newHardenedWorld(t))
}

// The same with no checkout step in either job.
func TestRule_TB9_HardenedWithNoCheckoutStepPushCarriesOnlyTheClaimedFile(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	h.noCheckout()
	hardenedPlant(t, h)
}

func hardenedPlant(t *testing.T, h *hardenedWorld) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "plant.sh")
	body := "#!/bin/sh\nmkdir -p .github/workflows\necho 'on: push' > .github/workflows/evil.yml\necho planted >> README.md\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	h.env["INPUT_TEST-COMMAND"] = script
	head := h.preparedFix(t)
	if _, _, err := h.job(config.ModePublish); err != nil {
		t.Fatal(err)
	}
	if got := h.pushedFiles(t, head); got != "calc/calc.go" {
		t.Fatalf("the publish job pushed %q, want calc/calc.go only (TB9)\n%s", got, h.out.String())
	}
	_, status := statusState(t, h.fake)
	for _, want := range []string{".github/workflows/evil.yml", "README.md", "TB9"} {
		if !strings.Contains(status, want) {
			t.Errorf("the status comment does not say %s was left out:\n%s", want, status)
		}
	}
}

// Publish caps in hardened mode: the publish job refuses a prepared patch
// over max-patch-files with a hand-back and pushes nothing.
func TestRule_TB10_PublishRefusesAPatchOverMaxPatchFiles(t *testing.T) {
	t.Parallel()
	h := newHardenedWorld(t)
	head := h.preparedFix(t, ghfake.CommentOptions{Path: "README.md", Line: 1, Body: "Title case.\n\n```suggestion\n# Fake Repository\n```"})
	h.env["INPUT_MAX-PATCH-FILES"] = "1"
	res, _, err := h.job(config.ModePublish)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.pushedFiles(t, head); got != "" {
		t.Fatalf("the publish job pushed a patch over max-patch-files:\n%s", got)
	}
	if res.PRs[0].Plan.Action != "hand-back" || !strings.Contains(res.PRs[0].Plan.Why, "max-patch-files 1") {
		t.Errorf("plan %s %q, want a hand-back naming max-patch-files", res.PRs[0].Plan.Action, res.PRs[0].Plan.Why)
	}
}

// The branch pushed to is the PR's head ref as the publish job reads it
// from GitHub, and its parent the head SHA the prepare job saw: a prepare
// job that names another branch is refused, one that names another head
// makes the cycle stale (re-planned by the next run).
func TestRule_TB10_PublishPushesOnlyToTheHeadRefItReadsAtTheHeadPrepareSaw(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string]func(d map[string]any){
		"a branch named by prepare": func(d map[string]any) { d["head_ref"] = "main" },
		"another head SHA":          func(d map[string]any) { d["head_sha"] = strings.Repeat("a", 40) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHardenedWorld(t)
			head := h.preparedFix(t)
			h.tamper(t, func(d map[string]any, patch string) string { edit(d); return patch })
			res, _, err := h.job(config.ModePublish)
			if got := h.pushedFiles(t, head); got != "" {
				t.Fatalf("pushed %s", got)
			}
			bare := strings.TrimPrefix(h.fake.CloneURL("octo", "app"), "file://")
			if main := strings.TrimSpace(run(t, "", "git", "--git-dir", bare, "rev-parse", "main")); main != h.fake.BranchSHA("octo", "app", "main") {
				t.Fatalf("main moved")
			}
			if err == nil && !strings.Contains(res.PRs[0].Skipped, "no longer matches") {
				t.Errorf("err %v, skipped %q: want the artifact refused or the cycle stale", err, res.PRs[0].Skipped)
			}
		})
	}
}
