package ghfake

import (
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// parseSchema loads a schema as gqlparser.LoadSchema does, except that a
// field a type defines twice, identically typed, is kept once: GitHub's
// published IDL (schema.graphql of @octokit/graphql-schema 15.26.1)
// defines EnterpriseOwnerInfo.repositoryDeployKeySetting twice, which the
// validator otherwise refuses. A repeated field of another type is still
// an error.
func parseSchema(src *ast.Source) (*ast.Schema, error) {
	sd, err := parser.ParseSchemas(validator.Prelude, src)
	if err != nil {
		return nil, gqlerror.WrapIfUnwrapped(err)
	}
	for _, def := range sd.Definitions {
		def.Fields = dedupeFields(def.Fields)
	}
	return validator.ValidateSchemaDocument(sd)
}

func dedupeFields(fields ast.FieldList) ast.FieldList {
	seen := map[string]*ast.FieldDefinition{}
	out := fields[:0:0]
	for _, f := range fields {
		if prev, ok := seen[f.Name]; ok && prev.Type.String() == f.Type.String() && len(prev.Arguments) == len(f.Arguments) {
			continue
		}
		seen[f.Name] = f
		out = append(out, f)
	}
	return out
}
