// Package defs holds the built-in declarative engine definitions (YAML, in
// the same `engines:` shape a repository uses in .github/review-loop.yml).
package defs

import "embed"

// FS holds every built-in definition file (*.yaml).
//
//go:embed *.yaml
var FS embed.FS
