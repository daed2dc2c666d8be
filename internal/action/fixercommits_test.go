package action

import (
	"strings"
	"testing"
	"time"
)

// TestRule_CV5_AnEngineFixersCommitIsReadOnItsOwnOnlyAmongSeveral: when
// several commits come in at once, each commit of an engine fixer (here
// Bugbot Autofix, by its noreply address) is read on its own, one request
// each, and nobody else's; a single new commit costs no such request (the
// compare's files are its own).
func TestRule_CV5_AnEngineFixersCommitIsReadOnItsOwnOnlyAmongSeveral(t *testing.T) {
	t.Parallel()
	const autofix = "Cursor Agent <206951365+cursor[bot]@users.noreply.github.com>"
	commitReads := func(w *world) []string {
		var out []string
		for _, r := range w.fake.Requests() {
			if r.Method == "GET" && strings.HasPrefix(r.Path, "/repos/octo/app/commits/") && !strings.HasSuffix(r.Path, "/check-runs") {
				out = append(out, strings.TrimPrefix(r.Path, "/repos/octo/app/commits/"))
			}
		}
		return out
	}
	in := map[string]string{"engines": "copilot"}
	for _, c := range []struct {
		name    string
		authors []string
		want    int
	}{
		{"autofix and two people", []string{"", autofix, ""}, 1},
		{"autofix alone", []string{autofix}, 0},
		{"people only", []string{"", ""}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
				t.Fatal(err)
			}
			var fixer string
			for i, a := range c.authors {
				files := map[string]string{"notes/" + string(rune('a'+i)) + ".txt": "x\n"}
				var err error
				if a == "" {
					_, err = w.fake.PushCommit("octo", "app", "feature", files, "a person's commit")
				} else {
					fixer, err = w.fake.PushCommitAs("octo", "app", "feature", files, "Apply Bugbot Autofix suggestion", a)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			w.now = w.now.Add(time.Minute)
			w.fake.ResetRequests()
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
				t.Fatal(err)
			}
			got := commitReads(w)
			if len(got) != c.want || (c.want == 1 && got[0] != fixer) {
				t.Fatalf("commit reads %v, want %d (Autofix's %s only)", got, c.want, fixer)
			}
		})
	}
}
