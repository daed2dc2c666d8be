package fix

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/bmatcuk/doublestar/v4"
)

// ResolveContextFiles expands the `context-files` globs (`**` spans
// directories) relative to the checkout and returns the matching files,
// sorted. A glob whose fixed directory part does not exist is an error that
// lists the nearest existing directories (rule IN4): never guessed.
func ResolveContextFiles(dir string, globs []string) ([]string, error) {
	var out []string
	for _, g := range globs {
		g = strings.TrimPrefix(path.Clean(strings.TrimSpace(filepath.ToSlash(g))), "./")
		if g == "" || g == "." {
			continue
		}
		if strings.HasPrefix(g, "../") || path.IsAbs(g) {
			return nil, fmt.Errorf("context-files: %q is outside the checkout", g)
		}
		base := fixedPrefix(g)
		if base != "" {
			info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(base)))
			if err != nil {
				if base == g {
					return nil, fmt.Errorf("context-files: %q does not exist; nearest: %s", base, strings.Join(nearestDirs(dir, base, 3), ", "))
				}
				return nil, fmt.Errorf("context-files: directory %q does not exist; nearest: %s", base, strings.Join(nearestDirs(dir, base, 3), ", "))
			}
			if base == g && info.IsDir() {
				g += "/**"
			}
		}
		root := filepath.Join(dir, filepath.FromSlash(base))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			if ok, _ := doublestar.Match(g, rel); ok {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("context-files %q: %w", g, err)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// fixedPrefix is the leading directory part of a glob without wildcards
// (the whole path when it has none).
func fixedPrefix(g string) string {
	parts := strings.Split(g, "/")
	for i, p := range parts {
		if strings.ContainsAny(p, "*?[") {
			return strings.Join(parts[:i], "/")
		}
	}
	return g
}

// nearestDirs lists the n existing directories of the checkout closest to
// want by edit distance.
func nearestDirs(dir, want string, n int) []string {
	type cand struct {
		p string
		d int
	}
	var cands []cand
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		cands = append(cands, cand{rel, levenshtein.ComputeDistance(rel, want)})
		return nil
	})
	slices.SortFunc(cands, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.p, b.p)
	})
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].p)
	}
	if len(out) == 0 {
		return []string{"(no directories)"}
	}
	return out
}
