package markdown

import (
	"runtime"
	"strings"
	"testing"
)

// adversarial are 65,536-character comment bodies built to make a
// markdown reader backtrack or rescan: a paragraph of one-character
// lines, nested block quotes, unclosed links, unclosed emphasis, list
// and quote mixes, inline HTML comments, unclosed code spans, nested
// brackets, backtick runs and tables.
func adversarial() map[string]string {
	const n = 65536
	fill := func(unit string) string {
		return strings.Repeat(unit, n/len(unit)+1)[:n]
	}
	return map[string]string{
		"one-character lines":      fill("a\n"),
		"nested quotes":            fill("> "),
		"nested quotes, each line": fill("> > > > > > > > a\n"),
		"unclosed links":           fill("[a]("),
		"unclosed link texts":      fill("[a "),
		"unclosed emphasis":        fill("*a _b "),
		"list and quote mixes":     fill("- > 1. > * a\n"),
		"inline html comments":     fill("a <!-- b\n"),
		"unclosed code spans":      fill("`a ``b\n"),
		"lines and comments":       fill("a <!-- x -->\n"),
		"unclosed destinations":    fill("[a](b"),
		"unclosed images":          fill("![a]("),
		"nested destinations":      fill("[a](]("),
		"quoted destinations":      fill("[a](b'"),
		"closed links":             fill("[a](b)"),
		"nested brackets":          strings.Repeat("[", n/2) + strings.Repeat("]", n/2),
		"nested image brackets":    strings.Repeat("![", n/4) + strings.Repeat("]", n/2),
		"brackets around emphasis": strings.Repeat("[", 999) + fill("*a ")[:n-2*999] + strings.Repeat("]", 999),
		"brackets around a link":   strings.Repeat("[", 999) + fill("*a ")[:n-2*999-6] + "[x](y)" + strings.Repeat("]", 999),
		"brackets then links":      strings.Repeat("[", n/4) + fill("[a](b)")[:n/2] + strings.Repeat("]", n/4),
		"backtick runs":            fill("`` ` ``` a "),
		"unclosed html comments":   fill("<!-- a "),
		"tables":                   "|a|b|\n|-|-|\n" + fill("|[a|*b|`c|\n")[:n-12],
		"quoted lists of links":    fill("> - [a](b [c](\n"),
		"short labels, many lines": fill("[a\nb]\n"),
		"brackets over many lines": strings.Repeat("[", 999) + fill("a\n")[:n-2*999] + strings.Repeat("]", 999),
	}
}

// R2: reading 65,536 characters of adversarial markdown costs a fixed
// multiple of the input: the nodes LineStarts visits, and the
// allocations the parse makes, at most a few per input byte; and the
// bytes goldmark's link parser reads and the nodes it walks looking for a
// link inside a link's text, at most twice the input, and those
// read to know positions' columns, at most four times.
func TestRule_R2_LineStartsIsLinearOnAdversarialMarkdown(t *testing.T) {
	for name, body := range adversarial() {
		t.Run(name, func(t *testing.T) {
			steps := 0
			lineStarts(body, &steps)
			if max := 2 * len(body); steps > max {
				t.Errorf("LineStarts visited %d nodes for %d bytes, over %d", steps, len(body), max)
			}
			read, cols := 0, 0
			newParser(&read).Parse(newOffsetReader([]byte(body), &cols))
			if max := 2 * len(body); read > max {
				t.Errorf("the link parser read or walked %d bytes and nodes for %d bytes, over %d", read, len(body), max)
			}
			if max := 4 * len(body); cols > max {
				t.Errorf("the columns took reading %d bytes of %d, over %d", cols, len(body), max)
			}
			if a := allocsPerByte(func() { LineStarts(body) }, len(body)); a > 4 {
				t.Errorf("LineStarts allocated %.2f times per input byte, over 4", a)
			}
			if a := allocsPerByte(func() { Fences(body) }, len(body)); a > 4 {
				t.Errorf("Fences allocated %.2f times per input byte, over 4", a)
			}
		})
	}
}

// allocsPerByte runs f once and returns its heap allocations per input
// byte.
func allocsPerByte(f func(), n int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(n)
}

// R2: at each "]" goldmark copies the label's text (blockReader.Value)
// before it checks the text's length against the 999-character limit,
// and finds the text's first line by walking back from the block's last
// line: a label opened early in a long paragraph cost a copy and a walk
// of the rest of it, at each of up to 999 brackets. The bytes the parse
// allocates stay a fixed multiple of the input.
func TestRule_R2_TheLinkParserCopiesNoLongLabel(t *testing.T) {
	const n = 65536
	for name, body := range map[string]string{
		"nested brackets":          strings.Repeat("[", n/2) + strings.Repeat("]", n/2),
		"brackets over many lines": strings.Repeat("[", 999) + strings.Repeat("a\n", (n-2*999)/2) + strings.Repeat("]", 999),
		"short labels, many lines": strings.Repeat("[a\nb]\n", n/6),
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		LineStarts(body)
		runtime.ReadMemStats(&after)
		if b := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(body)); b > 600 {
			t.Errorf("%s: the parse allocated %.0f bytes per input byte, over 600", name, b)
		}
	}
}
