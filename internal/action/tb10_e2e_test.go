package action_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/prepared"
)

// TB10 with the built binary, as the hardened workflow runs it: the
// prepare job's artifact is tampered to claim a file no finding names,
// and the publish job, in its own checkout, pushes nothing.
func TestRule_TB10_TheBuiltPublishJobRefusesAClaimNoFindingNames(t *testing.T) {
	t.Parallel()
	for _, path := range []string{".github/actions/x/action.yml", ".gitattributes", ".gitmodules", ".husky/pre-commit", ".github/review-loop.yml"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			e := newE2E(t)
			artifact := t.TempDir()
			job := func(mode string) runResult {
				t.Helper()
				return e.run("workflow_dispatch", dispatch("1"),
					map[string]string{"engines": "copilot", "mode": mode, "artifact-dir": artifact})
			}
			for _, mode := range []string{"prepare", "publish"} {
				if r := job(mode); r.code != 0 {
					t.Fatalf("%s exit %d\n%s", mode, r.code, r.stderr)
				}
			}
			e.copilotSuggestion(t)
			if r := job("prepare"); r.code != 0 {
				t.Fatalf("prepare exit %d\n%s", r.code, r.stderr)
			}
			dir := filepath.Join(artifact, "pr-1")
			raw, err := os.ReadFile(filepath.Join(dir, prepared.DecisionsFile))
			if err != nil {
				t.Fatal(err)
			}
			var d map[string]any
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			f := d["fix"].(map[string]any)
			f["changed"] = append(f["changed"].([]any), path)
			out, _ := json.Marshal(d)
			patch, _ := os.ReadFile(filepath.Join(dir, prepared.PatchFile))
			patch = append(patch, []byte("diff --git a/"+path+" b/"+path+"\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/"+path+"\n@@ -0,0 +1 @@\n+planted by prepare\n")...)
			if err := os.WriteFile(filepath.Join(dir, prepared.DecisionsFile), out, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, prepared.PatchFile), patch, 0o644); err != nil {
				t.Fatal(err)
			}
			// The publish job has its own checkout.
			e.workspace = t.TempDir()
			if out, err := exec.Command("git", "clone", "--quiet", "--branch", "feature", e.fake.CloneURL("octo", "app"), e.workspace).CombinedOutput(); err != nil {
				t.Fatalf("clone: %v %s", err, out)
			}
			r := job("publish")
			head := e.fake.HeadSHA("octo", "app", 1)
			if head != e.head {
				bare := strings.TrimPrefix(e.fake.CloneURL("octo", "app"), "file://")
				files, _ := exec.Command("git", "--git-dir", bare, "diff-tree", "--no-commit-id", "--name-only", "-r", e.head, head).CombinedOutput()
				t.Fatalf("the publish job pushed on the prepare job's word:\n%s", files)
			}
			if !strings.Contains(r.stdout+r.stderr, "TB10") {
				t.Errorf("no TB10 refusal in the job log:\n%s\n%s", r.stdout, r.stderr)
			}
		})
	}
}
