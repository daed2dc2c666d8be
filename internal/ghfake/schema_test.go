package ghfake_test

import (
	"bytes"
	"flag"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"

	"github.com/review-loop/review-loop/internal/contract"
	"github.com/review-loop/review-loop/internal/ghfake"
)

var updateSubset = flag.Bool("update-subset", false, "rewrite schema_subset.graphql from GitHub's public schema")

// subsetFields lists what the client and the fake use: type -> fields
// (nil keeps every enum value / union member present in this list).
var subsetFields = map[string][]string{
	"Query":                                {"id", "viewer", "repository", "node", "rateLimit"},
	"RateLimit":                            {"cost", "limit", "remaining", "resetAt", "used"},
	"Label":                                {"id", "name"},
	"LabelConnection":                      {"totalCount", "nodes", "pageInfo"},
	"Mutation":                             {"resolveReviewThread", "unresolveReviewThread", "markPullRequestReadyForReview", "minimizeComment"},
	"Node":                                 {"id"},
	"Actor":                                {"login", "url"},
	"GitObject":                            {"oid", "id"},
	"User":                                 {"id", "login", "databaseId", "url"},
	"Bot":                                  {"id", "login", "databaseId", "url"},
	"Team":                                 {"id", "slug"},
	"RequestedReviewer":                    nil,
	"Repository":                           {"id", "name", "nameWithOwner", "url", "defaultBranchRef", "pullRequest", "pullRequests", "object"},
	"Ref":                                  {"id", "name", "prefix"},
	"Commit":                               {"id", "oid", "checkSuites", "associatedPullRequests", "status"},
	"Status":                               {"id", "contexts"},
	"StatusContext":                        {"id", "context", "state", "description", "createdAt", "creator"},
	"StatusState":                          nil,
	"Tree":                                 {"id", "oid", "entries"},
	"TreeEntry":                            {"name", "path", "type", "oid", "object"},
	"Blob":                                 {"id", "oid", "text", "byteSize", "isBinary"},
	"App":                                  {"id", "slug", "name"},
	"CheckSuite":                           {"id", "app", "checkRuns", "workflowRun"},
	"WorkflowRun":                          {"id", "file"},
	"WorkflowRunFile":                      {"id", "path"},
	"CheckSuiteConnection":                 {"totalCount", "nodes", "pageInfo"},
	"CheckRun":                             {"id", "databaseId", "name", "status", "conclusion", "startedAt", "completedAt", "title", "summary", "text"},
	"CheckRunConnection":                   {"totalCount", "nodes", "pageInfo"},
	"CheckStatusState":                     nil,
	"CheckConclusionState":                 nil,
	"PullRequestState":                     nil,
	"IssueOrder":                           {"direction", "field"},
	"IssueOrderField":                      nil,
	"OrderDirection":                       nil,
	"PullRequestReviewState":               nil,
	"CommentAuthorAssociation":             nil,
	"PageInfo":                             {"hasNextPage", "hasPreviousPage", "startCursor", "endCursor"},
	"PullRequest":                          {"id", "number", "url", "title", "body", "state", "isDraft", "author", "headRefOid", "headRefName", "baseRefName", "baseRefOid", "changedFiles", "isCrossRepository", "headRepository", "baseRepository", "additions", "deletions", "createdAt", "updatedAt", "commits", "reviews", "reviewThreads", "comments", "reviewRequests", "labels"},
	"PullRequestConnection":                {"totalCount", "nodes", "pageInfo"},
	"PullRequestCommit":                    {"id", "commit"},
	"PullRequestCommitConnection":          {"totalCount", "nodes", "pageInfo"},
	"PullRequestReview":                    {"id", "fullDatabaseId", "author", "commit", "state", "body", "submittedAt", "isMinimized", "minimizedReason"},
	"PullRequestReviewConnection":          {"totalCount", "nodes", "pageInfo"},
	"PullRequestReviewThread":              {"id", "isResolved", "isOutdated", "path", "line", "startLine", "originalLine", "comments"},
	"PullRequestReviewThreadConnection":    {"totalCount", "nodes", "pageInfo"},
	"PullRequestReviewComment":             {"id", "fullDatabaseId", "author", "body", "createdAt", "pullRequestReview", "commit", "originalCommit", "isMinimized", "minimizedReason"},
	"PullRequestReviewCommentConnection":   {"totalCount", "nodes", "pageInfo"},
	"IssueComment":                         {"id", "fullDatabaseId", "author", "authorAssociation", "body", "createdAt", "updatedAt", "isMinimized", "minimizedReason"},
	"IssueCommentConnection":               {"totalCount", "nodes", "pageInfo"},
	"ReviewRequest":                        {"id", "requestedReviewer"},
	"ReviewRequestConnection":              {"totalCount", "nodes", "pageInfo"},
	"ResolveReviewThreadInput":             {"clientMutationId", "threadId"},
	"ResolveReviewThreadPayload":           {"clientMutationId", "thread"},
	"UnresolveReviewThreadInput":           {"clientMutationId", "threadId"},
	"UnresolveReviewThreadPayload":         {"clientMutationId", "thread"},
	"MarkPullRequestReadyForReviewInput":   {"clientMutationId", "pullRequestId"},
	"MarkPullRequestReadyForReviewPayload": {"clientMutationId", "pullRequest"},
	"MinimizeCommentInput":                 {"classifier", "clientMutationId", "subjectId"},
	"MinimizeCommentPayload":               {"clientMutationId", "minimizedComment"},
	"Minimizable":                          {"isMinimized", "minimizedReason"},
	"ReportedContentClassifiers":           nil,
	"DateTime":                             nil,
	"URI":                                  nil,
	"GitObjectID":                          nil,
	"BigInt":                               nil,
}

