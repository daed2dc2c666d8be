package engines

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
)

// FuzzRule_EQ3_SeverityMarkersParse: any definition text either parses
// into markers that all compile and all land on the scale, or is refused
// with an error; it never panics. What the markers read from a body is on
// the scale or unknown.
func FuzzRule_EQ3_SeverityMarkersParse(f *testing.F) {
	f.Add("engine_severity_markers:\n  bugbot:\n    - {pattern: 'High Severity', severity: high}\n", "**High Severity**")
	f.Add("engine_severity_markers:\n  claude:\n    - {pattern: '(?m)^🟡', severity: low, category: nit}\n    - {pattern: '🔴', severity: high}\n", "🟡 Nit\n🔴")
	f.Add("engine_severity_markers:\n  bugbot:\n    - {pattern: 'a(b', severity: urgent}\n", "")
	f.Add("engine_severity_markers: [1, 2]\n", "x")
	f.Add("engine_severity_markers:\n  Bad Name: 3\n", "x")
	f.Fuzz(func(t *testing.T, doc, body string) {
		ms, err := ParseSeverityMarkers([]byte(doc))
		if err != nil {
			return
		}
		for e, list := range ms {
			for _, m := range list {
				if m.re == nil || !slices.Contains(severityScale, m.Severity) {
					t.Fatalf("%s: accepted a marker that does not compile or is off the scale: %+v", e, m)
				}
			}
			if s, _ := list.Read(body); s != loop.SeverityUnknown && !slices.Contains(severityScale, s) {
				t.Fatalf("%s: read %q, off the scale", e, s)
			}
		}
	})
}
