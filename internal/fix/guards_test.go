package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// TestSafePath_ASuggestionOutsideTheCheckoutIsRefused: a suggestion
// anchored in .git/ (which exists, so it would otherwise be edited) or
// leaving the checkout fails without writing anything.
func TestSafePath_ASuggestionOutsideTheCheckoutIsRefused(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	outside := filepath.Join(filepath.Dir(tr.Dir), filepath.Base(tr.Dir)+"-outside.txt")
	if err := os.WriteFile(outside, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(outside) })
	gitConfig := tr.Read(t, ".git/config")
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{
		sugg("in-git", "copilot", ".git/config", 0, 1, "", "[core] hooksPath = /tmp/evil"),
		sugg("escape", "copilot", "../"+filepath.Base(outside), 0, 1, "", "owned"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.Outcome != OutcomeFailed || !strings.Contains(r.Reason, "not a file of the checkout") {
			t.Errorf("%s: %s (%s), want failed: not a file of the checkout", r.ID, r.Outcome, r.Reason)
		}
	}
	if got := tr.Read(t, ".git/config"); got != gitConfig {
		t.Errorf(".git/config was edited:\n%s", got)
	}
	if b, _ := os.ReadFile(outside); string(b) != "one\ntwo\n" {
		t.Errorf("a file outside the checkout was edited: %q", b)
	}
	if res.Commit {
		t.Errorf("commit = true")
	}
}

// TestRunCycle_ADirtyTreeIsRefusedAndLeftAsItWas: changes in the checkout
// before the cycle (someone else's) are neither fixed over nor committed
// nor reverted.
func TestRunCycle_ADirtyTreeIsRefusedAndLeftAsItWas(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	head := tr.Head(t)
	dirty := strings.Replace(goFile, "y := 30", "y := 31", 1)
	tr.Write(t, map[string]string{"internal/app/b.go": dirty})
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{sugg("a", "copilot", "internal/app/a.go", 0, 4, head, "\tx := 1")}})
	if err == nil || !strings.Contains(err.Error(), "working tree has changes before the cycle: internal/app/b.go") {
		t.Fatalf("err = %v, want the dirty-tree refusal naming internal/app/b.go", err)
	}
	if res.Commit || len(res.Results) != 0 {
		t.Errorf("res %+v", res)
	}
	if got := tr.Read(t, "internal/app/b.go"); got != dirty {
		t.Errorf("the pre-existing change was lost:\n%s", got)
	}
	if got := tr.Read(t, "internal/app/a.go"); got != goFile {
		t.Errorf("a.go was edited on a dirty tree:\n%s", got)
	}
}

// TestRule_IN6_SetupRunsOncePerCycle: three findings, three targeted
// tests, one setup-command run, before the first test.
func TestRule_IN6_SetupRunsOncePerCycle(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	head := tr.Head(t)
	logf := filepath.Join(t.TempDir(), "runs.log")
	cfg.SetupCommand = []string{"sh", "-c", "echo setup >> '" + logf + "'"}
	cfg.TestCommand = []string{"sh", "-c", "echo test >> '" + logf + "'"}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{
		sugg("a", "copilot", "internal/app/a.go", 0, 4, head, "\tx := 1"),
		sugg("b", "copilot", "internal/app/b.go", 0, 4, head, "\tx := 2"),
		sugg("c", "copilot", "docs/c.md", 0, 1, head, "line 1"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Fixed(); len(got) != 3 {
		t.Fatalf("fixed %v; log %v", got, res.Log)
	}
	b, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(b)); strings.Join(got, " ") != "setup test test test" {
		t.Errorf("runs = %v, want setup once, before the three tests", got)
	}
}

// TestRule_E1_AFindingKeptEarlierIsRevertedWhenALaterRevertRestoresItsFile:
// the fixer fixes one finding in a.go and breaks another that spans a.go
// and b.go; reverting the second restores a.go, so the first is no longer
// fixed and must not be reported (and its thread resolved) as fixed.
func TestRule_E1_AFindingKeptEarlierIsRevertedWhenALaterRevertRestoresItsFile(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	cfg.FixerCommand, _ = fixerScript(t, tr, `sed -i 's/x := 20/x := base/' internal/app/a.go
sed -i 's/y := 30/y := BROKEN/' internal/app/b.go
echo '{"fixed":["first","second"],"error":null}'`)
	fs := []loop.Finding{
		{ID: "first", Engine: "copilot", CommentID: 1, Path: "internal/app/a.go", Line: 4, Title: "Name the constant"},
		{ID: "second", Engine: "bugbot", CommentID: 2, Path: "internal/app/b.go", Line: 9, Locations: []string{"internal/app/a.go#L4-L4"}, Title: "Cross-file"},
	}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: fs})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.Outcome != OutcomeReverted {
			t.Errorf("%s: %s (%s), want reverted", r.ID, r.Outcome, r.Reason)
		}
	}
	if got := res.Fixed(); len(got) != 0 || res.Commit {
		t.Errorf("fixed %v commit %v, want nothing", got, res.Commit)
	}
	if tr.Status(t) != "" {
		t.Errorf("tree not clean: %s", tr.Status(t))
	}
}

// TestRule_TR6_ADisagreeWithoutAReplyIsRefused: DISAGREE needs a grounded
// reply; an empty one reverts the cycle.
func TestRule_TR6_ADisagreeWithoutAReplyIsRefused(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{`""`, `"   "`} {
		t.Run(reply, func(t *testing.T) {
			t.Parallel()
			tr, cfg := setup(t)
			cfg.FixerCommand, _ = fixerScript(t, tr, `sed -i 's/x := 20/x := base/' internal/app/a.go
echo '{"fixed":["copilot-1"],"disagreed":[{"id":"gemini-2","reply":`+reply+`}],"error":null}'`)
			fs := []loop.Finding{commandFinding("x"), {ID: "gemini-2", Engine: "gemini", Path: "internal/app/b.go"}}
			res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: fs})
			if err == nil || !strings.Contains(err.Error(), `disagreed with "gemini-2" without a reply`) {
				t.Fatalf("err = %v, want the empty-reply refusal", err)
			}
			if res.Commit || tr.Status(t) != "" {
				t.Errorf("left behind: commit %v status %q", res.Commit, tr.Status(t))
			}
		})
	}
}
