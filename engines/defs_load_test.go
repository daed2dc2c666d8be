package engines

import (
	"strings"
	"testing"
	"testing/fstest"
)

// S12, EQ3: the built-in definitions are one set. An engine whose words
// or severities two files give is an error naming the second file and the
// section, never one silently winning over the other.
func TestRule_S12_AnEngineGivenInTwoDefinitionsIsAnError(t *testing.T) {
	t.Parallel()
	const texts = "engine_texts:\n  bugbot:\n    quota:\n      - kind: out-of-credits\n        surface: any\n        pattern: 'out of credits'\n"
	const marks = "engine_severity_markers:\n  bugbot:\n    - pattern: 'High'\n      severity: high\n"
	for _, tc := range []struct {
		key  string
		body string
		load func(fstest.MapFS) error
	}{
		{"engine_texts", texts, func(fs fstest.MapFS) error {
			_, err := loadPerEngine(fs, "engine_texts", func(b []byte) (map[string][]TextPattern, error) { return ParseEngineTexts(b, OriginBuiltin) })
			return err
		}},
		{"engine_severity_markers", marks, func(fs fstest.MapFS) error { _, err := loadSeverityMarkers(fs); return err }},
	} {
		one := fstest.MapFS{"a.yaml": {Data: []byte(tc.body)}}
		if err := tc.load(one); err != nil {
			t.Fatalf("%s in one file: %v", tc.key, err)
		}
		two := fstest.MapFS{"a.yaml": {Data: []byte(tc.body)}, "b.yaml": {Data: []byte(tc.body)}}
		err := tc.load(two)
		if err == nil || !strings.Contains(err.Error(), "built-in b.yaml: "+tc.key+".bugbot: already given in another file") {
			t.Errorf("%s in two files: %v, want an error naming b.yaml", tc.key, err)
		}
	}
}
