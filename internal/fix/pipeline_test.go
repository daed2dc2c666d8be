package fix

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/git/gittest"
	"github.com/review-loop/review-loop/internal/loop"
)

const goFile = "package app\n\nfunc A() int {\n\tx := 20\n\treturn x\n}\n\nfunc B() int {\n\ty := 30\n\treturn y\n}\n"

// testScript fails when a file it is given contains the marker BROKEN.
const testScript = "#!/bin/sh\nfor f in \"$@\"; do if grep -q BROKEN \"$f\"; then echo \"marker in $f\"; exit 1; fi; done\n"

func setup(t *testing.T) (*gittest.Repo, Config) {
	t.Helper()
	tr := gittest.New(t, map[string]string{
		"internal/app/a.go": goFile,
		"internal/app/b.go": goFile,
		"docs/c.md":         "line one\r\nline two\r\nline three",
		"scripts/test.sh":   testScript,
	})
	cfg := Config{Dir: tr.Dir, Git: &git.Runner{Dir: tr.Dir}, Env: os.Environ(), TestCommand: []string{"sh", "scripts/test.sh", "{files}"}, AgentBase: "main"}
	return tr, cfg
}

func sugg(id, engine, path string, start, line int, head string, lines ...string) loop.Finding {
	return loop.Finding{ID: id, Engine: engine, CommentID: int64(len(id)), Path: path, StartLine: start, Line: line, OriginalLine: line, OriginalCommit: head,
		Title: "Suggestion " + id, Body: "Fix it.\n```suggestion\n" + strings.Join(lines, "\n") + "\n```"}
}

func TestRule_B6_E4_ThreeSuggestionsFromTwoEnginesMakeOneCommit(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	head := tr.Head(t)
	findings := []loop.Finding{
		sugg("copilot-1", "copilot", "internal/app/a.go", 0, 4, head, "\tx := base"),
		sugg("gemini-2", "gemini", "internal/app/a.go", 8, 10, head, "func B() int {", "\treturn 30"),
		sugg("copilot-3", "copilot", "docs/c.md", 0, 3, head, "line 3"),
	}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: findings})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Fixed(); len(got) != 3 {
		t.Fatalf("fixed %v; log %v", got, res.Log)
	}
	if want := "package app\n\nfunc A() int {\n\tx := base\n\treturn x\n}\n\nfunc B() int {\n\treturn 30\n}\n"; tr.Read(t, "internal/app/a.go") != want {
		t.Fatalf("a.go:\n%s", tr.Read(t, "internal/app/a.go"))
	}
	if got := tr.Read(t, "docs/c.md"); got != "line one\r\nline two\r\nline 3" {
		t.Fatalf("CRLF and the missing final newline must be kept: %q", got)
	}
	if !res.Commit || strings.Join(res.Changed, ",") != "docs/c.md,internal/app/a.go" {
		t.Fatalf("changed %v commit %v", res.Changed, res.Commit)
	}
	var closed []git.Closed
	for _, f := range findings {
		closed = append(closed, git.Closed{ID: f.ID, Engine: f.Engine, CommentID: f.CommentID})
	}
	repo := &git.Repo{Git: cfg.Git, Guard: git.Guard{HeadBranch: "feature", DefaultBranch: "main", ObservedHeadSHA: head}}
	if _, err := repo.Commit(context.Background(), git.CommitRequest{Files: res.Changed, Message: git.Message(2, 9, res.Changed, closed)}); err != nil {
		t.Fatal(err)
	}
	if n := tr.Git(t, "rev-list", "--count", head+"..HEAD"); n != "1" {
		t.Fatalf("%s commits", n)
	}
	msg := tr.Git(t, "log", "-1", "--format=%B")
	for _, want := range []string{"fix(review): address review 2 (PR #9)", "copilot-1 (copilot, comment 9)", "gemini-2 (gemini, comment 8)", "copilot-3 (copilot, comment 9)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if tr.Status(t) != "" {
		t.Fatalf("tree not clean: %s", tr.Status(t))
	}
}

