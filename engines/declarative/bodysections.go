package declarative

import (
	"regexp"
	"strconv"
	"strings"
)

// Section kinds of a review body (Definition.BodySections).
const (
	// SectionFinding items are open findings (CodeRabbit's "⚠️ Outside
	// diff range comments", "🧹 Nitpick comments", "🟠 Major comments").
	SectionFinding = "finding"
	// SectionDuplicate items restate an earlier comment: a finding unless
	// it confirms the concern was addressed or names an open thread of the
	// engine ("♻️ Duplicate comments").
	SectionDuplicate = "duplicate"
	// SectionPraise items are never findings ("🔇 Additional comments").
	SectionPraise = "praise"
	// SectionUnknown is a "… comments (N)" section no definition names:
	// its items are not read, and its count is stated in full, so the
	// engine is not proven until the definition learns it (ST4).
	SectionUnknown = "unknown"
)

// BodySectionDef declares one collapsible section of a review body that
// lists findings the engine did not post as inline threads.
type BodySectionDef struct {
	// Heading is the section's name without its emoji and count, e.g.
	// "Outside diff range comments" for "⚠️ Outside diff range comments (1)".
	Heading string `yaml:"heading"`
	// Kind is finding, duplicate or praise.
	Kind string `yaml:"kind"`
	// Severity is the severity of an item that states none; empty means
	// unknown.
	Severity string `yaml:"severity"`
	// Category is the category of an item that states none.
	Category string `yaml:"category"`
	// Confirmations are title phrases (case-insensitive) that make a
	// duplicate item a confirmation, not a finding ("concern addressed").
	Confirmations []string `yaml:"confirmations"`
}

// BodySection is one section read from a review body: its stated count
// and the items read under it. Fewer items than Declared means the body
// could not be fully read.
type BodySection struct {
	Def      BodySectionDef
	Declared int
	Items    []BodyItem
}

// BodyItem is one entry of a body section: a file, its lines, a title and
// the prose under it.
type BodyItem struct {
	Path      string
	StartLine int
	Line      int
	Title     string
	// Text is the item's markdown, from its line header to the next item.
	Text string
}

var (
	// An item header: "`74-82`: **title**" or "`74-82`: _badges_" (08-…,
	// 02-…); the range may be one line.
	itemHeadRE = regexp.MustCompile("^`(\\d+)(?:-(\\d+))?`:\\s*(.*)$")
	// A per-file group summary: "path (3)".
	groupRE = regexp.MustCompile(`^(\S(?:.*\S)?)\s+\((\d+)\)$`)
	// The 2026 item summary (10-… D): "<em>🟡 Minor</em> · title ·
	// <code>path:295-299</code>".
	item2026RE = regexp.MustCompile(`^(?:<em>([^<]*)</em>\s*·\s*)?(.+?)\s*·\s*<code>([^<:]+):(\d+)(?:-(\d+))?</code>$`)
	summaryRE  = regexp.MustCompile(`<summary>(.*?)</summary>`)
	boldRE     = regexp.MustCompile(`\*\*([^*\n]+?)\*\*`)
	// A bold section heading line (10-… D): "**⚠️ Outside diff range comments (1)**".
	boldLineRE = regexp.MustCompile(`^\*\*(.+)\*\*$`)
	quoteRE    = regexp.MustCompile(`^(?:[ \t]{0,3}>[ \t]?)+`)
	tagRE      = regexp.MustCompile(`<[^>]{0,200}>`)
	// An undeclared section that still announces comments.
	unknownRE = regexp.MustCompile(`(?i)^(.{0,80}\bcomments)\s*\((\d{1,6})\)$`)
)

