package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/goccy/go-yaml"
)

// This file checks the repository config file's keys and reports each
// problem on one line with its position.

// repoConfigKeys are the top-level keys of the repository config file
// (.github/review-loop.yml). Every key of the file is snake_case, like the
// fields of engine definitions and patterns; the action's inputs are
// kebab-case as GitHub's are. docs/review-loop.schema.json lists the same
// keys (checked by a test); any other key is an error, never ignored.
var repoConfigKeys = []string{"clean_at", "engine_severity_markers", "engine_texts", "engines", "paths_ignore", "patterns", "prices", "shared_paths"}

// RepoKeys returns the top-level keys of the repository config file.
func RepoKeys() []string { return slices.Clone(repoConfigKeys) }

// checkRepoKeys reports every top-level key the parser does not read.
func checkRepoKeys(top map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if slices.Contains(repoConfigKeys, k) {
			continue
		}
		if s := didYouMean(k, repoConfigKeys); s != "" {
			out = append(out, fmt.Sprintf("%s: unknown key (did you mean %s? known: %s)", k, s, strings.Join(repoConfigKeys, ", ")))
		} else {
			out = append(out, fmt.Sprintf("%s: unknown key (known: %s)", k, strings.Join(repoConfigKeys, ", ")))
		}
	}
	return out
}

// ProblemLines turns one parser's error into one line per problem: a
// YAML error, whose text spans the source excerpt, becomes
// `LINE:COL: message`; the other errors are joined lines already.
func ProblemLines(err error) []string {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg = strings.Replace(msg, ye.Error(), yamlOneLine(ye), 1)
	}
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// yamlOneLine is a YAML error as `LINE:COL: message`, without the source
// excerpt goccy adds.
func yamlOneLine(ye yaml.Error) string {
	m := strings.TrimSpace(ye.GetMessage())
	if tk := ye.GetToken(); tk != nil && tk.Position != nil {
		return fmt.Sprintf("%d:%d: %s", tk.Position.Line, tk.Position.Column, m)
	}
	return m
}

// didYouMean returns the known name closest to name: the same once case,
// dashes and underscores are ignored, or within two edits; "" for none.
func didYouMean(name string, known []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(s))
	}
	best, bestD := "", 3
	for _, k := range known {
		if norm(k) == norm(name) {
			return k
		}
		if d := levenshtein.ComputeDistance(norm(name), norm(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
