package engines

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/review-loop/review-loop/engines/defs"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file holds the engines' words as data (S12): the built-in Go
// engines' proof and exception patterns, loaded from engines/defs/ and
// checked like a repository-defined engine, and the phrases a
// repository's config adds per engine. Adapters read structure; these
// read words.

// TextClass is what a pattern of an engine's words says.
type TextClass string

// Text classes. Proof is a finished review; every other class is an
// exception, and an exception always wins over proof.
const (
	TextProof       TextClass = "proof"
	TextQuota       TextClass = "quota"
	TextError       TextClass = "error"
	TextSkip        TextClass = "skip"
	TextPause       TextClass = "pause"
	TextInProgress  TextClass = "in-progress"
	TextPlaceholder TextClass = "placeholder"
	TextRefusal     TextClass = "refusal"
)

// TextClasses lists every class, proof first.
var TextClasses = []TextClass{TextProof, TextQuota, TextError, TextSkip, TextPause, TextInProgress, TextPlaceholder, TextRefusal}

// TextPattern is one pattern of an engine's words: a regular expression
// with the kind of post it recognises, or a plain phrase (a repository's).
type TextPattern struct {
	Class TextClass
	// Kind names the post it recognises ("review-clean"); a built-in proof
	// kind is one of the adapter's finished-review kinds (S8).
	Kind string
	// Surface is where the post is: review, comment, check, inline or any.
	Surface string
	// Pattern is a regular expression (RE2: linear in the text); Phrase a
	// plain text matched as written. Exactly one is set.
	Pattern string
	Phrase  string
	// Sample is the real sample that shows a built-in proof kind,
	// "<engine>/<file>" under testdata/engines (S9).
	Sample string
	// Origin is "built-in" or "repository".
	Origin string

	re *regexp.Regexp
}

// RE is the compiled pattern; nil for a phrase.
func (p TextPattern) RE() *regexp.Regexp { return p.re }

// Text is the pattern or the phrase, as written.
func (p TextPattern) Text() string { return cmpOr(p.Pattern, p.Phrase) }

