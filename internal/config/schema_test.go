package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/internal/triage"
)

const schemaFile = "docs/review-loop.schema.json"

// schemaComment is the first line of every example of the config file.
const schemaComment = "# yaml-language-server: $schema=https://raw.githubusercontent.com/review-loop/review-loop/main/" + schemaFile

func repoRootDir() string { return filepath.Join("..", "..") }

func loadSchema(t *testing.T) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRootDir(), schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("review-loop.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("review-loop.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return s, m
}

// validateYAML checks one YAML document against the schema.
func validateYAML(s *jsonschema.Schema, doc []byte) error {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func propertyKeys(t *testing.T, schema map[string]any, path ...string) []string {
	t.Helper()
	var cur any = schema
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("schema: %s is not an object", strings.Join(path, "."))
		}
		cur = m[p]
	}
	props, ok := cur.(map[string]any)["properties"].(map[string]any)
	if !ok {
		t.Fatalf("schema: %s has no properties", strings.Join(path, "."))
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func yamlTags(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		if tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestConfigSchema_KeysMatchTheParser: the schema and the Go parsers read
// the same keys, at every level.
func TestConfigSchema_KeysMatchTheParser(t *testing.T) {
	t.Parallel()
	_, m := loadSchema(t)
	for _, c := range []struct {
		what      string
		schema    []string
		parserSet []string
	}{
		{"top level", propertyKeys(t, m), sorted(RepoKeys())},
		{"engines[]", propertyKeys(t, m, "$defs", "engine"), yamlTags(declarative.Definition{})},
		{"engines[].author", propertyKeys(t, m, "$defs", "engine", "properties", "author"), yamlTags(declarative.AuthorDef{})},
		{"engines[].severity_markers[]", propertyKeys(t, m, "$defs", "engine", "properties", "severity_markers", "items"), yamlTags(declarative.SeverityMarker{})},
		{"engines[].body_sections[]", propertyKeys(t, m, "$defs", "engine", "properties", "body_sections", "items"), yamlTags(declarative.BodySectionDef{})},
		{"engines[].kinds[]", propertyKeys(t, m, "$defs", "engine", "properties", "kinds", "items"), yamlTags(declarative.KindDef{})},
		{"patterns[]", propertyKeys(t, m, "$defs", "pattern"), sorted(triage.PatternFields())},
	} {
		if !slices.Equal(c.schema, c.parserSet) {
			t.Errorf("%s: schema keys %v, parser keys %v", c.what, c.schema, c.parserSet)
		}
	}
}

var fencedYAML = regexp.MustCompile("(?s)```ya?ml\n(.*?)```")

// configExamples returns every example of the config file the project
// shows: the example file, the built-in engine definitions and pattern
// catalogue (the same shape), and each fenced YAML block of the Markdown
// docs that starts with the schema comment.
func configExamples(t *testing.T) map[string][]byte {
	t.Helper()
	root := repoRootDir()
	out := map[string][]byte{}
	files := []string{"docs/examples/config/review-loop.yml", "internal/triage/catalogue.yml"}
	defs, _ := filepath.Glob(filepath.Join(root, "engines", "defs", "*.yaml"))
	for _, d := range defs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, rel)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	mds, _ := filepath.Glob(filepath.Join(root, "*.md"))
	more, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	engineDocs, _ := filepath.Glob(filepath.Join(root, "docs", "engines", "*.md"))
	for _, md := range append(append(mds, more...), engineDocs...) {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, md)
		for i, blk := range fencedYAML.FindAllSubmatch(b, -1) {
			if strings.HasPrefix(string(blk[1]), schemaComment+"\n") {
				out[rel+"#"+string(rune('a'+i))] = blk[1]
				continue
			}
			// A block made only of config keys is an example of the
			// file too: it must say so, so it is validated.
			var top map[string]any
			if yaml.Unmarshal(blk[1], &top) == nil && len(top) > 0 {
				all := true
				for k := range top {
					all = all && slices.Contains(repoConfigKeys, k)
				}
				if all {
					t.Errorf("%s: a YAML block of the config file without the first line %q", rel, schemaComment)
				}
			}
		}
	}
	return out
}

// TestConfigSchema_ValidatesEveryExample: every example of the config
// file passes both the schema and the parser.
func TestConfigSchema_ValidatesEveryExample(t *testing.T) {
	t.Parallel()
	s, _ := loadSchema(t)
	ex := configExamples(t)
	if len(ex) < 4 {
		t.Fatalf("found %d examples, want the example file, the catalogue, the built-in definitions and the docs' blocks", len(ex))
	}
	for name, doc := range ex {
		if err := validateYAML(s, doc); err != nil {
			t.Errorf("%s: schema: %v", name, err)
		}
		if _, err := ParseRepo(doc, name); err != nil {
			t.Errorf("%s: parser: %v", name, err)
		}
	}
}

// TestConfigSchema_RejectsUnknownKey: a key neither reads is refused by
// both, at every level.
func TestConfigSchema_RejectsUnknownKey(t *testing.T) {
	t.Parallel()
	s, _ := loadSchema(t)
	for _, doc := range []string{
		"shared-paths: [src/lib/**]\n",
		"engines:\n  - name: acme\n    author: {logins: [acme]}\n    checkrun: Acme\n",
		"engines:\n  - name: acme\n    author: {logins: [acme], login: acme}\n",
		"patterns:\n  - id: p\n    markers: [x]\n    justification: Why.\n    colour: red\n",
	} {
		if err := validateYAML(s, []byte(doc)); err == nil {
			t.Errorf("schema accepts %q", doc)
		}
		if _, err := ParseRepo([]byte(doc), configFile); err == nil {
			t.Errorf("parser accepts %q", doc)
		}
	}
}

// TestConfigSchema_EveryKeyDocumented: every property at every level of
// the schema carries a description or is a documented shape ($ref).
func TestConfigSchema_EveryKeyDocumented(t *testing.T) {
	t.Parallel()
	_, m := loadSchema(t)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		if props, ok := obj["properties"].(map[string]any); ok {
			for k, p := range props {
				pm, _ := p.(map[string]any)
				_, desc := pm["description"]
				if !desc {
					t.Errorf("%s.%s: no description", path, k)
				}
			}
		}
		for k, c := range obj {
			walk(path+"."+k, c)
		}
	}
	walk("$", m)
}
