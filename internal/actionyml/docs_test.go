package actionyml

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// This file holds the docs to the code: the README's inputs table to
// action.yml, every doc's `uses:` ref to the README's, and every workflow
// a doc or example shows to the rule that no agent fixer runs beside a
// write token.

// docFiles are the Markdown files users read, relative to the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md", "SECURITY.md"}
	for _, pattern := range []string{"docs/*.md", "docs/engines/*.md"} {
		m, err := filepath.Glob(filepath.Join(root(t), pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root(t), f)
			files = append(files, rel)
		}
	}
	return files
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocs_ReadmeInputsTableListsEveryInput: each input of action.yml has
// a row of the README's inputs table, its name in backticks in the first
// column.
func TestDocs_ReadmeInputsTableListsEveryInput(t *testing.T) {
	t.Parallel()
	readme := read(t, "README.md")
	start := strings.Index(readme, "\n## Inputs\n")
	if start < 0 {
		t.Fatal("README has no Inputs section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`([a-z0-9-]+)`").FindAllStringSubmatch(first, -1) {
			listed[m[1]] = true
		}
	}
	for _, in := range loadAction(t).Inputs {
		if !listed[in.Name] {
			t.Errorf("README's inputs table has no row for action.yml's input %s", in.Name)
		}
	}
}

var usesRef = regexp.MustCompile(`uses:\s*review-loop/review-loop@([^\s#` + "`" + `]+)`)

// TestDocs_EveryDocUsesTheReadmesRef: every doc and example names the
// action at the ref the README's quick start uses (a placeholder such as
// <sha> aside), so a user who copies any of them gets an action that
// resolves.
func TestDocs_EveryDocUsesTheReadmesRef(t *testing.T) {
	t.Parallel()
	m := usesRef.FindStringSubmatch(read(t, "README.md"))
	if m == nil {
		t.Fatal("the README names no `uses: review-loop/review-loop@…`")
	}
	want := m[1]
	files := docFiles(t)
	examples, _ := filepath.Glob(filepath.Join(root(t), "docs", "examples", "*.yml"))
	for _, f := range examples {
		rel, _ := filepath.Rel(root(t), f)
		files = append(files, rel)
	}
	for _, f := range files {
		for _, m := range usesRef.FindAllStringSubmatch(read(t, f), -1) {
			if m[1] != want && !strings.HasPrefix(m[1], "<") {
				t.Errorf("%s: uses review-loop/review-loop@%s; the README uses @%s", f, m[1], want)
			}
		}
	}
}

var yamlBlock = regexp.MustCompile("(?s)```ya?ml\n(.*?)```")

// agentFixer: a fixer input that runs (or may run, in an expression) an
// agent CLI.
func agentFixer(v string) bool {
	return strings.Contains(v, "claude-code") || strings.Contains(v, "codex")
}

type shownJob struct {
	Permissions any `yaml:"permissions"`
	Steps       []struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
	} `yaml:"steps"`
}

// writes reports whether permissions (a job's, else the workflow's)
// may grant a write: unset (the repository's default token), write-all,
// or any scope at write.
func writes(perms any) bool {
	switch p := perms.(type) {
	case nil:
		return true
	case string:
		return p != "read-all"
	case map[string]any:
		for _, v := range p {
			if v == "write" {
				return true
			}
		}
	}
	return false
}

// showsAgentFixer: a line that is no comment sets an agent fixer.
func showsAgentFixer(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fixer:") && agentFixer(l) {
			return true
		}
	}
	return false
}

// TestDocs_NoAgentFixerBesideAWriteToken: no workflow an example or a doc
// shows runs an agent fixer (fixer: claude-code or codex) in a job that
// holds a write token (TB1): the agent reads review text an attacker may
// have shaped, and on a hosted runner anything in the job can become root.
// A doc that shows an agent fixer shows the job's permissions too. And no
// shown workflow builds review-loop's own docs/examples, which a user's
// repository does not have.
func TestDocs_NoAgentFixerBesideAWriteToken(t *testing.T) {
	t.Parallel()
	type shown struct{ where, text string }
	var all []shown
	examples, _ := filepath.Glob(filepath.Join(root(t), "docs", "examples", "*.yml"))
	for _, f := range examples {
		rel, _ := filepath.Rel(root(t), f)
		all = append(all, shown{rel, read(t, rel)})
	}
	for _, f := range docFiles(t) {
		for i, m := range yamlBlock.FindAllStringSubmatch(read(t, f), -1) {
			all = append(all, shown{f + " yaml block " + string(rune('1'+i)), m[1]})
		}
	}
	for _, s := range all {
		if strings.Contains(s.text, "./docs/examples/") {
			t.Errorf("%s builds or runs ./docs/examples/…, which a user's repository does not have", s.where)
		}
		if !showsAgentFixer(s.text) {
			continue
		}
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(s.text), &doc); err != nil {
			t.Errorf("%s shows an agent fixer in YAML that does not parse: %v", s.where, err)
			continue
		}
		// A whole workflow, or its jobs shown on their own.
		raw, _ := doc["jobs"].(map[string]any)
		if raw == nil {
			raw = doc
		}
		jobs := map[string]shownJob{}
		for name, v := range raw {
			b, err := yaml.Marshal(v)
			var j shownJob
			if err == nil && yaml.Unmarshal(b, &j) == nil && j.Steps != nil {
				jobs[name] = j
			}
		}
		wf := struct{ Permissions any }{doc["permissions"]}
		found := false
		for name, j := range jobs {
			for _, st := range j.Steps {
				if !strings.HasPrefix(st.Uses, "review-loop/review-loop") || !agentFixer(st.With["fixer"]) {
					continue
				}
				found = true
				perms := j.Permissions
				if perms == nil {
					perms = wf.Permissions
				}
				if writes(perms) {
					t.Errorf("%s: job %s runs an agent fixer with a write token (permissions %v); run it in a read-only prepare job (TB1)", s.where, name, perms)
				}
			}
		}
		if !found {
			t.Errorf("%s shows an agent fixer without the job around it: show the job and its permissions", s.where)
		}
	}
}