func TestRule_E1_AFailingTargetedTestRevertsOnlyItsFinding(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	head := tr.Head(t)
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{
		sugg("good", "copilot", "internal/app/a.go", 0, 4, head, "\tx := 21"),
		sugg("bad", "copilot", "internal/app/a.go", 0, 9, head, "\ty := BROKEN"),
		sugg("other", "gemini", "internal/app/b.go", 0, 4, head, "\tx := 22"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Outcome{"good": OutcomeFixed, "bad": OutcomeReverted, "other": OutcomeFixed}
	for _, r := range res.Results {
		if r.Outcome != want[r.ID] {
			t.Errorf("%s: %s (%s), want %s", r.ID, r.Outcome, r.Reason, want[r.ID])
		}
	}
	a := tr.Read(t, "internal/app/a.go")
	if !strings.Contains(a, "x := 21") || strings.Contains(a, "BROKEN") {
		t.Fatalf("a.go keeps the good fix only:\n%s", a)
	}
}

func TestRule_ST3_ASuggestionOnChangedLinesIsOutdatedAndNotApplied(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	old := tr.Head(t)
	// Two lines are inserted above, then the commented line changes: GitHub
	// would still send line 4 for a stale anchor.
	tr.Write(t, map[string]string{"internal/app/a.go": strings.Replace(goFile, "\tx := 20", "\tx := 25", 1)})
	tr.CommitAll(t, "change the line")
	for _, tc := range []struct {
		name string
		f    loop.Finding
	}{
		{"lines changed since the original commit", sugg("moved", "copilot", "internal/app/a.go", 0, 4, old, "\tx := base")},
		{"an outdated thread without an original commit", func() loop.Finding {
			f := sugg("gone", "copilot", "internal/app/a.go", 0, 0, "", "\tx := base")
			f.Outdated, f.OriginalLine = true, 4
			return f
		}()},
	} {
		res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{tc.f}})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Results[0]
		if r.Outcome != OutcomeOutdated || !strings.HasPrefix(r.Reply, "Outdated:") || res.Commit {
			t.Fatalf("%s: %+v", tc.name, r)
		}
		if tr.Status(t) != "" {
			t.Fatalf("%s: the file was edited", tc.name)
		}
	}
}

func TestRule_TR6_ASuggestionOnLinesAnotherFixChangedIsOutdated(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	head := tr.Head(t)
	first := sugg("first", "copilot", "internal/app/a.go", 3, 4, head, "\tx := 21\n\ty := 1")
	second := sugg("second", "copilot", "internal/app/a.go", 0, 4, head, "\tx := 99")
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{first, second}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results[0].Outcome != OutcomeFixed {
		t.Fatalf("first: %+v", res.Results[0])
	}
	if r := res.Results[1]; r.Outcome != OutcomeOutdated || !strings.HasPrefix(r.Reply, "Outdated:") {
		t.Fatalf("second: %+v", r)
	}
	if a := tr.Read(t, "internal/app/a.go"); strings.Contains(a, "x := 99") {
		t.Fatalf("the outdated suggestion was applied:\n%s", a)
	}
}

func TestRule_B5_AForkPRNeverRunsACycle(t *testing.T) {
	t.Parallel()
	p := NewPipeline(Config{Dir: t.TempDir(), Git: &git.Runner{Git: "/nonexistent/git"}})
	if _, err := p.RunCycle(context.Background(), CycleInput{Fork: true, Findings: []loop.Finding{{ID: "x"}}}); !errors.Is(err, ErrFork) {
		t.Fatalf("got %v", err)
	}
}

func TestRule_IN6_ASetupFailureAbortsTheCycle(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	cfg.SetupCommand = []string{"sh", "-c", "exit 3"}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{sugg("a", "copilot", "internal/app/a.go", 0, 4, tr.Head(t), "\tx := 1")}})
	if err == nil || !strings.Contains(err.Error(), "setup-command failed") || res.Commit {
		t.Fatalf("err %v res %+v", err, res)
	}
	if tr.Status(t) != "" {
		t.Fatal("tree not clean")
	}
}

func TestRule_E8_ALintFailureRevertsTheCycle(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	cfg.LintCommand = []string{"sh", "-c", "echo lint says no; exit 1"}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{sugg("a", "copilot", "internal/app/a.go", 0, 4, tr.Head(t), "\tx := 1")}})
	if err == nil || !strings.Contains(err.Error(), "lint-command") || res.Commit || res.Results[0].Outcome != OutcomeReverted {
		t.Fatalf("err %v res %+v", err, res)
	}
	if tr.Status(t) != "" {
		t.Fatal("tree not clean")
	}
}

