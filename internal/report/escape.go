package report

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTitleRunes is how many runes of an untrusted title a table cell keeps.
const MaxTitleRunes = 100

// maxNoteRunes bounds longer untrusted text such as notes.
const maxNoteRunes = 300

// Escape makes untrusted text (finding titles, justifications, notes
// written by review bots) safe for one markdown table cell or one line:
// it keeps at most max runes (adding "…" when cut), turns line breaks and
// tabs into spaces, drops other control and bidi-override characters,
// escapes the markdown characters that could start a link, emphasis or a
// cell break, escapes HTML so no tag, entity or `-->` survives, and breaks
// @-mentions so a title cannot ping anyone or issue a command. max <= 0
// keeps everything.
func Escape(s string, max int) string {
	s = Plain(s, max)
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch r {
		case '\\', '|', '[', ']', '*', '_', '`', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("@\u200b")
		default:
			b.WriteRune(r)
		}
	}
	return unlink(b.String())
}

// unlink breaks, with a zero-width space, every bare link and reference
// GitHub would make live in text (TB10): a scheme's "://" (https, http,
// ftp, any other), "www.", and the references to issues and pull requests
// (#12, owner/repo#12, GH-12), which would also leave a cross-reference
// on the issue named. The text reads the same. Nothing in untrusted text
// stays live: review-loop's own links are written around it, not through
// Escape.
func unlink(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	digitAt := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(":\u200b")
			continue
		case (c == 'w' || c == 'W') && len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "www."):
			b.WriteString(s[i : i+3])
			b.WriteString("\u200b")
			i += 2
			continue
		case c == '#' && digitAt(i+1):
			b.WriteString("#\u200b")
			continue
		case (c == 'g' || c == 'G') && len(s)-i >= 3 && strings.EqualFold(s[i:i+3], "gh-") && digitAt(i+3):
			b.WriteString(s[i : i+2])
			b.WriteString("\u200b")
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Plain makes untrusted text safe for a terminal line: one line, no
// control or bidi-override characters (no escape sequences), at most max
// runes.
func Plain(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r), isBidi(r), r == '\u2028', r == '\u2029':
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if max > 0 && utf8.RuneCountInString(s) > max {
		s = strings.TrimSpace(truncate(s, max-1)) + "…"
	}
	return s
}

func isBidi(r rune) bool {
	return r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069' || r == '\u200E' || r == '\u200F' || r == '\u061C'
}

func truncate(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// code renders configured text (a command) as one inline code span that
// nothing inside can close, on one line, and without `<!--` or `-->`.
func code(s string) string {
	s = Plain(s, 0)
	s = strings.NewReplacer("-->", "-- >", "<!--", "< !--").Replace(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func trimSlash(s string) string { return strings.TrimRight(s, "/") }

// commandSafe reports whether a finding id can be typed in a command as is.
func commandSafe(id string) bool {
	if id == "" || len(id) > 100 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/#", r)) {
			return false
		}
	}
	return true
}
