// Package declarative builds engine adapters from YAML definitions: the
// built-in ones (engines/defs: gemini, coderabbit) and any a repository adds
// under `engines:` in .github/review-loop.yml.
package declarative

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
	"github.com/review-loop/review-loop/internal/loop"
)

// Definition is one declarative engine, as written in YAML.
type Definition struct {
	// Name is the engine name (lower case letters, digits and dashes).
	Name string `yaml:"name"`
	// Author is the engine's bot account: logins (either spelling) and/or id.
	Author AuthorDef `yaml:"author"`
	// AllowUserAuthor lets a non-bot account be the engine (IN7). By default
	// only a bot with the author's login (and id, when known) is the engine,
	// so a user who registers the engine's login cannot post its findings.
	AllowUserAuthor bool `yaml:"allow_user_author"`
	// CheckRun is the name of the engine's check run; empty means none, and
	// completion is then a review on the head SHA.
	CheckRun string `yaml:"check_run"`
	// StatusContext is the name of the commit status the engine may
	// report its review with instead of a check run (CodeRabbit); read
	// only when no check run of the engine is on the head.
	StatusContext string `yaml:"status_context"`
	// CheckRunApp optionally restricts the check run to one app slug.
	CheckRunApp string `yaml:"check_run_app"`
	// Trigger is the trigger comment text; empty means push-only.
	Trigger string `yaml:"trigger"`
	// AcceptsBotTrigger says whether the engine honours the trigger comment
	// when a bot or app posts it; when false a user token is needed.
	AcceptsBotTrigger bool `yaml:"accepts_bot_trigger"`
	// SeverityMarkers map a regular expression found in a finding body to
	// a severity; the first match wins, no match is unknown.
	SeverityMarkers []SeverityMarker `yaml:"severity_markers"`
	// IDMarker is a regular expression whose first group is the finding's
	// stable key (Finding.Key).
	IDMarker string `yaml:"id_marker"`
	// TitleMarker is a regular expression whose first group is the title;
	// the first prose line when empty.
	TitleMarker string `yaml:"title_marker"`
	// CategoryMarker is a regular expression whose first group is the
	// finding's category.
	CategoryMarker string `yaml:"category_marker"`
	// CleanPhrases are the engine's "nothing found" wordings, reported but
	// never used to declare clean (S3).
	CleanPhrases []string `yaml:"clean_phrases"`
	// SummaryCount is a regular expression whose first group is the number
	// of findings a review body announces.
	SummaryCount string `yaml:"summary_count"`
	// ErrorPhrases mark a review, comment or check run as the engine
	// failing: ERRORED, never clean.
	ErrorPhrases []string `yaml:"error_phrases"`
	// QuotaPhrases mark a comment or check run newer than the engine's
	// last review as a usage, rate or quota limit: ERRORED with reason
	// quota and the engine's own words, not retriggered during the wait
	// (S7, T8).
	QuotaPhrases []string `yaml:"quota_phrases"`
	// QuotaWaits are regular expressions whose first group is the wait a
	// quota notice states ("55 minutes and 34 seconds"); none matching
	// means the loop's default cooldown.
	QuotaWaits []string `yaml:"quota_waits"`
	// UnprovenPhrases mark a comment or check run newer than the engine's
	// last review as completing without a review ("Review skipped"):
	// never clean (S7).
	UnprovenPhrases []string `yaml:"unproven_phrases"`
	// PausePhrases mark a comment of the engine as its reviews being
	// paused (CodeRabbit's "Reviews paused" after N reviewed commits): with
	// nothing on the head, the engine is PAUSED, not pending, and the loop
	// asks for one review with Trigger, never resumes it (ST6).
	PausePhrases []string `yaml:"pause_phrases"`
	// Incremental engines do not re-post still-present findings: their
	// unresolved threads stay active across reviews (ST5).
	Incremental bool `yaml:"incremental"`
	// ReviewsPushes says the engine reviews every push by itself; an
	// engine that does not and cannot be triggered says so on the status
	// comment.
	ReviewsPushes bool `yaml:"reviews_pushes"`
	// Kinds are the kinds of post the engine is known to make, each a
	// pattern on one surface (review, comment, check). Those with proof
	// true are the finished reviews (S8): only a review of the head whose
	// body matches one of them lets the engine be CLEAN, and each names
	// the real sample (testdata/engines/<engine>/<file>) that shows it. An
	// engine with no proof kind is never CLEAN.
	Kinds []KindDef `yaml:"kinds"`
	// ReviewedCommit is a regular expression whose last matching group is
	// the commit (full or abbreviated) a review body says it reviewed
	// ("between <sha> and <sha>"); when it names another commit than the
	// head, the review is not of the head (S8).
	ReviewedCommit string `yaml:"reviewed_commit"`
	// SummaryCommits are regular expressions whose first group is the full
	// SHA of the commit a summary comment of the engine says its finished
	// review covered (CodeRabbit's recent-review block "between <a> and
	// <head>", its final_review_risk_coverage marker). With the engine's
	// check run concluded successfully on the head, a summary naming the
	// head is output bound to the head (S10).
	SummaryCommits []string `yaml:"summary_commits"`
	// RunningMarkers are regular expressions that mark a comment of the
	// engine as a review still running (CodeRabbit's in-progress
	// walkthrough, its full-review fallback notice): the engine is
	// RUNNING, never proven, while the comment is its newest word. When
	// the expression has a group, it is the commit the running review is
	// of, and only one naming the head counts.
	RunningMarkers []string `yaml:"running_markers"`
	// BodySections are the review-body sections that list findings not
	// posted as threads (CodeRabbit's outside-diff, nitpick and duplicate
	// comments); their items are findings with no thread.
	BodySections []BodySectionDef `yaml:"body_sections"`
}

