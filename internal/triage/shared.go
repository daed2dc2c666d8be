package triage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// GoListJSON is the -json flag of the `go list` whose output SharedGoDirs
// reads: the fields goPackage holds and no others (Go 1.19 and later), so
// go list computes no package's staleness, which hashes the module's and
// the standard library's sources (C1).
const GoListJSON = "-json=ImportPath,Dir,Imports,Standard,DepOnly"

// goPackage is the part of a `go list -json` record SharedGoDirs reads.
type goPackage struct {
	ImportPath string
	Dir        string
	Imports    []string
	Standard   bool
	DepOnly    bool
}

// SharedGoDirs reads the output of `go list -e GoListJSON ./...` run in root
// and returns the directories, relative to root and slash-separated, of
// the packages that two or more other packages of the listing import: a
// fix there reaches every importer, so it is a shared helper (TR2).
// Test-only imports do not count.
func SharedGoDirs(listing io.Reader, root string) ([]string, error) {
	dec := json.NewDecoder(listing)
	var pkgs []goPackage
	for {
		var p goPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading go list output: %w", err)
		}
		if !p.Standard && !p.DepOnly && p.ImportPath != "" {
			pkgs = append(pkgs, p)
		}
	}
	importers := map[string]int{}
	for _, p := range pkgs {
		for _, imp := range slices.Compact(slices.Sorted(slices.Values(p.Imports))) {
			if imp != p.ImportPath {
				importers[imp]++
			}
		}
	}
	var dirs []string
	for _, p := range pkgs {
		if importers[p.ImportPath] < 2 || p.Dir == "" {
			continue
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	slices.Sort(dirs)
	return dirs, nil
}

// DirGlobs turns package directories into globs of their files (a Go
// package is the files directly in its directory).
func DirGlobs(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, strings.TrimSuffix(d, "/")+"/*")
	}
	return out
}
