package ghfake

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"
)

// SubsetSchema is the compact schema the fake falls back to when GitHub's
// public schema file is absent: only the types and fields the client uses,
// each spelled as in GitHub's schema.
//
//go:embed schema_subset.graphql
var SubsetSchema string

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*ast.Schema{}
)

type schemaHolder struct {
	path string
	once sync.Once
	s    *ast.Schema
	err  error
}

// LoadSchema parses the schema at path (cached per path), or the embedded
// subset when path is empty or the file is absent.
func LoadSchema(path string) (*ast.Schema, error) {
	src := SubsetSchema
	name := "subset"
	if path != "" {
		if b, err := os.ReadFile(path); err == nil {
			src, name = string(b), path
		}
	}
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[name]; ok {
		return s, nil
	}
	s, err := parseSchema(&ast.Source{Name: name, Input: src})
	if err != nil {
		return nil, fmt.Errorf("loading graphql schema %s: %w", name, err)
	}
	schemaCache[name] = s
	return s, nil
}

func (h *schemaHolder) get() (*ast.Schema, error) {
	h.once.Do(func() { h.s, h.err = LoadSchema(h.path) })
	return h.s, h.err
}

// obj is a GraphQL object value: its type name and a field resolver.
type obj struct {
	typ string
	get func(field string, args map[string]any) (any, error)
}

type gqlExec struct {
	f      *Fake
	schema *ast.Schema
	doc    *ast.QueryDocument
	vars   map[string]any
	errs   gqlerror.List
	viewer Identity
}

func (f *Fake) serveGraphQL(w http.ResponseWriter, id Identity, req gqlRequest, fault *Fault) {
	schema, err := f.schema.get()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	doc, errs := gqlparser.LoadQueryWithRules(schema, req.Query, nil)
	if len(errs) > 0 {
		writeJSON(w, http.StatusOK, map[string]any{"errors": errs})
		return
	}
	op := doc.Operations.ForName(req.OperationName)
	if op == nil {
		op = doc.Operations[0]
	}
	vars, verr := validator.VariableValues(schema, op, req.Variables)
	if verr != nil {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]any{{"message": verr.Error()}}})
		return
	}
	e := &gqlExec{f: f, schema: schema, doc: doc, vars: vars, viewer: id}
	root := "Query"
	if op.Operation == ast.Mutation {
		root = "Mutation"
	}
	f.mu.Lock()
	var pushes []PushEvent
	for _, r := range f.repos {
		pushes = append(pushes, f.syncRepoLocked(r)...)
	}
	data := e.selectionSet(&obj{typ: root, get: e.rootField(root)}, op.SelectionSet, ast.Path{})
	f.mu.Unlock()
	f.firePush(pushes)
	out := map[string]any{"data": data}
	if fault != nil {
		for _, m := range fault.GraphQLErrors {
			ge := map[string]any{"message": m}
			if fault.GraphQLErrorType != "" {
				ge["type"] = fault.GraphQLErrorType
			}
			out["errors"] = append(asList(out["errors"]), ge)
		}
	}
	for _, ge := range e.errs {
		m := map[string]any{"message": ge.Message, "path": ge.Path}
		if t, ok := ge.Extensions["type"]; ok {
			m["type"] = t
		}
		out["errors"] = append(asList(out["errors"]), m)
	}
	writeJSON(w, http.StatusOK, out)
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func (e *gqlExec) typeMatches(cond, typ string) bool {
	if cond == "" || cond == typ {
		return true
	}
	def := e.schema.Types[cond]
	if def == nil {
		return false
	}
	return slices.ContainsFunc(e.schema.PossibleTypes[cond], func(d *ast.Definition) bool { return d.Name == typ })
}

func (e *gqlExec) collect(ss ast.SelectionSet, typ string, out *[]*ast.Field) {
	for _, s := range ss {
		switch s := s.(type) {
		case *ast.Field:
			if skipped(s.Directives, e.vars) {
				continue
			}
			*out = append(*out, s)
		case *ast.InlineFragment:
			if e.typeMatches(s.TypeCondition, typ) {
				e.collect(s.SelectionSet, typ, out)
			}
		case *ast.FragmentSpread:
			if s.Definition != nil && e.typeMatches(s.Definition.TypeCondition, typ) {
				e.collect(s.Definition.SelectionSet, typ, out)
			}
		}
	}
}

func skipped(ds ast.DirectiveList, vars map[string]any) bool {
	for _, d := range ds {
		v, _ := d.ArgumentMap(vars)["if"].(bool)
		if (d.Name == "skip" && v) || (d.Name == "include" && !v) {
			return true
		}
	}
	return false
}

