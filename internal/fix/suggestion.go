package fix

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/markdown"
)

// Suggestion is one GitHub ```suggestion block: the lines that replace the
// commented range. No lines means the range is deleted.
type Suggestion struct {
	Lines []string
}

// ParseSuggestions returns the suggestion blocks of a review comment body
// in order, read as GitHub renders the body (rule TB4): a fenced code block
// whose info string is "suggestion", at the top level or in a list item.
// A block nested in another code block, in an HTML comment (invisible on
// GitHub), in an indented code block or in a block quote is not a
// suggestion. An unclosed block is ignored, like GitHub does.
func ParseSuggestions(body string) []Suggestion {
	var out []Suggestion
	for _, f := range markdown.Fences(body) {
		if f.Info != "suggestion" || !f.Closed {
			continue
		}
		out = append(out, Suggestion{Lines: f.Lines})
	}
	return out
}

// Edit replaces lines StartLine..EndLine (1-based, inclusive) of a file.
type Edit struct {
	StartLine int
	EndLine   int
	Lines     []string
}

// ApplyEdits applies non-overlapping edits to content, keeping each
// line's ending (CRLF stays CRLF) and a missing final newline missing.
// Overlapping or out-of-range edits are an error and nothing is applied.
func ApplyEdits(content []byte, edits []Edit) ([]byte, error) {
	lines := splitLines(content)
	sorted := slices.Clone(edits)
	slices.SortFunc(sorted, func(a, b Edit) int { return a.StartLine - b.StartLine })
	for i, e := range sorted {
		if e.StartLine < 1 || e.EndLine < e.StartLine || e.EndLine > len(lines) {
			return nil, fmt.Errorf("suggestion for lines %d-%d is outside the file (%d lines)", e.StartLine, e.EndLine, len(lines))
		}
		if i > 0 && e.StartLine <= sorted[i-1].EndLine {
			return nil, fmt.Errorf("suggestions for lines %d-%d and %d-%d overlap", sorted[i-1].StartLine, sorted[i-1].EndLine, e.StartLine, e.EndLine)
		}
	}
	eol := dominantEOL(lines)
	var out bytes.Buffer
	out.Grow(len(content))
	next := 0 // index of the next unwritten original line
	for _, e := range sorted {
		for _, l := range lines[next : e.StartLine-1] {
			out.WriteString(l)
		}
		last := lines[e.EndLine-1]
		end := lineEnding(last)
		for k, l := range e.Lines {
			out.WriteString(l)
			if k < len(e.Lines)-1 {
				out.WriteString(eol)
			} else {
				out.WriteString(end)
			}
		}
		if len(e.Lines) == 0 && end == "" && out.Len() > 0 {
			// Deleting the unterminated last line: the file keeps having
			// no final newline.
			trimmed := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
			trimmed = bytes.TrimSuffix(trimmed, []byte("\r"))
			out.Truncate(len(trimmed))
		}
		next = e.EndLine
	}
	for _, l := range lines[next:] {
		out.WriteString(l)
	}
	return out.Bytes(), nil
}

// splitLines splits content into lines that keep their terminators.
func splitLines(content []byte) []string {
	s := string(content)
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// linesText returns the lines without their terminators.
func linesText(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	}
	return out
}

func lineEnding(l string) string {
	switch {
	case strings.HasSuffix(l, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(l, "\n"):
		return "\n"
	}
	return ""
}

func dominantEOL(lines []string) string {
	crlf, lf := 0, 0
	for _, l := range lines {
		switch lineEnding(l) {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}