// KindDef is one kind of post of an engine (S8, S9).
type KindDef struct {
	Kind    string `yaml:"kind"`
	Surface string `yaml:"surface"`
	Pattern string `yaml:"pattern"`
	Proof   bool   `yaml:"proof"`
	Sample  string `yaml:"sample"`
	// Exception marks a comment kind that says the engine did not review
	// what was asked (a refusal): newer than the engine's head-bound
	// output, it withholds the proof by structure (S10).
	Exception bool `yaml:"exception"`
}

// AuthorDef is an engine's bot account in a definition.
type AuthorDef struct {
	Logins []string `yaml:"logins"`
	ID     int64    `yaml:"id"`
}

// SeverityMarker maps a body pattern to a severity.
type SeverityMarker struct {
	Pattern  string `yaml:"pattern"`
	Severity string `yaml:"severity"`
}

var (
	nameRE     = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)
	kindNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)
	fieldKeys  = []string{"name", "author", "allow_user_author", "check_run", "check_run_app", "trigger", "accepts_bot_trigger", "severity_markers", "id_marker", "title_marker", "category_marker", "clean_phrases", "summary_count", "error_phrases", "quota_phrases", "quota_waits", "unproven_phrases", "pause_phrases", "incremental", "reviews_pushes", "body_sections", "kinds", "reviewed_commit", "summary_commits", "running_markers", "status_context"}
)