func (e *gqlExec) selectionSet(o *obj, ss ast.SelectionSet, path ast.Path) map[string]any {
	var fields []*ast.Field
	e.collect(ss, o.typ, &fields)
	out := make(map[string]any, len(fields))
	for _, fl := range fields {
		name := fl.Alias
		if name == "" {
			name = fl.Name
		}
		if _, done := out[name]; done && len(fl.SelectionSet) == 0 {
			continue
		}
		p := append(slices.Clone(path), ast.PathName(name))
		if fl.Name == "__typename" {
			out[name] = o.typ
			continue
		}
		v, err := o.get(fl.Name, fl.ArgumentMap(e.vars))
		if err != nil {
			ge := &gqlerror.Error{Message: err.Error(), Path: p}
			if te, ok := err.(typedErr); ok {
				ge.Extensions = map[string]any{"type": te.typ}
			}
			e.errs = append(e.errs, ge)
			out[name] = nil
			continue
		}
		val := e.complete(v, fl, p)
		if prev, ok := out[name].(map[string]any); ok {
			if cur, ok := val.(map[string]any); ok {
				for k, x := range cur {
					prev[k] = x
				}
				continue
			}
		}
		out[name] = val
	}
	return out
}

func (e *gqlExec) complete(v any, fl *ast.Field, path ast.Path) any {
	switch v := v.(type) {
	case nil:
		return nil
	case *obj:
		if v == nil {
			return nil
		}
		return e.selectionSet(v, fl.SelectionSet, path)
	case []*obj:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = e.complete(x, fl, append(slices.Clone(path), ast.PathIndex(i)))
		}
		return out
	case time.Time:
		if v.IsZero() {
			return nil
		}
		return v.UTC().Format(time.RFC3339)
	default:
		return v
	}
}

// typedErr carries GitHub's error type (FORBIDDEN, NOT_FOUND, ...).
type typedErr struct {
	typ, msg string
}

func (t typedErr) Error() string { return t.msg }

func notImplemented(typ, field string) error {
	return fmt.Errorf("ghfake: field %s.%s is not implemented", typ, field)
}

func cursor(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:" + strconv.Itoa(i)))
}

func uncursor(s string) (int, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || !strings.HasPrefix(string(b), "cursor:") {
		return 0, fmt.Errorf("invalid cursor %q", s)
	}
	return strconv.Atoi(strings.TrimPrefix(string(b), "cursor:"))
}

// connection pages items the way GitHub does: first/after from the start,
// last/before from the end; first and last are capped at 100.
func connection(typ string, items []*obj, args map[string]any) (*obj, error) {
	lo, hi := 0, len(items)
	if a, ok := args["after"].(string); ok && a != "" {
		n, err := uncursor(a)
		if err != nil {
			return nil, err
		}
		lo = min(n+1, hi)
	}
	if b, ok := args["before"].(string); ok && b != "" {
		n, err := uncursor(b)
		if err != nil {
			return nil, err
		}
		hi = max(min(n, hi), lo)
	}
	first, hasFirst := intArg(args, "first")
	last, hasLast := intArg(args, "last")
	if !hasFirst && !hasLast {
		return nil, typedErr{"MISSING_PAGINATION_BOUNDARIES", fmt.Sprintf("You must provide a `first` or `last` value to properly paginate the `%s` connection.", strings.TrimSuffix(typ, "Connection"))}
	}
	if (hasFirst && (first < 0 || first > 100)) || (hasLast && (last < 0 || last > 100)) {
		return nil, typedErr{"EXCESSIVE_PAGINATION", fmt.Sprintf("Requesting %d records on the connection exceeds the `first`/`last` limit of 100 records.", max(first, last))}
	}
	total := len(items)
	if hasFirst && hi-lo > first {
		hi = lo + first
	}
	if hasLast && hi-lo > last {
		lo = hi - last
	}
	page := items[lo:hi]
	return &obj{typ: typ, get: func(field string, _ map[string]any) (any, error) {
		switch field {
		case "totalCount":
			return total, nil
		case "nodes":
			return page, nil
		case "edges":
			edges := make([]*obj, len(page))
			for i, n := range page {
				idx := lo + i
				edges[i] = &obj{typ: strings.TrimSuffix(typ, "Connection") + "Edge", get: func(f string, _ map[string]any) (any, error) {
					switch f {
					case "node":
						return n, nil
					case "cursor":
						return cursor(idx), nil
					}
					return nil, notImplemented("Edge", f)
				}}
			}
			return edges, nil
		case "pageInfo":
			return &obj{typ: "PageInfo", get: func(f string, _ map[string]any) (any, error) {
				switch f {
				case "hasNextPage":
					return hi < total, nil
				case "hasPreviousPage":
					return lo > 0, nil
				case "startCursor":
					if len(page) == 0 {
						return nil, nil
					}
					return cursor(lo), nil
				case "endCursor":
					if len(page) == 0 {
						return nil, nil
					}
					return cursor(hi - 1), nil
				}
				return nil, notImplemented("PageInfo", f)
			}}, nil
		}
		return nil, notImplemented(typ, field)
	}}, nil
}

func intArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}

func strArg(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

func inputArg(args map[string]any) map[string]any {
	m, _ := args["input"].(map[string]any)
	return m
}
