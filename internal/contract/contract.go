// Package contract locates GitHub's published descriptions (OpenAPI,
// GraphQL schema, webhook examples) that contract tests read in place from
// ../shared/github beside the module root.
package contract

import (
	"os"
	"path/filepath"
	"testing"
)

// RequiredEnv, when set to "required", turns a missing shared folder into a
// test failure instead of a skip (CI sets it).
const RequiredEnv = "REVIEW_LOOP_CONTRACT"

// DirEnv names a folder with the same layout as ../shared/github that
// replaces it (CI lays GitHub's published descriptions out there from
// their npm packages, see scripts/github-data).
const DirEnv = "REVIEW_LOOP_GITHUB_DATA"

// Dir returns the folder named by DirEnv, or else ../shared/github
// relative to the module root (the directory holding go.mod, found by
// walking up from the working directory), and whether it exists.
func Dir() (string, bool) {
	if p := os.Getenv(DirEnv); p != "" {
		st, err := os.Stat(p)
		return filepath.Clean(p), err == nil && st.IsDir()
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			p := filepath.Join(d, "..", "shared", "github")
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return filepath.Clean(p), true
			}
			return filepath.Clean(p), false
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// SharedDir returns the shared GitHub reference folder, skipping the test
// when it is absent (failing when REVIEW_LOOP_CONTRACT=required).
func SharedDir(t testing.TB) string {
	t.Helper()
	p, ok := Dir()
	if ok {
		return p
	}
	msg := "GitHub reference data not found at " + p + ": contract tests need ../shared/github beside the module root, or " + DirEnv + " naming a folder of that layout (OpenAPI in rest/, GraphQL schema in graphql/, webhook examples in webhooks/)"
	if os.Getenv(RequiredEnv) == "required" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// SchemaPath returns GitHub's public GraphQL schema file if present, else "".
func SchemaPath() string {
	p, ok := Dir()
	if !ok {
		return ""
	}
	return GraphQLSchema(p)
}

// GraphQLSchema returns the GraphQL schema file of the folder dir:
// graphql/schema.docs.graphql (GitHub's docs schema, the newer one) when
// present, else graphql/schema.graphql (the schema the
// @octokit/graphql-schema package ships).
func GraphQLSchema(dir string) string {
	docs := filepath.Join(dir, "graphql", "schema.docs.graphql")
	if _, err := os.Stat(docs); err == nil {
		return docs
	}
	return filepath.Join(dir, "graphql", "schema.graphql")
}
