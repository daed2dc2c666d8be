package engines

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines/defs"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file holds the Go engines' severity words as data (EQ3): what
// marks a finding's severity, and where on the one scale the clean-at
// floor compares it lands. They live in engines/defs/ beside the
// engine's texts, in the shape of a declarative definition's
// severity_markers (pattern → severity), with the engine's own category
// word where it states one.

// SeverityMarker maps a pattern found in a finding's body to the scale.
type SeverityMarker struct {
	// Pattern is a regular expression (RE2: linear in the body).
	Pattern string
	// Severity is critical, high, medium or low.
	Severity loop.Severity
	// Category is the engine's own word for the level ("nit"), or empty.
	Category string

	re *regexp.Regexp
}

// RE is the compiled pattern.
func (m SeverityMarker) RE() *regexp.Regexp { return m.re }

// SeverityMarkers are one engine's markers, in the order written.
type SeverityMarkers []SeverityMarker

// Read is the severity a finding's body states, and its category: the
// marker found earliest in the body wins, and of two found at the same
// place, the first written. A body with no marker states none: unknown,
// which the floor counts as medium.
func (ms SeverityMarkers) Read(body string) (loop.Severity, string) {
	best, at := -1, -1
	for i, m := range ms {
		if m.re == nil {
			continue
		}
		if loc := m.re.FindStringIndex(body); loc != nil && (at < 0 || loc[0] < at) {
			best, at = i, loc[0]
		}
	}
	if best < 0 {
		return loop.SeverityUnknown, ""
	}
	return ms[best].Severity, ms[best].Category
}

// The scale a marker maps to, highest first.
var severityScale = []loop.Severity{loop.SeverityCritical, loop.SeverityHigh, loop.SeverityMedium, loop.SeverityLow}

var severityMarkerKeys = []string{"pattern", "severity", "category"}

