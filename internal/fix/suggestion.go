package fix

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Suggestion is one GitHub ```suggestion block: the lines that replace the
// commented range. No lines means the range is deleted.
type Suggestion struct {
	Lines []string
}

// ParseSuggestions returns the suggestion blocks of a review comment body
// in order. A block opens with a fence of three or more backticks (or
// tildes) whose info string is "suggestion" and closes with a fence of the
// same character at least as long; an unclosed block is ignored, like
// GitHub does.
func ParseSuggestions(body string) []Suggestion {
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	var out []Suggestion
	for i := 0; i < len(lines); i++ {
		fence, ok := openingFence(lines[i])
		if !ok {
			continue
		}
		var block []string
		closed := false
		j := i + 1
		for ; j < len(lines); j++ {
			if isClosingFence(lines[j], fence) {
				closed = true
				break
			}
			block = append(block, lines[j])
		}
		if !closed {
			break
		}
		out = append(out, Suggestion{Lines: block})
		i = j
	}
	return out
}

// openingFence recognises "```suggestion" (up to three spaces of indent)
// and returns the fence.
func openingFence(line string) (string, bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || trimmed == "" {
		return "", false
	}
	c := trimmed[0]
	if c != '`' && c != '~' {
		return "", false
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 {
		return "", false
	}
	if strings.TrimSpace(trimmed[n:]) != "suggestion" {
		return "", false
	}
	return trimmed[:n], true
}

func isClosingFence(line, fence string) bool {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return false
	}
	trimmed = strings.TrimRight(trimmed, " \t")
	if len(trimmed) < len(fence) {
		return false
	}
	for i := 0; i < len(trimmed); i++ {
		if trimmed[i] != fence[0] {
			return false
		}
	}
	return true
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
