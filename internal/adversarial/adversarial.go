// Package adversarial holds the comment bodies the cost tests of every
// parser of untrusted text read (rule R2): markdown built to make a reader
// backtrack, rescan or copy, and a measure of the work a parse does.
package adversarial

import (
	"runtime"
	"strings"
)

// Size is the length of each adversarial body: the largest comment GitHub
// accepts.
const Size = 65536

// Bodies are n-character bodies built to make a markdown reader, a
// regular expression or a line scanner backtrack or rescan: one-character
// lines, nested block quotes, unclosed links, emphasis and code spans,
// list and quote mixes, inline and unclosed HTML comments, nested
// brackets, backtick runs, tables, nested details blocks, and the markers
// the engines' own comments use, repeated and left open.
func Bodies(n int) map[string]string {
	fill := func(unit string) string {
		return strings.Repeat(unit, n/len(unit)+1)[:n]
	}
	half := func(open, close string) string {
		k := n / 2 / len(open)
		return strings.Repeat(open, k) + fill(close)[:n-k*len(open)]
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
		"unclosed html comment":    "<!--" + fill(" a\n")[:n-4],
		"unclosed code spans":      fill("`a ``b\n"),
		"backtick runs":            fill("`` ` ``` a "),
		"nested brackets":          half("[", "]"),
		"tables":                   "|a|b|\n|-|-|\n" + fill("|[a|*b|`c|\n")[:n-12],
		"nested details":           half("<details><summary>a (1)</summary>\n\n", "</details>\n"),
		"open fences":              fill("```suggestion\nx\n"),
		"headings":                 fill("### Bug: a\n"),
		"engine markers":           fill("<!-- BUGBOT_BUG_ID: x --><!-- LOCATIONS START\na.go#L1-L2\n<!-- DESCRIPTION START -->"),
		"line ranges":              fill("`a.go` around lines 1-2:\nLines 1-2\n"),
		"counts":                   fill("Actionable comments posted: 1\nfound 1 potential issue "),
		"mentions":                 fill("@review-loop **1. a** "),
		"spaces":                   fill(" "),
	}
}

// Cost runs f on body once and returns its heap allocations and the bytes
// they took, each per input byte.
func Cost(f func(string), body string) (allocs, bytes float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f(body)
	runtime.ReadMemStats(&after)
	n := float64(len(body))
	return float64(after.Mallocs-before.Mallocs) / n, float64(after.TotalAlloc-before.TotalAlloc) / n
}

// Check runs parse on every adversarial body of Size characters and fails
// t when its work is not linear: more than maxAllocs allocations or
// maxBytes allocated bytes per input byte, or a quarter of the body
// costing less than an eighth of the whole in bytes allocated (a parse
// whose work grows with the square of its input costs a sixteenth; one
// that grows its buffers by doubling may cost a little under a quarter).
func Check(t interface {
	Helper()
	Errorf(format string, args ...any)
}, name string, parse func(string), maxAllocs, maxBytes float64) {
	t.Helper()
	quarter := Bodies(Size / 4)
	for kind, body := range Bodies(Size) {
		a, b := Cost(parse, body)
		if a > maxAllocs {
			t.Errorf("%s on %s: %.2f allocations per input byte, over %.0f", name, kind, a, maxAllocs)
		}
		if b > maxBytes {
			t.Errorf("%s on %s: %.1f bytes allocated per input byte, over %.0f", name, kind, b, maxBytes)
		}
		_, q := Cost(parse, quarter[kind])
		if whole, part := b*float64(len(body)), q*float64(len(quarter[kind])); whole > 8*part+Size {
			t.Errorf("%s on %s: %.0f bytes allocated for %d input bytes, %.0f for a quarter of it: not linear", name, kind, whole, len(body), part)
		}
	}
}
