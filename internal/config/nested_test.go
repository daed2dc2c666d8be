package config

import (
	"strings"
	"testing"
)

// TestRule_C2_ANestedTypoIsNamedByItsKeyPath: a misspelt key deep inside
// an engine definition is an error that names its path and the key it
// probably meant, not only what the misspelling left missing; a key that
// is right is never reported.
func TestRule_C2_ANestedTypoIsNamedByItsKeyPath(t *testing.T) {
	t.Parallel()
	const engine = "engines:\n  - name: mybot\n    author:\n      logins: [my-bot]\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"author", "engines:\n  - name: mybot\n    author:\n      login: [my-bot]\n",
			"engines[0].author.login: unknown key (did you mean logins? known: id, logins)"},
		{"a severity marker", engine + "    severity_markers:\n      - pattern: P0\n        severty: high\n",
			"engines[0].severity_markers[0].severty: unknown key (did you mean severity?"},
		{"a definition's own key, named once", engine + "    chek_run: x\n", "engines[0].chek_run: unknown field"},
		{"a body section", engine + "    body_sections:\n      - heading: Nits\n        kind: finding\n        severitty: low\n",
			"engines[0].body_sections[0].severitty: unknown key (did you mean severity?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseRepo([]byte(tc.doc), configFile)
			if err == nil || !strings.Contains(err.Error(), configFile+": "+tc.want) {
				t.Fatalf("error %v\nwant a line %q", err, configFile+": "+tc.want)
			}
			if n := strings.Count(err.Error(), strings.SplitN(tc.want, ":", 2)[0]+":"); n != 1 {
				t.Errorf("the key path is reported %d times:\n%v", n, err)
			}
		})
	}
	if _, err := ParseRepo([]byte(engine+"    severity_markers:\n      - pattern: P0\n        severity: high\n"), configFile); err != nil {
		t.Errorf("a valid definition: %v", err)
	}
}

// TestRule_C2_ValidateRepoNamesAPricedEngineThatDoesNotExist: a file is
// valid only when a cycle would adopt it, so a misspelt engine under
// `prices` (a map whose keys the schema cannot list) is an error with the
// engine it probably meant; an engine the file itself defines may be
// priced.
func TestRule_C2_ValidateRepoNamesAPricedEngineThatDoesNotExist(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{"prices:\n  bugbott: 0.5\n", "prices.bugbott: unknown engine (did you mean bugbot?"},
		{"prices:\n  actions_minutes: 0.008\n", "prices.actions_minutes: unknown engine (did you mean actions_minute?"},
	} {
		err := ValidateRepo([]byte(tc.doc), configFile)
		if err == nil || !strings.Contains(err.Error(), configFile+": "+tc.want) {
			t.Errorf("%q: %v, want %q", tc.doc, err, tc.want)
		}
	}
	for _, ok := range []string{
		"prices:\n  bugbot: 0.5\n  actions_minute: 0.008\n",
		"engines:\n  - name: mybot\n    author:\n      logins: [my-bot]\nprices:\n  mybot: 1\n",
		"",
	} {
		if err := ValidateRepo([]byte(ok), configFile); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
