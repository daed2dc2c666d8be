package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/review-loop/review-loop/docs"
)

// This file finds unknown keys at every depth of the repository config
// file by walking it beside docs/review-loop.schema.json, so that a typo
// three levels down (`engines[0].author.login`) is named by its path
// like a typo at the top.

// schemaNode is the part of a JSON schema the walk reads.
type schemaNode struct {
	Ref                  string                 `json:"$ref"`
	Properties           map[string]*schemaNode `json:"properties"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
	Defs                 map[string]*schemaNode `json:"$defs"`
}

var configSchema = sync.OnceValues(func() (*schemaNode, error) {
	var root schemaNode
	if err := json.Unmarshal(docs.ConfigSchema, &root); err != nil {
		return nil, fmt.Errorf("docs/review-loop.schema.json: %w", err)
	}
	return &root, nil
})

// unknownKeys lists every key of doc under the given top-level keys that
// the schema does not allow, one line each: `PATH: unknown key (did you
// mean K? known: …)`.
func unknownKeys(doc map[string]any, under ...string) []string {
	root, err := configSchema()
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, k := range under {
		if v, ok := doc[k]; ok {
			out = append(out, walkKeys(root, root.Properties[k], v, k)...)
		}
	}
	return out
}

func walkKeys(root, s *schemaNode, v any, path string) []string {
	s = resolve(root, s)
	if s == nil {
		return nil
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		closed := string(s.AdditionalProperties) == "false"
		var extra *schemaNode
		if len(s.AdditionalProperties) > 0 && !closed {
			extra = new(schemaNode)
			if json.Unmarshal(s.AdditionalProperties, extra) != nil {
				extra = nil
			}
		}
		known := slices.Sorted(maps.Keys(s.Properties))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			at := path + "." + k
			switch p, ok := s.Properties[k]; {
			case ok:
				out = append(out, walkKeys(root, p, x[k], at)...)
			case closed:
				out = append(out, unknownKeyLine(at, k, known))
			case extra != nil:
				out = append(out, walkKeys(root, extra, x[k], at)...)
			}
		}
	case []any:
		for i, item := range x {
			out = append(out, walkKeys(root, s.Items, item, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

// resolve follows a local $ref (#/$defs/NAME).
func resolve(root, s *schemaNode) *schemaNode {
	for s != nil && s.Ref != "" {
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		if !ok {
			return nil
		}
		s = root.Defs[name]
	}
	return s
}

func unknownKeyLine(path, key string, known []string) string {
	if s := didYouMean(key, known); s != "" {
		return fmt.Sprintf("%s: unknown key (did you mean %s? known: %s)", path, s, strings.Join(known, ", "))
	}
	return fmt.Sprintf("%s: unknown key (known: %s)", path, strings.Join(known, ", "))
}
