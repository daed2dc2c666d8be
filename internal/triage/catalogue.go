// Package triage sorts review findings into the tiers of rules TR1–TR4,
// keeps the per-cycle triage table (TR5), classifies comments in
// Copilot-only mode (TR6) and gives each finding the normalised category
// the no-progress detector counts (W2). It is pure: no I/O beyond parsing
// the pattern files it is handed.
package triage

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/internal/loop"
)

//go:embed catalogue.yml
var builtinYAML []byte

// Pattern is one codified finding shape: what it matches and whether a
// match may be fixed without approval (Tier 1).
type Pattern struct {
	ID       string
	Engine   string
	Category string
	Severity []loop.Severity
	Markers  []string
	// Tier1 makes a matching single-file finding eligible for auto-fix.
	Tier1 bool
	// Cosmetic marks a cosmetic-prose nit: one no-progress category per engine.
	Cosmetic bool
	// Justification is a one-sentence template; {title} is the finding's title.
	Justification string

	titleRe *regexp.Regexp
	bodyRe  *regexp.Regexp
	// titleNeedles and bodyNeedles skip the expressions on a text that
	// cannot match them (prefilter.go).
	titleNeedles, bodyNeedles needles
}

// Catalogue is the ordered list of patterns; the first match wins.
type Catalogue struct {
	Patterns []Pattern
}

type rawPattern struct {
	ID            string   `yaml:"id"`
	Engine        string   `yaml:"engine"`
	Category      string   `yaml:"category"`
	Severity      []string `yaml:"severity"`
	Markers       []string `yaml:"markers"`
	TitleRegex    string   `yaml:"title_regex"`
	BodyRegex     string   `yaml:"body_regex"`
	Tier1         bool     `yaml:"tier1"`
	Cosmetic      bool     `yaml:"cosmetic"`
	Justification string   `yaml:"justification"`
}

// PatternFields returns the keys a `patterns:` entry may have (the JSON
// Schema of the config file lists the same, checked by a test).
func PatternFields() []string { return slices.Clone(patternFields) }

var patternFields = []string{"id", "engine", "category", "severity", "markers", "title_regex", "body_regex", "tier1", "cosmetic", "justification"}

// Builtin returns the catalogue that ships with the action: a fresh
// Catalogue the caller may change, whose patterns (compiled once per
// process, not once per cycle) are shared.
func Builtin() *Catalogue {
	return &Catalogue{Patterns: slices.Clone(builtinPatterns())}
}

var builtinPatterns = sync.OnceValue(func() []Pattern {
	builtinParses.Add(1)
	c, err := ParsePatterns(builtinYAML)
	if err != nil {
		panic("triage: built-in catalogue: " + err.Error())
	}
	return c.Patterns
})

// builtinParses counts the parses of the built-in catalogue (one per
// process, on first use).
var builtinParses atomic.Int32

// LoadCatalogue returns the built-in catalogue extended by a repository's
// .github/review-loop.yml content (nil or empty: built-in only). Repository
// patterns come first, and one with a built-in id replaces it.
func LoadCatalogue(repoFile []byte) (*Catalogue, error) {
	base := Builtin()
	if len(strings.TrimSpace(string(repoFile))) == 0 {
		return base, nil
	}
	repo, err := ParsePatterns(repoFile)
	if err != nil {
		return nil, err
	}
	out := &Catalogue{Patterns: slices.Clone(repo.Patterns)}
	for _, p := range base.Patterns {
		if !slices.ContainsFunc(repo.Patterns, func(r Pattern) bool { return r.ID == p.ID }) {
			out.Patterns = append(out.Patterns, p)
		}
	}
	return out, nil
}

// ParsePatterns reads the `patterns:` key of a YAML document, ignoring
// other top-level keys. Errors name the field: `patterns[2].title_regex: …`.
func ParsePatterns(doc []byte) (*Catalogue, error) {
	var top map[string]any
	if err := yaml.Unmarshal(doc, &top); err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	rawList, ok := top["patterns"]
	if !ok || rawList == nil {
		return &Catalogue{}, nil
	}
	list, ok := rawList.([]any)
	if !ok {
		return nil, errors.New("patterns: must be a list")
	}
	c := &Catalogue{}
	var errs []error
	seen := map[string]bool{}
	for i, item := range list {
		at := fmt.Sprintf("patterns[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: must be a mapping", at))
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		bad := false
		for _, k := range keys {
			if !slices.Contains(patternFields, k) {
				errs = append(errs, fmt.Errorf("%s.%s: unknown field (known: %s)", at, k, strings.Join(patternFields, ", ")))
				bad = true
			}
		}
		if bad {
			continue
		}
		one, err := yaml.Marshal(m)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at, err))
			continue
		}
		var rp rawPattern
		if err := yaml.Unmarshal(one, &rp); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s", at, firstLine(err.Error())))
			continue
		}
		p, perrs := compile(at, rp)
		if rp.ID != "" && seen[rp.ID] {
			perrs = append(perrs, fmt.Errorf("%s.id: duplicate id %q", at, rp.ID))
		}
		seen[rp.ID] = true
		if len(perrs) > 0 {
			errs = append(errs, perrs...)
			continue
		}
		c.Patterns = append(c.Patterns, p)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