// ParseBodySections reads the declared sections of a review body by their
// markers, never by position: lines are read with any blockquote prefix
// removed (the outside-diff section sits in a `> [!CAUTION]` block), a
// section starts at a `<summary>` or bold line naming one of defs followed
// by "(N)", and ends when its `<details>` closes or an unrelated block
// starts. Within it, items are either a per-file group summary
// ("path (k)") followed by "`a-b`: …" headers, or 2026 item summaries
// ("<em>sev</em> · title · <code>path:a-b</code>"). Anything else is kept
// as the current item's prose, so extra blocks (prompts, proposed diffs)
// are tolerated. It never panics; an unreadable section shows as fewer
// Items than Declared.
func ParseBodySections(body string, defs []BodySectionDef) []BodySection {
	if len(defs) == 0 {
		return nil
	}
	var out []BodySection
	type open struct {
		idx   int  // into out
		depth int  // details depth that holds the section's items
		bold  bool // started by a bold line, not a <details>
	}
	var (
		cur   *open
		group string
		item  *BodyItem
		text  strings.Builder
		depth int
		fence string
	)
	flush := func() {
		if item != nil && cur != nil {
			item.Text = strings.TrimSpace(text.String())
			if item.Title == "" {
				item.Title = firstBold(item.Text)
			}
			out[cur.idx].Items = append(out[cur.idx].Items, *item)
		}
		item = nil
		text.Reset()
	}
	closeSection := func() {
		flush()
		cur, group = nil, ""
	}
	for _, raw := range strings.Split(body, "\n") {
		// Markers are read on the trimmed line; the item keeps the line as
		// written (less its blockquote prefix), so code in a suggestion
		// block keeps its indentation.
		kept := quoteRE.ReplaceAllString(strings.TrimRight(raw, "\r"), "")
		line := strings.TrimSpace(kept)
		// Code fences inside an item are prose: no markers are read there.
		if f := fenceOf(line); f != "" || fence != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(line, fence) && strings.TrimLeft(line, fence[:1]) == "" {
				fence = ""
			}
			if item != nil {
				text.WriteString(kept + "\n")
			}
			continue
		}
		opens := strings.Count(line, "<details")
		closes := strings.Count(line, "</details>")
		depth += opens
		if s := summaryRE.FindStringSubmatch(line); s != nil {
			sum := strings.TrimSpace(s[1])
			if d, n, ok := matchSection(sum, defs); ok {
				closeSection()
				out = append(out, BodySection{Def: d, Declared: n})
				cur = &open{idx: len(out) - 1, depth: depth}
			} else if d, n, ok := unknownSection(sum); ok && cur == nil {
				out = append(out, BodySection{Def: d, Declared: n})
			} else if cur != nil {
				switch m := item2026RE.FindStringSubmatch(sum); {
				case cur.bold && depth <= cur.depth && m == nil:
					// An unrelated block after a bold-headed section.
					closeSection()
				case m != nil:
					flush()
					item = &BodyItem{Path: strings.TrimSpace(m[3]), Title: strings.TrimSpace(tagRE.ReplaceAllString(m[2], ""))}
					item.StartLine, item.Line = lineRange(m[4], m[5])
					if m[1] != "" {
						text.WriteString("<em>" + m[1] + "</em>\n")
					}
				case groupRE.MatchString(sum) && !strings.ContainsAny(sum, "<>*`"):
					flush()
					group = groupRE.FindStringSubmatch(sum)[1]
				default:
					if item != nil {
						text.WriteString(kept + "\n")
					}
				}
			}
		} else if m := boldLineRE.FindStringSubmatch(line); m != nil && opens == 0 {
			if d, n, ok := matchSection(m[1], defs); ok {
				closeSection()
				out = append(out, BodySection{Def: d, Declared: n})
				cur = &open{idx: len(out) - 1, depth: depth + 1, bold: true}
			} else if d, n, ok := unknownSection(m[1]); ok && cur == nil {
				out = append(out, BodySection{Def: d, Declared: n})
			} else if item != nil {
				text.WriteString(kept + "\n")
			}
		} else if cur != nil {
			if m := itemHeadRE.FindStringSubmatch(line); m != nil && !(item != nil && item.Path != "" && group == "" && !strings.Contains(text.String(), "`:")) {
				// A new item of the current file group (a 2026 summary item
				// repeats its range once as its first line: same item).
				flush()
				item = &BodyItem{Path: group}
				item.StartLine, item.Line = lineRange(m[1], m[2])
				item.Path = trimRange(group, m[1], m[2])
				item.Title = firstBold(m[3])
				text.WriteString(kept + "\n")
			} else if item != nil {
				text.WriteString(kept + "\n")
			}
		}
		depth -= closes
		if depth < 0 {
			depth = 0
		}
		if cur != nil && !cur.bold && depth < cur.depth {
			closeSection()
		}
		if cur != nil && cur.bold && depth < cur.depth-1 {
			closeSection()
		}
	}
	closeSection()
	return out
}

// matchSection reads "⚠️ Outside diff range comments (1)" as a declared
// section and its count.
func matchSection(s string, defs []BodySectionDef) (BodySectionDef, int, bool) {
	s = strings.TrimSpace(tagRE.ReplaceAllString(s, ""))
	open := strings.LastIndex(s, "(")
	if open < 0 || !strings.HasSuffix(s, ")") {
		return BodySectionDef{}, 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(s[open+1 : len(s)-1]))
	if err != nil || n < 0 {
		return BodySectionDef{}, 0, false
	}
	name := strings.TrimSpace(s[:open])
	for _, d := range defs {
		// The heading ends the name; anything before it is the emoji.
		if h := strings.TrimSpace(d.Heading); h != "" && strings.HasSuffix(strings.ToLower(name), strings.ToLower(h)) && len(name)-len(h) <= 16 {
			return d, n, true
		}
	}
	return BodySectionDef{}, 0, false
}

// unknownSection reads "🛠️ Refactor comments (2)", a section that
// announces comments under a heading no definition names.
func unknownSection(s string) (BodySectionDef, int, bool) {
	m := unknownRE.FindStringSubmatch(strings.TrimSpace(tagRE.ReplaceAllString(s, "")))
	if m == nil {
		return BodySectionDef{}, 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n == 0 {
		return BodySectionDef{}, 0, false
	}
	return BodySectionDef{Heading: strings.TrimSpace(m[1]), Kind: SectionUnknown}, n, true
}

func lineRange(a, b string) (start, line int) {
	s, _ := strconv.Atoi(a)
	e, err := strconv.Atoi(b)
	if b == "" || err != nil || e == s {
		return 0, s
	}
	if e < s {
		s, e = e, s
	}
	return s, e
}

// trimRange drops a "-a-b" suffix a group summary carries when it names
// one item ("README.md-184-188 (1)", 02-…).
func trimRange(group, a, b string) string {
	for _, suf := range []string{"-" + a + "-" + b, "-" + a} {
		if (b != "" || suf == "-"+a) && strings.HasSuffix(group, suf) && len(group) > len(suf) {
			return strings.TrimSuffix(group, suf)
		}
	}
	return group
}

func firstBold(s string) string {
	if m := boldRE.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// fenceOf is the fence a line opens ("```", "~~~~"), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}
