// Package docs holds the documentation files the program reads itself:
// the JSON schema of the repository config file, which `review-loop
// doctor` checks a file against key by key.
package docs

import _ "embed"

// ConfigSchema is review-loop.schema.json, the schema of
// .github/review-loop.yml that editors read through the file's first line.
//
//go:embed review-loop.schema.json
var ConfigSchema []byte
