// Package samples reads the real engine comment samples kept in the
// repository's testdata/engines/<engine>/ for parser tests. They are small
// public PR comments, each file's first line naming its source, so parser
// tests run in every clone and never skip.
package samples

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Sample is one sample file: its first line (naming its source) and the rest.
type Sample struct {
	Name   string
	Source string
	Text   string
}

// Dir returns the sample directory of engine under testdata/engines at
// the module root. A missing directory fails the test: the samples are part
// of the repository.
func Dir(t testing.TB, engine string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dir := filepath.Join(d, "testdata", "engines", engine)
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				t.Fatalf("real %s samples not found in testdata/engines/%s at the module root", engine, engine)
			}
			return dir
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	t.Fatal("module root (go.mod) not found above " + wd)
	return ""
}

// Load reads every sample of engine, sorted by file name.
func Load(t testing.TB, engine string) []Sample {
	t.Helper()
	dir := Dir(t, engine)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []Sample
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		src, rest, _ := strings.Cut(string(b), "\n")
		out = append(out, Sample{Name: e.Name(), Source: src, Text: rest})
	}
	slices.SortFunc(out, func(a, b Sample) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Get returns the sample whose file name starts with prefix.
func Get(t testing.TB, all []Sample, prefix string) Sample {
	t.Helper()
	for _, s := range all {
		if strings.HasPrefix(s.Name, prefix) {
			return s
		}
	}
	t.Fatalf("no sample %s*", prefix)
	return Sample{}
}

var fenceRE = regexp.MustCompile("^(`{3,}|~{3,})(.*)$")

// Blocks returns the contents of the top-level fenced blocks of a markdown
// sample, in order; fences nested inside a longer fence stay in its content.
func Blocks(text string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(strings.TrimRight(lines[i], " \r"))
		if m == nil {
			continue
		}
		fence := m[1]
		var buf []string
		j := i + 1
		for ; j < len(lines); j++ {
			l := strings.TrimRight(lines[j], " \r")
			if strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
				break
			}
			buf = append(buf, lines[j])
		}
		out = append(out, strings.Join(buf, "\n"))
		i = j
	}
	return out
}