// ParseDefinitions reads the `engines:` list of a YAML document (other
// top-level keys are ignored) and validates every definition. Every problem
// is reported, each naming its field (`engines[1].check_run: …`).
func ParseDefinitions(data []byte) ([]Definition, error) {
	var raw struct {
		Engines []map[string]any `yaml:"engines"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("engines: %w", err)
	}
	var typed struct {
		Engines []Definition `yaml:"engines"`
	}
	if err := yaml.Unmarshal(data, &typed); err != nil {
		return nil, fmt.Errorf("engines: %w", err)
	}
	var errs []error
	seen := map[string]int{}
	for i, m := range raw.Engines {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !slices.Contains(fieldKeys, k) {
				errs = append(errs, fmt.Errorf("engines[%d].%s: unknown field (known: %s)", i, k, strings.Join(fieldKeys, ", ")))
			}
		}
	}
	for i, d := range typed.Engines {
		for _, err := range d.validate() {
			errs = append(errs, fmt.Errorf("engines[%d].%w", i, err))
		}
		if j, dup := seen[d.Name]; dup && d.Name != "" {
			errs = append(errs, fmt.Errorf("engines[%d].name: %q already defined by engines[%d]", i, d.Name, j))
		}
		seen[d.Name] = i
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return typed.Engines, nil
}

func (d Definition) validate() []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{field}, args...)...))
	}
	if !nameRE.MatchString(d.Name) {
		bad("name", "%q must be lower-case letters, digits and dashes, starting with a letter", d.Name)
	}
	if len(d.Author.Logins) == 0 && d.Author.ID == 0 {
		bad("author", "needs logins or id")
	}
	if d.Author.ID < 0 {
		bad("author.id", "must be positive")
	}
	for j, l := range d.Author.Logins {
		if strings.TrimSpace(l) == "" {
			bad(fmt.Sprintf("author.logins[%d]", j), "empty login")
		}
	}
	if d.CheckRunApp != "" && d.CheckRun == "" {
		bad("check_run", "required when check_run_app is set")
	}
	if strings.ContainsAny(d.StatusContext, "\n\r") {
		bad("status_context", "must be one line")
	}
	if strings.ContainsAny(d.CheckRun, "\n\r") {
		bad("check_run", "must be one line")
	}
	if strings.ContainsAny(d.Trigger, "\n\r") {
		bad("trigger", "must be one line")
	}
	for j, m := range d.SeverityMarkers {
		if _, err := compile(m.Pattern); err != nil || m.Pattern == "" {
			bad(fmt.Sprintf("severity_markers[%d].pattern", j), "invalid regular expression %q: %v", m.Pattern, err)
		}
		switch loop.Severity(m.Severity) {
		case loop.SeverityCritical, loop.SeverityHigh, loop.SeverityMedium, loop.SeverityLow:
		default:
			bad(fmt.Sprintf("severity_markers[%d].severity", j), "%q is not one of critical, high, medium, low", m.Severity)
		}
	}
	for _, f := range []struct{ name, re string }{{"id_marker", d.IDMarker}, {"title_marker", d.TitleMarker}, {"category_marker", d.CategoryMarker}, {"summary_count", d.SummaryCount}} {
		if f.re == "" {
			continue
		}
		re, err := compile(f.re)
		if err != nil {
			bad(f.name, "invalid regular expression %q: %v", f.re, err)
		} else if re.NumSubexp() < 1 {
			bad(f.name, "%q needs a capture group", f.re)
		}
	}
	for j, re := range d.QuotaWaits {
		if c, err := compile(re); err != nil {
			bad(fmt.Sprintf("quota_waits[%d]", j), "invalid regular expression %q: %v", re, err)
		} else if c.NumSubexp() < 1 {
			bad(fmt.Sprintf("quota_waits[%d]", j), "%q needs a capture group", re)
		}
	}
	for j, p := range append(append([]string{}, d.QuotaPhrases...), d.UnprovenPhrases...) {
		if strings.TrimSpace(p) == "" {
			field := "quota_phrases"
			if j >= len(d.QuotaPhrases) {
				field, j = "unproven_phrases", j-len(d.QuotaPhrases)
			}
			bad(fmt.Sprintf("%s[%d]", field, j), "empty phrase")
		}
	}
	for j, p := range d.PausePhrases {
		if strings.TrimSpace(p) == "" {
			bad(fmt.Sprintf("pause_phrases[%d]", j), "empty phrase")
		}
	}
	if len(d.PausePhrases) > 0 && d.Trigger == "" {
		bad("pause_phrases", "a paused engine is asked for one review with its trigger: set trigger")
	}
	for j, k := range d.Kinds {
		at := fmt.Sprintf("kinds[%d]", j)
		if !kindNameRE.MatchString(k.Kind) || k.Kind == "unknown" {
			bad(at+".kind", "%q must be lower-case letters, digits and dashes (and not \"unknown\")", k.Kind)
		}
		switch k.Surface {
		case "review", "comment", "check":
		default:
			bad(at+".surface", "%q is not one of review, comment, check", k.Surface)
		}
		if _, err := compile(k.Pattern); err != nil || k.Pattern == "" {
			bad(at+".pattern", "invalid regular expression %q: %v", k.Pattern, err)
		}
		if k.Proof && (k.Surface != "review" || strings.TrimSpace(k.Sample) == "") {
			bad(at+".proof", "a finished-review kind must be on surface review and name its real sample")
		}
	}
	if d.ReviewedCommit != "" {
		if re, err := compile(d.ReviewedCommit); err != nil {
			bad("reviewed_commit", "invalid regular expression %q: %v", d.ReviewedCommit, err)
		} else if re.NumSubexp() < 1 {
			bad("reviewed_commit", "%q needs a capture group", d.ReviewedCommit)
		}
	}
	for _, l := range []struct {
		name string
		res  []string
		need bool
	}{{"summary_commits", d.SummaryCommits, true}, {"running_markers", d.RunningMarkers, false}} {
		for j, re := range l.res {
			if c, err := compile(re); err != nil || re == "" {
				bad(fmt.Sprintf("%s[%d]", l.name, j), "invalid regular expression %q: %v", re, err)
			} else if l.need && c.NumSubexp() < 1 {
				bad(fmt.Sprintf("%s[%d]", l.name, j), "%q needs a capture group (the commit's full SHA)", re)
			}
		}
	}
	for j, sec := range d.BodySections {
		at := fmt.Sprintf("body_sections[%d]", j)
		if strings.TrimSpace(sec.Heading) == "" || strings.ContainsAny(sec.Heading, "\n\r") {
			bad(at+".heading", "one non-empty line required")
		}
		switch sec.Kind {
		case SectionFinding, SectionDuplicate, SectionPraise:
		default:
			bad(at+".kind", "%q is not one of finding, duplicate, praise", sec.Kind)
		}
		switch loop.Severity(sec.Severity) {
		case "", loop.SeverityCritical, loop.SeverityHigh, loop.SeverityMedium, loop.SeverityLow:
		default:
			bad(at+".severity", "%q is not one of critical, high, medium, low", sec.Severity)
		}
		for k, c := range sec.Confirmations {
			if strings.TrimSpace(c) == "" {
				bad(fmt.Sprintf("%s.confirmations[%d]", at, k), "empty phrase")
			}
		}
	}
	for j, p := range append(append([]string{}, d.CleanPhrases...), d.ErrorPhrases...) {
		if strings.TrimSpace(p) == "" {
			field := "clean_phrases"
			if j >= len(d.CleanPhrases) {
				field, j = "error_phrases", j-len(d.CleanPhrases)
			}
			bad(fmt.Sprintf("%s[%d]", field, j), "empty phrase")
		}
	}
	return errs
}

// compile compiles a definition's regular expression once per process:
// every cycle validates the definitions and builds their engines (New),
// and the expressions are the same each time. A regexp.Regexp is safe
// for concurrent use; the cache holds one entry per distinct expression
// (the built-in definitions' and a repository's own).
func compile(re string) (*regexp.Regexp, error) {
	if c, ok := compiled.Load(re); ok {
		return c.(*regexp.Regexp), nil
	}
	c, err := regexp.Compile(re)
	if err != nil {
		return nil, err
	}
	compiled.Store(re, c)
	return c, nil
}

var compiled sync.Map // expression → *regexp.Regexp

// mustCompile is compile for an expression validate has accepted.
func mustCompile(re string) *regexp.Regexp {
	c, err := compile(re)
	if err != nil {
		panic(err)
	}
	return c
}

// Builtin returns the embedded definitions (gemini, coderabbit), sorted by
// name: parsed once per process; the slice is the caller's, the
// definitions' own slices are shared and must not be changed.
func Builtin() ([]Definition, error) {
	defs, err := builtinDefs()
	return slices.Clone(defs), err
}

var builtinDefs = sync.OnceValues(func() ([]Definition, error) {
	files, err := fs.Glob(defs.FS, "*.yaml")
	if err != nil {
		return nil, err
	}
	var out []Definition
	for _, f := range files {
		b, err := defs.FS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ds, err := ParseDefinitions(b)
		if err != nil {
			return nil, fmt.Errorf("built-in %s: %w", f, err)
		}
		out = append(out, ds...)
	}
	slices.SortFunc(out, func(a, b Definition) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
})
