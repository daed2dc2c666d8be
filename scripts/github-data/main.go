// Command github-data lays out GitHub's published descriptions — the REST
// OpenAPI description, the GraphQL schema and the webhook payload
// examples — from their npm packages, in the layout of ../shared/github
// that the contract tests read (internal/contract). CI runs it on the
// tarballs `npm pack` fetched and points REVIEW_LOOP_GITHUB_DATA at the
// result:
//
//	npm pack @octokit/openapi@23.0.2 @octokit/graphql-schema@15.26.1 @octokit/webhooks-examples@7.6.1
//	go run ./scripts/github-data -out DIR *.tgz
//
// Every tarball must have the pinned sha512 integrity (the npm registry's
// "integrity" of that version), and the two files that ../shared/github
// lists by sha256 must have that hash: anything else is refused.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// pkg is one pinned npm package and what is taken from it.
type pkg struct {
	name, version, integrity string
	// files maps a path in the tarball to its place under -out, with the
	// sha256 it must have ("" when ../shared/github lists none).
	files map[string]file
}

type file struct{ out, sha256 string }

var pinned = []pkg{
	{name: "@octokit/openapi", version: "23.0.2",
		integrity: "sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg==",
		files:     map[string]file{"package/generated/api.github.com.json": {"rest/api.github.com.json", "829b4bebb19a53133289f7b0bc819f4f1118115821db2ca9f25e9ee995a7da2a"}}},
	{name: "@octokit/graphql-schema", version: "15.26.1",
		integrity: "sha512-RFDC2MpRBd4AxSRvUeBIVeBU7ojN/SxDfALUd7iVYOSeEK3gZaqR2MGOysj4Zh2xj2RY5fQAUT+Oqq7hWTraMA==",
		files:     map[string]file{"package/schema.graphql": {"graphql/schema.graphql", "3c62d0526d133cee53221c89de9b455ade24db78b9e7ad56d642c4c15bce2654"}}},
	{name: "@octokit/webhooks-examples", version: "7.6.1",
		integrity: "sha512-De6U3XB6O3DtCa7bKgCMzTHdeopqqZ6SNivMYJnK65ierKL1AnNIA0tkRYCRS7lwGT792d+Ps1WbfHlso6MynQ==",
		files:     map[string]file{"package/api.github.com/index.json": {"", ""}}},
}

// webhookFiles maps each file of ../shared/github/webhooks to the example
// of @octokit/webhooks-examples 7.6.1 (api.github.com/index.json: event
// name, index in its examples) with the same JSON content. The one
// difference: the package's workflow_dispatch example has no
// inputs.name, which the octokit/webhooks git copy has.
var webhookFiles = map[string]struct {
	event string
	index int
}{
	"check_run/completed.github-actions.json":                    {"check_run", 1},
	"check_run/completed.json":                                   {"check_run", 2},
	"check_run/created.json":                                     {"check_run", 4},
	"check_run/rerequested.json":                                 {"check_run", 7},
	"check_suite/completed.github-actions.json":                  {"check_suite", 1},
	"check_suite/completed.json":                                 {"check_suite", 2},
	"issue_comment/created.json":                                 {"issue_comment", 2},
	"issue_comment/created.with-installation.json":               {"issue_comment", 3},
	"issue_comment/edited.json":                                  {"issue_comment", 7},
	"pull_request/closed.json":                                   {"pull_request", 3},
	"pull_request/opened.json":                                   {"pull_request", 12},
	"pull_request/opened.with-null-body.json":                    {"pull_request", 13},
	"pull_request/ready_for_review.json":                         {"pull_request", 15},
	"pull_request/synchronize.json":                              {"pull_request", 22},
	"pull_request_review/dismissed.json":                         {"pull_request_review", 1},
	"pull_request_review/submitted.json":                         {"pull_request_review", 2},
	"pull_request_review/submitted.with-organization.json":       {"pull_request_review", 3},
	"pull_request_review_comment/created.json":                   {"pull_request_review_comment", 1},
	"pull_request_review_comment/created.with-organization.json": {"pull_request_review_comment", 2},
	"pull_request_review_thread/resolved.json":                   {"pull_request_review_thread", 1},
	"pull_request_review_thread/unresolved.json":                 {"pull_request_review_thread", 2},
	"push/payload.json":                                          {"push", 2},
	"push/with-new-branch.json":                                  {"push", 4},
	"workflow_dispatch/payload.json":                             {"workflow_dispatch", 1},
	"workflow_run/completed.json":                                {"workflow_run", 1},
	"workflow_run/completed.with-pull-requests.json":             {"workflow_run", 2},
}

func main() {
	out := flag.String("out", "", "folder to lay the descriptions out in (the layout of ../shared/github)")
	flag.Parse()
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "github-data:", err)
		os.Exit(1)
	}
}

func run(out string, tarballs []string) error {
	if out == "" {
		return errors.New("-out is required")
	}
	seen := map[string]bool{}
	for _, path := range tarballs {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha512.Sum512(data)
		integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
		var p *pkg
		for i := range pinned {
			if pinned[i].integrity == integrity {
				p = &pinned[i]
			}
		}
		if p == nil {
			return fmt.Errorf("%s: integrity %s is none of the pinned packages (%s)", path, integrity, names())
		}
		seen[p.name] = true
		if err := extract(*p, data, out); err != nil {
			return fmt.Errorf("%s@%s: %w", p.name, p.version, err)
		}
	}
	for _, p := range pinned {
		if !seen[p.name] {
			return fmt.Errorf("no tarball of %s@%s given", p.name, p.version)
		}
	}
	return nil
}

func names() string {
	var s []string
	for _, p := range pinned {
		s = append(s, p.name+"@"+p.version)
	}
	return strings.Join(s, ", ")
}

func extract(p pkg, data []byte, out string) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	found := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		f, ok := p.files[h.Name]
		if !ok {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		found[h.Name] = true
		if f.sha256 != "" {
			if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != f.sha256 {
				return fmt.Errorf("%s: sha256 %x, want %s", h.Name, got, f.sha256)
			}
		}
		if f.out == "" {
			if err := webhooks(b, out); err != nil {
				return fmt.Errorf("%s: %w", h.Name, err)
			}
			continue
		}
		if err := write(filepath.Join(out, filepath.FromSlash(f.out)), b); err != nil {
			return err
		}
	}
	for name := range p.files {
		if !found[name] {
			return fmt.Errorf("the tarball has no %s", name)
		}
	}
	return nil
}

// webhooks writes each example of webhookFiles from index.json.
func webhooks(index []byte, out string) error {
	var events []struct {
		Name     string            `json:"name"`
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(index, &events); err != nil {
		return err
	}
	byName := map[string][]json.RawMessage{}
	for _, e := range events {
		byName[e.Name] = e.Examples
	}
	for rel, at := range webhookFiles {
		ex := byName[at.event]
		if at.index >= len(ex) {
			return fmt.Errorf("%s: %s has %d examples, no #%d", rel, at.event, len(ex), at.index)
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, ex[at.index], "", "  "); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		buf.WriteByte('\n')
		if err := write(filepath.Join(out, "webhooks", filepath.FromSlash(rel)), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
