package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const configFile = ".github/review-loop.yml"

// TestRule_C2_UnknownConfigKeyIsAnErrorWithDidYouMean: a key the parser
// does not read is never accepted silently (it would do nothing).
func TestRule_C2_UnknownConfigKeyIsAnErrorWithDidYouMean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{"shared-paths: [src/lib/**]\n", `shared-paths: unknown key (did you mean shared_paths?`},
		{"sharedpaths: [src/lib/**]\n", `did you mean shared_paths?`},
		{"pattern:\n  - id: x\n", `pattern: unknown key (did you mean patterns?`},
		{"price:\n  bugbot: 1\n", `did you mean prices?`},
		{"colour: blue\n", `colour: unknown key (known: clean_at, engine_severity_markers, engine_texts, engines, paths_ignore, patterns, prices, shared_paths)`},
	} {
		_, err := ParseRepo([]byte(tc.doc), configFile)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.doc, err, tc.want)
		}
	}
	rc, err := ParseRepo([]byte("shared_paths:\n  - src/lib/**\n"), configFile)
	if err != nil || len(rc.SharedPaths) != 1 || rc.SharedPaths[0] != "src/lib/**" {
		t.Errorf("shared_paths: %v, %v", rc.SharedPaths, err)
	}
}

// TestRule_C2_ConfigYAMLErrorIsOneLine: a YAML syntax error is one
// problem, so one line (one annotation), naming the file once with the
// line and column.
func TestRule_C2_ConfigYAMLErrorIsOneLine(t *testing.T) {
	t.Parallel()
	_, err := ParseRepo([]byte("shared_paths: [a]\nprices:\n  bugbot: 1\n  x: [\n"), configFile)
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("YAML error spans %d lines:\n%s", strings.Count(msg, "\n")+1, msg)
	}
	if !strings.HasPrefix(msg, configFile+":4:") || strings.Count(msg, configFile) != 1 {
		t.Errorf("error %q: want it to start with %s:4: and name the file once", msg, configFile)
	}
}

// TestRule_C2_ConfigErrorsOnePerLineFileNamedOnce: every problem of the
// file is reported at once, one per line, each line naming the file once.
func TestRule_C2_ConfigErrorsOnePerLineFileNamedOnce(t *testing.T) {
	t.Parallel()
	doc := "engines:\n  - name: X\n    author: {logins: [x]}\npatterns:\n  - id: p\n    colour: red\nprices:\n  bugbot: -1\n"
	_, err := ParseRepo([]byte(doc), configFile)
	if err == nil {
		t.Fatal("want an error")
	}
	lines := strings.Split(err.Error(), "\n")
	for _, want := range []string{"engines[0].name", "patterns[0].colour", "prices.bugbot"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors do not report %s:\n%s", want, err)
		}
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == "" || strings.Count(l, configFile) != 1 || !strings.HasPrefix(l, configFile+": ") {
			t.Errorf("line %q: want one non-empty line starting with the file name once", l)
		}
	}
}

// TestRule_C2_CommandsAndPlaceholdersCheckedAtStart: a command input that
// cannot run, or a placeholder that will not be expanded, is an input
// error when the config is loaded, not at the first fix cycle.
func TestRule_C2_CommandsAndPlaceholdersCheckedAtStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ input, value, want string }{
		{"TEST-COMMAND", "go test {file}", `input test-command: unknown placeholder {file} (did you mean {files}?`},
		{"TEST-COMMAND", "go test {package}", `did you mean {packages}?`},
		{"TEST-COMMAND", `go test "./...`, `input test-command: command "go test \"./...": unclosed double quote`},
		{"LINT-COMMAND", "golangci-lint run {files}", `input lint-command: {files} is expanded only in test-command`},
		{"SETUP-COMMAND", "make 'setup", `input setup-command:`},
		{"REGRESSION-COMMAND", "   ", ``},
		{"JUDGE-COMMAND", "judge {dirs}", `input judge-command: {dirs} is expanded only in test-command`},
		{"FIXER-COMMAND", "fix 'x", `input fixer-command:`},
	} {
		m := baseEnv()
		m["INPUT_"+tc.input] = tc.value
		if tc.input == "FIXER-COMMAND" {
			m["INPUT_FIXER"] = "command"
		}
		_, err := Load(env(m))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s=%q: %v", tc.input, tc.value, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%q: error %v, want it to contain %q", tc.input, tc.value, err, tc.want)
		}
	}
	m := baseEnv()
	m["INPUT_TEST-COMMAND"] = "go test -count=1 {packages} {dirs} ./x/{files}"
	if _, err := Load(env(m)); err != nil {
		t.Errorf("valid placeholders refused: %v", err)
	}
}

func TestRule_TR2_SharedPathsKeyOfTheRepositoryConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".github", "review-loop.yml"), []byte("shared_paths:\n  - src/lib/**\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, err := LoadRepo(dir, ".github/review-loop.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rc.SharedPaths, []string{"src/lib/**"}) {
		t.Errorf("shared paths %v, want [src/lib/**]", rc.SharedPaths)
	}
}

// S12: the repository's config adds texts per engine (engine_texts),
// checked like the rest of the file, and a name that is no engine is an
// error rather than phrases read nowhere.
func TestRule_S12_EngineTextsOfTheRepositoryConfig(t *testing.T) {
	t.Parallel()
	rc, err := ParseRepo([]byte("engine_texts:\n  copilot:\n    quota: [\"Copilot ran out of premium requests\"]\n    proof: [\"No unresolved review issues were identified.\"]\n"), configFile)
	if err != nil {
		t.Fatal(err)
	}
	if ps := rc.Texts["copilot"]; len(ps) != 2 || ps[0].Origin != "repository" {
		t.Fatalf("texts %+v", rc.Texts)
	}
	if _, err := BuildRegistry(Config{}, rc); err != nil {
		t.Fatalf("a known engine's texts were refused: %v", err)
	}
	rc.Texts["copilt"] = rc.Texts["copilot"]
	if _, err := BuildRegistry(Config{}, rc); err == nil || !strings.Contains(err.Error(), "engine_texts.copilt: unknown engine") {
		t.Fatalf("an unknown engine's texts: %v", err)
	}
	if _, err := ParseRepo([]byte("engine_texts:\n  copilot:\n    quota: [\"\"]\n    sorta: [x]\n"), configFile); err == nil ||
		!strings.Contains(err.Error(), "engine_texts.copilot.quota[0]: empty phrase") || !strings.Contains(err.Error(), "engine_texts.copilot.sorta: unknown class") {
		t.Fatalf("bad texts: %v", err)
	}
}

// A config file the YAML decoder cannot read (it panics on a bare "!" tag
// under a typed list, found by FuzzRule_S12_EngineTextsParse) is an error
// naming the file, never a crash.
func TestRule_C2_AConfigTheDecoderChokesOnIsAnError(t *testing.T) {
	t.Parallel()
	_, err := ParseRepo([]byte("engines:\n - name: a\n   kinds:\n     ! #00000000000000000000000000000000000"), configFile)
	if err == nil || !strings.Contains(err.Error(), configFile) {
		t.Fatalf("err = %v, want an error naming the file", err)
	}
}