// find reports where p matches text, or -1.
func (p TextPattern) find(text string) int {
	if p.re != nil {
		if m := p.re.FindStringIndex(text); m != nil {
			return m[0]
		}
		return -1
	}
	if p.Phrase == "" {
		return -1
	}
	return strings.Index(text, p.Phrase)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Origins of a text.
const (
	OriginBuiltin    = "built-in"
	OriginRepository = "repository"
)

var (
	textPatternKeys = []string{"kind", "surface", "pattern", "sample"}
	textSurfaces    = []string{"review", "comment", "check", "inline", "any"}
)

// maxPhrase bounds a phrase: a sentence, not a document.
const maxPhrase = 200

// ParseEngineTexts reads the `engine_texts:` key of a YAML document, the
// same shape in engines/defs/ and in a repository's config: per engine,
// per class, a list of entries, each a pattern ({kind, surface, pattern,
// sample}) or a plain phrase. Built-in texts are patterns, each with its
// kind and surface, and a proof kind names its real sample (S9). A
// repository adds phrases or patterns to any class (proof, quota, error
// and skip above all). Every problem is reported, each naming its field
// (`engine_texts.bugbot.proof[1].pattern: …`); engine names are checked
// against the registry by the caller.
func ParseEngineTexts(data []byte, origin string) (out map[string][]TextPattern, err error) {
	defer func() {
		// The YAML decoder panics on some malformed input (found by
		// FuzzRule_S12_EngineTextsParse): a bad file is an error, never a
		// crash.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("engine_texts: the YAML could not be read (%v)", r)
		}
	}()
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("engine_texts: %w", err)
	}
	var raw struct{ Texts map[string]map[string][]any }
	if v, ok := top["engine_texts"]; ok && v != nil {
		engines, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("engine_texts: a map of engine names")
		}
		raw.Texts = map[string]map[string][]any{}
		for e, cv := range engines {
			classes, ok := cv.(map[string]any)
			if !ok && cv != nil {
				return nil, fmt.Errorf("engine_texts.%s: a map of classes", e)
			}
			raw.Texts[e] = map[string][]any{}
			for c, lv := range classes {
				list, ok := lv.([]any)
				if !ok && lv != nil {
					return nil, fmt.Errorf("engine_texts.%s.%s: a list of phrases or patterns", e, c)
				}
				raw.Texts[e][c] = list
			}
		}
	}
	names := make([]string, len(TextClasses))
	for i, c := range TextClasses {
		names[i] = string(c)
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	out = map[string][]TextPattern{}
	for _, e := range slices.Sorted(mapKeysOf(raw.Texts)) {
		if !textNameRE.MatchString(e) {
			bad("engine_texts.%s: an engine name is lower-case letters, digits and dashes", e)
		}
		kinds := map[string]bool{}
		for _, c := range slices.Sorted(mapKeysOf(raw.Texts[e])) {
			if !slices.Contains(names, c) {
				bad("engine_texts.%s.%s: unknown class (known: %s)", e, c, strings.Join(names, ", "))
				continue
			}
			for i, item := range raw.Texts[e][c] {
				at := fmt.Sprintf("engine_texts.%s.%s[%d]", e, c, i)
				p := TextPattern{Class: TextClass(c), Origin: origin}
				switch v := item.(type) {
				case string:
					p.Phrase, p.Surface = v, "any"
					switch {
					case origin == OriginBuiltin:
						bad("%s: a built-in text is a pattern with its kind and surface", at)
					case strings.TrimSpace(v) == "":
						bad("%s: empty phrase", at)
					case strings.ContainsAny(v, "\n\r"):
						bad("%s: a phrase is one line", at)
					case len([]rune(v)) > maxPhrase:
						bad("%s: longer than %d characters", at, maxPhrase)
					}
				case map[string]any:
					for _, k := range slices.Sorted(mapKeysOf(v)) {
						if !slices.Contains(textPatternKeys, k) {
							bad("%s.%s: unknown field (known: %s)", at, k, strings.Join(textPatternKeys, ", "))
						}
					}
					p.Kind, _ = v["kind"].(string)
					p.Surface, _ = v["surface"].(string)
					p.Pattern, _ = v["pattern"].(string)
					p.Sample, _ = v["sample"].(string)
					if p.Surface == "" && origin != OriginBuiltin {
						p.Surface = "any"
					}
					if !textNameRE.MatchString(p.Kind) || p.Kind == KindUnknown {
						bad("%s.kind: %q must be lower-case letters, digits and dashes (and not \"unknown\")", at, p.Kind)
					} else if kinds[p.Kind] {
						bad("%s.kind: %q appears twice for %s", at, p.Kind, e)
					}
					kinds[p.Kind] = true
					if !slices.Contains(textSurfaces, p.Surface) {
						bad("%s.surface: %q is not one of %s", at, p.Surface, strings.Join(textSurfaces, ", "))
					}
					re, err := regexp.Compile(p.Pattern)
					switch {
					case strings.TrimSpace(p.Pattern) == "":
						bad("%s.pattern: empty", at)
					case err != nil:
						bad("%s.pattern: invalid regular expression %q: %v", at, p.Pattern, err)
					default:
						p.re = re
					}
					if origin == OriginBuiltin && p.Class == TextProof && (strings.TrimSpace(p.Sample) == "" || p.Surface == "any") {
						bad("%s: a finished-review kind names its surface and its real sample (S9)", at)
					}
				default:
					bad("%s: a phrase or a pattern ({kind, surface, pattern})", at)
				}
				out[e] = append(out[e], p)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

var textNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

func mapKeysOf[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// BuiltinTexts are the built-in engines' texts, from engines/defs/,
// per engine.
var BuiltinTexts = sync.OnceValues(func() (map[string][]TextPattern, error) {
	// The severity markers beside the texts load and are checked with
	// them (EQ3): a bad mapping is a definition that does not load.
	if _, err := BuiltinSeverityMarkers(); err != nil {
		return nil, err
	}
	return loadPerEngine(defs.FS, "engine_texts", func(b []byte) (map[string][]TextPattern, error) {
		return ParseEngineTexts(b, OriginBuiltin)
	})
})

// BuiltinText is the built-in pattern of engine's kind, for the adapter
// that reads those words; it panics when the definition has none, which
// TestRule_S12 catches before a release can.
func BuiltinText(engine, kind string) *regexp.Regexp {
	ts, err := BuiltinTexts()
	if err != nil {
		panic(err)
	}
	for _, p := range ts[engine] {
		if p.Kind == kind {
			return p.re
		}
	}
	panic(fmt.Sprintf("engines/defs: %s has no text of kind %q", engine, kind))
}

// Authored is implemented by adapters that say which account is the
// engine, so that what a repository adds to its words can be read on the
// engine's own posts only.
type Authored interface {
	EngineAuthor() Author
}

// KindRepositoryProof is the proof kind of a review of the head that a
// repository's proof phrase recognises (S12).
const KindRepositoryProof = "repository-proof"

// ApplyTexts reads the patterns a repository adds to one engine's words
// (S12) on what the engine posted for the head, once its signal is in:
// the head review's body, its comments since, and its check run's text.
// An exception always wins: quota, then skip, then error mark the engine
// in quota, not proven or errored, and drop any proof. A proof pattern
// proves only a review of the head, by the engine, whose material the
// adapter found readable and no exception marks: it never lifts an
// exception the adapter found, and never proves another commit.
//
// With nothing on the head yet, a pause text in the engine's comments
// makes it PAUSED (ST6).
func ApplyTexts(v *loop.EngineView, obs *github.Observation, author Author, ps []TextPattern) {
	if obs == nil || len(ps) == 0 {
		return
	}
	if v.Signal == loop.SignalNone && v.Paused == "" {
		for _, p := range ps {
			if p.Class != TextPause {
				continue
			}
			for _, c := range IssueCommentsBy(obs, author) {
				if i := p.find(c.Body); i >= 0 && (p.Surface == "any" || p.Surface == "comment") {
					v.Paused = fmt.Sprintf("%s paused its reviews («%s», the repository's pause text): it reviews no push until asked for one review; review-loop never resumes its automatic reviews (ST6)",
						v.Engine, lineAt(c.Body, i))
					return
				}
			}
		}
	}
	if v.Signal != loop.SignalDone {
		return
	}
	var head *github.Review
	for _, r := range ReviewsBy(obs, author) {
		if r.CommitSHA == obs.HeadSHA {
			head = &r
		}
	}
	type post struct {
		text    string
		at      time.Time
		surface string
	}
	var posts []post
	var since time.Time
	if head != nil {
		posts, since = append(posts, post{head.Body, head.SubmittedAt, "review"}), head.SubmittedAt
	} else if !v.SignalStartedAt.IsZero() {
		since = v.SignalStartedAt
	}
	for _, c := range IssueCommentsBy(obs, author) {
		if !c.UpdatedAt.Before(since) {
			posts = append(posts, post{c.Body, c.UpdatedAt, "comment"})
		}
	}
	for _, cr := range obs.CheckRuns {
		if v.SignalID != 0 && cr.DatabaseID == v.SignalID {
			posts = append(posts, post{cr.Title + "\n" + cr.Summary + "\n" + cr.Text, cr.CompletedAt, "check"})
		}
	}
	on := func(p TextPattern, surface string) bool { return p.Surface == "any" || p.Surface == surface }
	for _, c := range []TextClass{TextQuota, TextSkip, TextError} {
		for _, p := range ps {
			if p.Class != c {
				continue
			}
			for _, post := range posts {
				i := -1
				if on(p, post.surface) {
					i = p.find(post.text)
				}
				if i < 0 {
					continue
				}
				line := lineAt(post.text, i)
				v.Proof, v.Unproven = nil, post.text
				switch c {
				case TextQuota:
					v.Material, v.MaterialNote = loop.MaterialQuota, v.Engine+": "+line
					v.Quota = &loop.QuotaNotice{At: post.at, Text: line}
				case TextSkip:
					v.Material, v.MaterialNote = loop.MaterialUnproven, v.Engine+" did not review: "+line+" (the repository's skip text)"
				case TextError:
					v.Material, v.MaterialNote = loop.MaterialErrored, fmt.Sprintf("%s reported %q (the repository's error text)", v.Engine, line)
				}
				return
			}
		}
	}
	// Not a finished review: in progress, a placeholder, a refusal, a
	// pause. The engine keeps its state; only its proof goes (S8).
	for _, p := range ps {
		switch p.Class {
		case TextProof, TextQuota, TextSkip, TextError:
			continue
		}
		for _, post := range posts {
			if on(p, post.surface) && p.find(post.text) >= 0 {
				v.Proof, v.Unproven = nil, post.text
				return
			}
		}
	}
	if head == nil || v.Material != loop.MaterialOK || loop.Proven(*v, obs.HeadSHA) {
		return
	}
	for _, p := range ps {
		if p.Class == TextProof && on(p, "review") && p.find(head.Body) >= 0 {
			v.Proof = &loop.Proof{Kind: KindRepositoryProof, SHA: head.CommitSHA, ID: head.DatabaseID}
			v.Unproven = ""
			return
		}
	}
}

// lineAt is the line of text holding offset i, without quote and heading
// marks, at most 300 characters.
func lineAt(text string, i int) string {
	start := strings.LastIndex(text[:i], "\n") + 1
	l, _, _ := strings.Cut(text[start:], "\n")
	l = strings.TrimSpace(strings.TrimLeft(l, "># "))
	if r := []rune(l); len(r) > 300 {
		l = string(r[:300]) + "…"
	}
	return l
}