// ParseSeverityMarkers reads the `engine_severity_markers:` key of a
// definition file: per engine, a list of {pattern, severity, category}.
// Every problem is reported, each naming its field
// (`engine_severity_markers.bugbot[1].severity: …`); a severity not on
// the scale is an error.
func ParseSeverityMarkers(data []byte) (out map[string]SeverityMarkers, err error) {
	defer func() {
		// The YAML decoder panics on some malformed input: a bad file is
		// an error, never a crash.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("engine_severity_markers: the YAML could not be read (%v)", r)
		}
	}()
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("engine_severity_markers: %w", err)
	}
	v, ok := top["engine_severity_markers"]
	if !ok || v == nil {
		return map[string]SeverityMarkers{}, nil
	}
	byEngine, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("engine_severity_markers: a map of engine names")
	}
	scale := make([]string, len(severityScale))
	for i, s := range severityScale {
		scale[i] = string(s)
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	out = map[string]SeverityMarkers{}
	for _, e := range slices.Sorted(mapKeysOf(byEngine)) {
		if !textNameRE.MatchString(e) {
			bad("engine_severity_markers.%s: an engine name is lower-case letters, digits and dashes", e)
		}
		list, ok := byEngine[e].([]any)
		if !ok {
			bad("engine_severity_markers.%s: a list of markers ({pattern, severity, category})", e)
			continue
		}
		ms := SeverityMarkers{}
		for i, item := range list {
			at := fmt.Sprintf("engine_severity_markers.%s[%d]", e, i)
			fields, ok := item.(map[string]any)
			if !ok {
				bad("%s: a marker ({pattern, severity, category})", at)
				continue
			}
			for _, k := range slices.Sorted(mapKeysOf(fields)) {
				if !slices.Contains(severityMarkerKeys, k) {
					bad("%s.%s: unknown field (known: %s)", at, k, strings.Join(severityMarkerKeys, ", "))
				}
			}
			var m SeverityMarker
			m.Pattern, _ = fields["pattern"].(string)
			sev, _ := fields["severity"].(string)
			m.Severity = loop.Severity(sev)
			m.Category, _ = fields["category"].(string)
			re, err := regexp.Compile(m.Pattern)
			switch {
			case strings.TrimSpace(m.Pattern) == "":
				bad("%s.pattern: empty", at)
			case err != nil:
				bad("%s.pattern: invalid regular expression %q: %v", at, m.Pattern, err)
			default:
				m.re = re
			}
			if _, given := fields["severity"]; !given {
				bad("%s.severity: missing (one of %s)", at, strings.Join(scale, ", "))
			} else if !slices.Contains(severityScale, m.Severity) {
				bad("%s.severity: %q is not on the scale (%s)", at, fmt.Sprint(fields["severity"]), strings.Join(scale, ", "))
			}
			if _, given := fields["category"]; given && !textNameRE.MatchString(m.Category) {
				bad("%s.category: %q must be lower-case letters, digits and dashes", at, fmt.Sprint(fields["category"]))
			}
			ms = append(ms, m)
		}
		out[e] = ms
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// ApplySeverities reads the severity words a repository adds to one
// engine's mapping (EQ3) on the root comment of each of the engine's
// threads, after the adapter read its own: a marker found wins over the
// definition's words, and sets the category when it names one; a finding
// no marker of the repository's marks keeps what the adapter read.
// Findings listed in a review body (no thread) keep theirs.
func ApplySeverities(v *loop.EngineView, obs *github.Observation, ms SeverityMarkers) {
	if obs == nil || len(ms) == 0 || len(v.Findings) == 0 {
		return
	}
	roots := make(map[string]github.ReviewComment, len(obs.Threads))
	for _, t := range obs.Threads {
		if len(t.Comments) > 0 && t.NodeID != "" {
			roots[t.NodeID] = t.Comments[0]
		}
	}
	for i := range v.Findings {
		f := &v.Findings[i]
		root, ok := roots[f.ThreadID]
		if !ok || f.ThreadID == "" || root.DatabaseID != f.CommentID {
			continue
		}
		if s, cat := ms.Read(root.Body); s != loop.SeverityUnknown {
			f.Severity = s
			if cat != "" {
				f.Category = cat
			}
		}
	}
}

// BuiltinSeverityMarkers are the built-in Go engines' severity markers,
// from engines/defs/, per engine. (The declarative engines keep theirs
// in their definition's severity_markers.)
var BuiltinSeverityMarkers = sync.OnceValues(func() (map[string]SeverityMarkers, error) {
	return loadSeverityMarkers(defs.FS)
})

func loadSeverityMarkers(fsys fs.FS) (map[string]SeverityMarkers, error) {
	return loadPerEngine(fsys, "engine_severity_markers", ParseSeverityMarkers)
}

// loadPerEngine reads one per-engine section (key) of every definition
// in fsys with parse, and merges them: an engine given in two files is
// an error naming the second.
func loadPerEngine[T any](fsys fs.FS, key string, parse func([]byte) (map[string]T, error)) (map[string]T, error) {
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	out := map[string]T{}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		ms, err := parse(b)
		if err != nil {
			return nil, fmt.Errorf("built-in %s: %w", f, err)
		}
		for e, m := range ms {
			if _, dup := out[e]; dup {
				return nil, fmt.Errorf("built-in %s: %s.%s: already given in another file", f, key, e)
			}
			out[e] = m
		}
	}
	return out, nil
}

// BuiltinSeverity is the built-in severity markers of engine, for the
// adapter that reads them; it panics when the definition has none, which
// TestRule_EQ3 catches before a release can.
func BuiltinSeverity(engine string) SeverityMarkers {
	ms, err := BuiltinSeverityMarkers()
	if err != nil {
		panic(err)
	}
	if len(ms[engine]) == 0 {
		panic(fmt.Sprintf("engines/defs: %s maps no severity (engine_severity_markers)", engine))
	}
	return ms[engine]
}