func compile(at string, rp rawPattern) (Pattern, []error) {
	var errs []error
	p := Pattern{ID: rp.ID, Engine: rp.Engine, Category: rp.Category, Markers: rp.Markers, Tier1: rp.Tier1, Cosmetic: rp.Cosmetic, Justification: strings.TrimSpace(rp.Justification)}
	if p.ID == "" {
		errs = append(errs, fmt.Errorf("%s.id: required", at))
	}
	for j, s := range rp.Severity {
		sev := loop.Severity(strings.ToLower(s))
		switch sev {
		case loop.SeverityCritical, loop.SeverityHigh, loop.SeverityMedium, loop.SeverityLow, loop.SeverityUnknown:
			p.Severity = append(p.Severity, sev)
		default:
			errs = append(errs, fmt.Errorf("%s.severity[%d]: unknown severity %q (critical, high, medium, low, unknown)", at, j, s))
		}
	}
	var err error
	if rp.TitleRegex != "" {
		if p.titleRe, err = regexp.Compile("(?i)" + rp.TitleRegex); err != nil {
			errs = append(errs, fmt.Errorf("%s.title_regex: %w", at, err))
		}
		p.titleNeedles = needlesOf("(?i)" + rp.TitleRegex)
	}
	if rp.BodyRegex != "" {
		if p.bodyRe, err = regexp.Compile("(?i)" + rp.BodyRegex); err != nil {
			errs = append(errs, fmt.Errorf("%s.body_regex: %w", at, err))
		}
		p.bodyNeedles = needlesOf("(?i)" + rp.BodyRegex)
	}
	if len(p.Markers) == 0 && rp.TitleRegex == "" && rp.BodyRegex == "" {
		errs = append(errs, fmt.Errorf("%s: needs markers, title_regex or body_regex", at))
	}
	if p.Justification == "" {
		errs = append(errs, fmt.Errorf("%s.justification: required (one sentence, rule TR4)", at))
	} else if strings.ContainsAny(p.Justification, "\n") {
		errs = append(errs, fmt.Errorf("%s.justification: must be one sentence on one line", at))
	}
	return p, errs
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Matches reports whether the pattern matches the finding: every field the
// pattern sets must hold (any one of its markers is enough).
func (p *Pattern) Matches(f loop.Finding) bool {
	return p.matches(&f, &foldedText{f: &f})
}

// foldedText is a finding's title and body after foldCase, worked out on
// first use and shared by the patterns of a catalogue.
type foldedText struct {
	f                           *loop.Finding
	title, body, lower          string
	hasTitle, hasBody, hasLower bool
}

// lowerBody is the body in lower case, for the markers.
func (t *foldedText) lowerBody() string {
	if !t.hasLower {
		t.lower, t.hasLower = strings.ToLower(t.f.Body), true
	}
	return t.lower
}

func (t *foldedText) foldedTitle() string {
	if !t.hasTitle {
		t.title, t.hasTitle = foldCase(t.f.Title), true
	}
	return t.title
}

func (t *foldedText) foldedBody() string {
	if !t.hasBody {
		t.body, t.hasBody = foldCase(t.f.Body), true
	}
	return t.body
}

func (p *Pattern) matches(f *loop.Finding, folded *foldedText) bool {
	if p.Engine != "" && !strings.EqualFold(p.Engine, f.Engine) {
		return false
	}
	if p.Category != "" && !strings.EqualFold(p.Category, f.Category) {
		return false
	}
	if len(p.Severity) > 0 && !slices.Contains(p.Severity, f.Severity) {
		return false
	}
	if len(p.Markers) > 0 {
		body := folded.lowerBody()
		if !slices.ContainsFunc(p.Markers, func(m string) bool { return strings.Contains(body, strings.ToLower(m)) }) {
			return false
		}
	}
	if p.titleRe != nil && (p.titleNeedles != nil && !p.titleNeedles.mayMatch(folded.foldedTitle()) || !p.titleRe.MatchString(f.Title)) {
		return false
	}
	if p.bodyRe != nil && (p.bodyNeedles != nil && !p.bodyNeedles.mayMatch(folded.foldedBody()) || !p.bodyRe.MatchString(f.Body)) {
		return false
	}
	return true
}

// Match returns the first pattern matching the finding, or nil.
func (c *Catalogue) Match(f loop.Finding) *Pattern {
	return c.match(&f, &foldedText{f: &f})
}

func (c *Catalogue) match(f *loop.Finding, folded *foldedText) *Pattern {
	if c == nil {
		return nil
	}
	for i := range c.Patterns {
		if c.Patterns[i].matches(f, folded) {
			return &c.Patterns[i]
		}
	}
	return nil
}

// Justify fills the pattern's template with the finding's title; an empty
// title gives no justification (TR4).
func (p *Pattern) Justify(f loop.Finding) string {
	title := sentenceTitle(f.Title)
	if title == "" || p.Justification == "" {
		return ""
	}
	return strings.ReplaceAll(p.Justification, "{title}", title)
}

// sentenceTitle makes a title fit inside one sentence: one line, no
// markdown emphasis, no trailing period.
func sentenceTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	t = strings.Trim(t, "*_#` ")
	t = strings.TrimRight(t, ".!?:; ")
	if len(t) > 160 {
		t = strings.TrimSpace(t[:157]) + "..."
	}
	return t
}