func realSchema(t *testing.T) *ast.Schema {
	t.Helper()
	dir := contract.SharedDir(t)
	s, err := ghfake.LoadSchema(contract.GraphQLSchema(dir))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func builtin(name string) bool {
	return slices.Contains([]string{"String", "Int", "Boolean", "ID", "Float"}, name) || len(name) > 2 && name[:2] == "__"
}

// TestSubsetSchemaMatchesGitHub checks every type, field, argument, enum
// value and union member of the embedded subset exists in GitHub's public
// schema with the same type, and that the subset is what the generator
// would write.
func TestSubsetSchemaMatchesGitHub(t *testing.T) {
	real := realSchema(t)
	if *updateSubset {
		if err := os.WriteFile("schema_subset.graphql", generateSubset(t, real), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := gqlparser.LoadSchema(&ast.Source{Name: "subset", Input: ghfake.SubsetSchema})
	if err != nil {
		t.Fatalf("subset schema does not parse: %v", err)
	}
	for name, def := range sub.Types {
		if builtin(name) || def.BuiltIn {
			continue
		}
		rd := real.Types[name]
		if rd == nil {
			t.Errorf("type %s is not in GitHub's schema", name)
			continue
		}
		if rd.Kind != def.Kind {
			t.Errorf("type %s: kind %s, GitHub has %s", name, def.Kind, rd.Kind)
		}
		for _, f := range def.Fields {
			if builtin(f.Name) {
				continue
			}
			rf := rd.Fields.ForName(f.Name)
			if rf == nil {
				t.Errorf("field %s.%s is not in GitHub's schema", name, f.Name)
				continue
			}
			if rf.Type.String() != f.Type.String() {
				t.Errorf("field %s.%s: type %s, GitHub has %s", name, f.Name, f.Type, rf.Type)
			}
			for _, a := range f.Arguments {
				ra := rf.Arguments.ForName(a.Name)
				if ra == nil || ra.Type.String() != a.Type.String() {
					t.Errorf("argument %s.%s(%s): not in GitHub's schema with type %s", name, f.Name, a.Name, a.Type)
				}
			}
		}
		for _, v := range def.EnumValues {
			if rd.EnumValues.ForName(v.Name) == nil {
				t.Errorf("enum value %s.%s is not in GitHub's schema", name, v.Name)
			}
		}
		for _, m := range def.Types {
			if !slices.Contains(rd.Types, m) {
				t.Errorf("union member %s of %s is not in GitHub's schema", m, name)
			}
		}
		for _, i := range def.Interfaces {
			if !slices.Contains(rd.Interfaces, i) {
				t.Errorf("%s implements %s only in the subset", name, i)
			}
		}
	}
	if want := generateSubset(t, real); !bytes.Equal(want, []byte(ghfake.SubsetSchema)) {
		t.Errorf("schema_subset.graphql is stale; run go test ./internal/ghfake -run TestSubsetSchemaMatchesGitHub -update-subset")
	}
}

func generateSubset(t *testing.T, real *ast.Schema) []byte {
	t.Helper()
	keep := func(typ *ast.Type) bool {
		n := typ.Name()
		_, ok := subsetFields[n]
		return ok || builtin(n)
	}
	names := make([]string, 0, len(subsetFields))
	for n := range subsetFields {
		names = append(names, n)
	}
	sort.Strings(names)
	doc := &ast.SchemaDocument{}
	for _, n := range names {
		rd := real.Types[n]
		if rd == nil {
			t.Fatalf("type %s is not in GitHub's schema", n)
		}
		d := &ast.Definition{Kind: rd.Kind, Name: rd.Name}
		for _, i := range rd.Interfaces {
			if _, ok := subsetFields[i]; ok {
				d.Interfaces = append(d.Interfaces, i)
			}
		}
		for _, m := range rd.Types {
			if _, ok := subsetFields[m]; ok {
				d.Types = append(d.Types, m)
			}
		}
		for _, v := range rd.EnumValues {
			d.EnumValues = append(d.EnumValues, &ast.EnumValueDefinition{Name: v.Name})
		}
		for _, fname := range subsetFields[n] {
			rf := rd.Fields.ForName(fname)
			if rf == nil {
				t.Fatalf("field %s.%s is not in GitHub's schema", n, fname)
			}
			if !keep(rf.Type) {
				t.Fatalf("field %s.%s has type %s outside the subset", n, fname, rf.Type.Name())
			}
			f := &ast.FieldDefinition{Name: rf.Name, Type: rf.Type}
			for _, a := range rf.Arguments {
				if keep(a.Type) || a.Type.NonNull {
					f.Arguments = append(f.Arguments, &ast.ArgumentDefinition{Name: a.Name, Type: a.Type, DefaultValue: a.DefaultValue})
				}
			}
			d.Fields = append(d.Fields, f)
		}
		doc.Definitions = append(doc.Definitions, d)
	}
	var buf bytes.Buffer
	buf.WriteString("# Subset of GitHub's public GraphQL schema (schema.docs.graphql): only what\n# review-loop's client and fake use. Generated and checked by\n# TestSubsetSchemaMatchesGitHub; do not edit by hand.\n\n")
	formatter.NewFormatter(&buf).FormatSchemaDocument(doc)
	return buf.Bytes()
}