func TestRule_E3_NothingAppliedMeansNothingToCommit(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Findings: []loop.Finding{sugg("bad", "copilot", "internal/app/a.go", 0, 4, tr.Head(t), "BROKEN")}})
	if err != nil || res.Commit || len(res.Changed) != 0 {
		t.Fatalf("err %v res %+v", err, res)
	}
}

// fixerScript writes a fixer that copies the findings file out, then runs body.
func fixerScript(t *testing.T, tr *gittest.Repo, body string) (argv []string, copied string) {
	t.Helper()
	dir := t.TempDir()
	copied = filepath.Join(dir, "copied.json")
	script := filepath.Join(dir, "fixer.sh")
	content := "#!/bin/sh\ncp \"$REVIEW_LOOP_FINDINGS\" '" + copied + "'\n" + body + "\n"
	if err := os.WriteFile(script, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"sh", script}, copied
}

func commandFinding(body string) loop.Finding {
	return loop.Finding{ID: "copilot-1", Engine: "copilot", CommentID: 1, Path: "internal/app/a.go", Line: 4, Title: "Name the constant", Body: body}
}

func TestRule_E1_AFailingFixerLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, want string
	}{
		{"a fixer that prints bad JSON is refused", "echo edited >> internal/app/a.go\necho 'not json'", "not a JSON object"},
		{"a fixer that prints no reply is refused", "echo edited >> internal/app/a.go", "no JSON reply"},
		{"a fixer that exits 1 is refused", "echo edited >> internal/app/a.go\necho '{\"fixed\":[\"copilot-1\"],\"error\":null}'\nexit 1", "exit status 1"},
		{"a fixer that times out is stopped", "echo edited >> internal/app/a.go\nsleep 30", "timed out"},
		{"a fixer that edits an unrelated file is refused", "echo edited >> internal/app/b.go\necho x > new.txt\necho '{\"fixed\":[\"copilot-1\"],\"error\":null}'", "outside the findings"},
		{"a fixer that reports an error is refused", "echo '{\"fixed\":[],\"error\":\"no model\"}'", "no model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, cfg := setup(t)
			head := tr.Head(t)
			cfg.FixerCommand, _ = fixerScript(t, tr, tc.body)
			cfg.FixerTimeout = 500 * time.Millisecond
			res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: []loop.Finding{commandFinding("x")}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if res.Commit || tr.Status(t) != "" || tr.Head(t) != head {
				t.Fatalf("left behind: commit %v status %q", res.Commit, tr.Status(t))
			}
		})
	}
}

func TestRule_E1_AFixerReplyIsFoldedPerFinding(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	cfg.FixerCommand, _ = fixerScript(t, tr, `sed -i 's/x := 20/x := base/' internal/app/a.go
echo 'working...'
echo '{"fixed":["copilot-1"],"outdated":[{"id":"gemini-2","reply":"Already changed in b.go."}],"disagreed":[{"id":"gemini-3","reply":"The value is intended."}],"error":null}'`)
	fs := []loop.Finding{commandFinding("x"), {ID: "gemini-2", Engine: "gemini", Path: "internal/app/b.go"}, {ID: "gemini-3", Engine: "gemini", Path: "internal/app/b.go"}}
	res, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: fs})
	if err != nil {
		t.Fatal(err)
	}
	want := []Outcome{OutcomeFixed, OutcomeOutdated, OutcomeDisagreed}
	for i, r := range res.Results {
		if r.Outcome != want[i] {
			t.Errorf("%s: %s (%s)", r.ID, r.Outcome, r.Reason)
		}
	}
	if res.Results[2].Reply != "The value is intended." || !res.Commit {
		t.Fatalf("%+v", res)
	}
}

