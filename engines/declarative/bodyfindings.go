package declarative

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// bodyRead is what one review body yields: its findings with no thread,
// the sections read, and per section how many duplicate items were left
// out as confirmations or as restating an open thread.
type bodyRead struct {
	findings []loop.Finding
	sections []BodySection
	excluded map[int]int
}

// bodyFindings reads the findings a review lists only in its body
// (ST4: by markers). Each is a finding of that review (ReviewID,
// ReviewSHA), with no thread and no comment id, and an id that is the
// same every time the same review is read: engine, review id and a hash
// of section, path, lines and title.
func (e *Engine) bodyFindings(obs *github.Observation, r *github.Review) bodyRead {
	out := bodyRead{sections: ParseBodySections(r.Body, e.def.BodySections), excluded: map[int]int{}}
	if len(out.sections) == 0 {
		return out
	}
	seen := map[string]int{}
	for si, s := range out.sections {
		if s.Def.Kind == SectionPraise || s.Def.Kind == SectionUnknown {
			continue
		}
		for _, it := range s.Items {
			if s.Def.Kind == SectionDuplicate && (confirms(it.Title, s.Def.Confirmations) || e.namesOpenThread(obs, it)) {
				out.excluded[si]++
				continue
			}
			p := e.ParseFinding(it.Text)
			title := it.Title
			if title == "" {
				title = p.Title
			}
			sev := p.Severity
			if sev == loop.SeverityUnknown && s.Def.Severity != "" {
				sev = loop.Severity(s.Def.Severity)
			}
			cat := p.Category
			if cat == "" {
				cat = s.Def.Category
			}
			id := bodyID(e.def.Name, r.DatabaseID, s.Def.Heading, it, title)
			if n := seen[id]; n > 0 {
				id = fmt.Sprintf("%s-%d", id, n+1)
			}
			seen[id]++
			f := loop.Finding{
				ID: id, Engine: e.def.Name, ReviewID: r.DatabaseID, ReviewSHA: r.CommitSHA,
				Path: it.Path, Line: it.Line, StartLine: it.StartLine,
				OriginalCommit: r.CommitSHA, OriginalLine: it.Line,
				Title: title, Body: it.Text, Severity: sev, Key: p.Key, Category: cat,
			}
			if it.Path != "" {
				f.Locations = []string{it.Path}
			}
			out.findings = append(out.findings, f)
		}
	}
	return out
}

func bodyID(engine string, review int64, section string, it BodyItem, title string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", section, it.Path, it.StartLine, it.Line, title)))
	return fmt.Sprintf("%s-%d-%s", engine, review, hex.EncodeToString(h[:4]))
}

// negationRE marks a title that says a concern is NOT addressed: it is
// never read as a confirmation ("Previous concern not addressed",
// "Still unresolved").
var negationRE = regexp.MustCompile(`(?i)\b(not|still|remains?|yet|never|no longer|isn't|wasn't|hasn't|unaddressed|unresolved|partially)\b`)

// confirms reports whether a duplicate item's title confirms an earlier
// concern was dealt with: one of the phrases as whole words, and no
// negation. When unsure it is a finding.
func confirms(title string, phrases []string) bool {
	if negationRE.MatchString(title) {
		return false
	}
	for _, p := range phrases {
		if p = strings.TrimSpace(p); p != "" && regexp.MustCompile(`(?i)\b`+regexp.QuoteMeta(p)+`\b`).MatchString(title) {
			return true
		}
	}
	return false
}

// namesOpenThread reports whether a duplicate item restates an open thread
// of the engine: same path, overlapping lines. That thread is the finding
// already; the item is not counted twice.
func (e *Engine) namesOpenThread(obs *github.Observation, it BodyItem) bool {
	is, ie := span(it.StartLine, it.Line)
	for _, t := range obs.Threads {
		if t.IsResolved || len(t.Comments) == 0 || !e.author.Match(t.Comments[0].Author) || t.Path != it.Path {
			continue
		}
		line := t.Line
		if line == 0 {
			line = t.OriginalLine
		}
		ts, te := span(t.StartLine, line)
		if ts <= ie && is <= te {
			return true
		}
	}
	return false
}

func span(start, line int) (int, int) {
	if start == 0 || start > line {
		return line, line
	}
	return start, line
}

// stated is the number of open findings the head review itself states
// (S6): "Actionable comments posted: N" (the inline threads it posted,
// less those resolved since) plus the count each finding or duplicate
// section of its body declares ("🧹 Nitpick comments (7)"), less the
// duplicate items read as confirmations or open threads. Praise sections
// are not counted; a "… comments (N)" section no definition names counts
// in full (it cannot be read, so it is never clean). Nil when the body
// states nothing.
func (e *Engine) stated(obs *github.Observation, head *github.Review, b bodyRead) *loop.StatedCount {
	n, ok := e.SummaryCount(head.Body)
	counted := 0
	for _, s := range b.sections {
		if s.Def.Kind != SectionPraise {
			counted++
		}
	}
	if !ok && counted == 0 {
		return nil
	}
	total := 0
	var parts []string
	if ok {
		resolved := 0
		for _, t := range obs.Threads {
			if t.IsResolved && len(t.Comments) > 0 && t.Comments[0].ReviewDatabaseID == head.DatabaseID && e.author.Match(t.Comments[0].Author) {
				resolved++
			}
		}
		part := fmt.Sprintf("%d actionable", n)
		if resolved > 0 {
			part += fmt.Sprintf(" less %d resolved", resolved)
		}
		total += max(n-resolved, 0)
		parts = append(parts, part)
	}
	for si, s := range b.sections {
		if s.Def.Kind == SectionPraise {
			continue
		}
		c := max(s.Declared-b.excluded[si], 0)
		part := fmt.Sprintf("%s (%d)", s.Def.Heading, s.Declared)
		if s.Def.Kind == SectionUnknown {
			part = fmt.Sprintf("%q (%d), a section not read", s.Def.Heading, s.Declared)
		}
		if x := b.excluded[si]; x > 0 {
			part += fmt.Sprintf(" less %d confirmation(s) or open thread(s)", x)
		}
		total += c
		parts = append(parts, part)
	}
	return &loop.StatedCount{N: total, Source: fmt.Sprintf("review %d: %s", head.DatabaseID, strings.Join(parts, " + "))}
}