func TestReviewTextReachesTheFixerIntactAndIsNeverExecuted(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	canary := filepath.Join(t.TempDir(), "canary")
	body := "Try `rm -rf /`; $(touch " + canary + ") && echo `touch " + canary + "` | sh; \"quoted\" 'single' \\ $HOME"
	cfg.FixerCommand, _ = fixerScript(t, tr, "")
	argv, copied := fixerScript(t, tr, `echo '{"fixed":[],"error":null}'`)
	cfg.FixerCommand = argv
	cfg.Env = append(os.Environ(), "GITHUB_TOKEN=ghs_x", "GH_TOKEN=ghs_y", "INPUT_GITHUB-TOKEN=ghs_z")
	f := commandFinding(body)
	f.Title = "$(touch " + canary + ")"
	if _, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: []loop.Finding{f}, Directions: map[string]string{"copilot-1": "use `base`; $(id)"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(copied)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"body": "Try `) {
		t.Fatalf("findings file: %s", data)
	}
	var got FixerInput
	if err := jsonUnmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Findings[0].Body != body || got.Findings[0].Title != f.Title || got.Directions["copilot-1"] != "use `base`; $(id)" {
		t.Fatalf("review text changed on the way: %+v", got.Findings[0])
	}
	if _, err := os.Stat(canary); !os.IsNotExist(err) {
		t.Fatal("review text was executed: the canary exists")
	}
}

func TestTokensAreStrippedFromChildren(t *testing.T) {
	t.Parallel()
	env := StripTokens([]string{"PATH=/bin", "GITHUB_TOKEN=a", "GH_TOKEN=b", "INPUT_GITHUB-TOKEN=c", "ACTIONS_RUNTIME_TOKEN=d", "HOME=/h", "GITHUB_REPOSITORY=o/r"})
	if strings.Join(env, " ") != "PATH=/bin HOME=/h GITHUB_REPOSITORY=o/r" {
		t.Fatalf("%v", env)
	}
}

func TestRule_IN4_AMissingContextDirectoryListsTheNearest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{"openspec/changes/add-x/spec.md", "openspec/changes/add-y/spec.md", "docs/a.md"} {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte("x"), 0o644)
	}
	got, err := ResolveContextFiles(dir, []string{"openspec/changes/add-x", "docs/*.md"})
	if err != nil || strings.Join(got, ",") != "docs/a.md,openspec/changes/add-x/spec.md" {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = ResolveContextFiles(dir, []string{"openspec/changes/add-z/**"})
	if err == nil || !strings.Contains(err.Error(), `"openspec/changes/add-z" does not exist; nearest: openspec/changes/add-x, openspec/changes/add-y`) {
		t.Fatalf("err = %v", err)
	}
}

func TestSplitCommandAndPlaceholders(t *testing.T) {
	t.Parallel()
	argv, err := SplitCommand(`go test -run 'Test A' "x y" {packages} $(id) a\ b`)
	if err != nil {
		t.Fatal(err)
	}
	got := ExpandPlaceholders(argv, []string{"internal/fix/a.go", "internal/fix/b.go", "main.go"})
	want := []string{"go", "test", "-run", "Test A", "x y", "./internal/fix", ".", "$(id)", "a b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
	if _, err := SplitCommand(`echo "open`); err == nil {
		t.Fatal("an unclosed quote must be an error")
	}
}

// TB1: the fixer and the test command get no token and no API key, whatever
// the base environment holds (the fixer used to keep the Anthropic key).
func TestRule_TB1_FixerAndTestCommandGetNoTokenOrKey(t *testing.T) {
	t.Parallel()
	tr, cfg := setup(t)
	dump := filepath.Join(t.TempDir(), "env")
	argv, _ := fixerScript(t, tr, "env >> '"+dump+"'\necho '{\"fixed\":[],\"error\":null}'")
	cfg.FixerCommand = argv
	cfg.TestCommand = []string{"sh", "-c", "env >> '" + dump + "'"}
	secrets := []string{"INPUT_ANTHROPIC-API-KEY=sk-ant-tb1", "ANTHROPIC_API_KEY=sk-ant-tb1b", "INPUT_PUSH-TOKEN=ghp_tb1push",
		"INPUT_TRIGGER-TOKEN=ghp_tb1trigger", "INPUT_GITHUB-TOKEN=ghs_tb1", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc_tb1"}
	cfg.Env = append(os.Environ(), secrets...)
	if _, err := NewPipeline(cfg).RunCycle(context.Background(), CycleInput{Provider: ProviderCommand, Findings: []loop.Finding{commandFinding("x")}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dump)
	if err != nil || !strings.Contains(string(b), "PATH=") {
		t.Fatalf("the fixer wrote no environment: %v %s", err, b)
	}
	for _, s := range secrets {
		_, v, _ := strings.Cut(s, "=")
		if strings.Contains(string(b), v) {
			t.Errorf("a child saw %s", s)
		}
	}
}
