package markdown

import (
	"sort"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// This file keeps goldmark's inline link parser linear (R2). At each
// "](" goldmark scans the rest of the line for the link's destination,
// and when the link does not close it scans again from the next "](": a
// line of "[a](b" repeated took a second for 65,536 characters. Here the
// destination's end is known in constant time from one pass over the line
// (where its first "](" is met), and a link that cannot close is never
// scanned: goldmark is handed a view of the line that ends at once, so it
// fails at once and falls back exactly as it would have after its scan.

// boundedLink is goldmark's link parser with the doomed scans cut.
type boundedLink struct {
	parser.InlineParser
	// steps, when not nil, counts the bytes the link parser may scan: the
	// cost test's measure (R2).
	steps *int
}

var lineMemoKey = parser.NewContextKey()

// lineMemo is what one pass over a line says of each position where a
// link destination may start: where the destination would end.
type lineMemo struct {
	start, stop int // the line's part this memo covers, absolute
	src         []byte
	// after is the first byte that is not white space on the paragraph's
	// lines after this one, 0 when there is none.
	after byte
	end   []int
	// nextNonSpace[i] is the first position from i that is not a space.
	nextNonSpace []int
	// nextGT[i] is the position of the first unescaped '>' from i, or
	// stop.
	nextGT []int
}

// Parse implements parser.InlineParser.
func (b boundedLink) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	if len(line) < 2 || line[0] != ']' || line[1] != '(' {
		return b.InlineParser.Parse(parent, block, pc)
	}
	m := memoFor(parent, block.Source(), line, seg, pc, b.steps)
	if ok, scan := b.closes(m, seg.Start+2); ok {
		if b.steps != nil {
			*b.steps += min(scan, len(line))
		}
		return b.InlineParser.Parse(parent, block, pc)
	}
	if b.steps != nil {
		*b.steps++
	}
	return b.InlineParser.Parse(parent, &endedLine{Reader: block}, pc)
}

// closes reports whether the link whose destination part starts at p (just
// after "](") can close — an empty destination, a destination followed by
// ')' or by a title (goldmark then decides; what it scans it consumes) —
// and how many bytes goldmark's scan reads at most (the whole line when a
// title or the next line decides). After the destination goldmark skips
// white space across line ends; what the next lines start with is in the
// memo (after).
func (b boundedLink) closes(m *lineMemo, p int) (bool, int) {
	whole := m.stop - p
	c, at := m.first(p)
	if at >= m.stop {
		return true, whole // the destination starts on the next line: goldmark reads that line
	}
	var e int
	switch c {
	case ')':
		return true, at - p
	case '<':
		e = m.nextGT[at+1-m.start]
		if e >= m.stop {
			return false, 0
		}
		e++
	default:
		e = m.end[at-m.start]
		if e == at {
			return false, 0
		}
	}
	switch c, _ := m.first(e); c {
	case ')':
		return true, e - p
	case '"', '\'', '(':
		return true, whole
	}
	return false, 0
}

// first is the first byte from position i that is not white space, and
// where it is: on this line, or (at stop) the first such byte of the
// paragraph's next lines, 0 when there is none.
func (m *lineMemo) first(i int) (byte, int) {
	if j := m.nextNonSpace[i-m.start]; j < m.stop {
		return m.src[j-m.start], j
	}
	return m.after, m.stop
}

// memoFor returns the memo of the line holding seg, computing it once per
// line from the first "](" met on it.
func memoFor(parent ast.Node, src, line []byte, seg text.Segment, pc parser.Context, steps *int) *lineMemo {
	memos, _ := pc.Get(lineMemoKey).(map[int]*lineMemo)
	if memos == nil {
		memos = map[int]*lineMemo{}
		pc.Set(lineMemoKey, memos)
	}
	if m := memos[seg.Stop]; m != nil && m.start <= seg.Start {
		return m
	}
	m := newLineMemo(line, seg.Start)
	m.after = afterLine(parent, seg.Stop, src)
	if steps != nil {
		*steps += len(line)
	}
	memos[seg.Stop] = m
	return m
}

// afterLine is the first byte that is not white space on the lines of
// the block being parsed after the line that ends at stop, 0 when there is
// none: found by a binary search of the block's lines and a look at the
// next non-blank one.
func afterLine(parent ast.Node, stop int, src []byte) byte {
	for n := parent; n != nil; n = n.Parent() {
		if n.Type() != ast.TypeBlock {
			continue
		}
		lines := n.Lines()
		if lines == nil {
			return 0
		}
		i := sort.Search(lines.Len(), func(i int) bool { return lines.At(i).Stop >= stop })
		for i++; i < lines.Len(); i++ {
			seg := lines.At(i)
			for _, c := range seg.Value(src) {
				if !util.IsSpace(c) {
					return c
				}
			}
		}
		return 0
	}
	return 0
}

// newLineMemo reads src (a line from absolute position start) once from
// each end. A destination that does not start with '<' runs, as goldmark
// reads it, to the first space or to the ')' that takes its parentheses
// below their level where it started; a backslash escapes the punctuation
// after it. A scan starts only just after "(" or a space, never inside a
// run of backslashes, so one reading from the line's start pairs escapes
// as every scan would.
func newLineMemo(src []byte, start int) *lineMemo {
	n := len(src)
	m := &lineMemo{start: start, stop: start + n, src: src, end: make([]int, n+1), nextNonSpace: make([]int, n+1), nextGT: make([]int, n+1)}
	// Tokens: a position is a token start unless it is the second byte of
	// an escape. depth[i] is the parentheses' level before position i.
	escaped := make([]bool, n+1)
	depth := make([]int, n+1)
	d := 0
	for i := 0; i < n; i++ {
		depth[i] = d
		if escaped[i] {
			continue
		}
		switch c := src[i]; {
		case c == '\\' && i+1 < n && util.IsPunct(src[i+1]):
			escaped[i+1] = true
		case c == '(':
			d++
		case c == ')':
			d--
		}
	}
	depth[n] = d
	m.end[n], m.nextNonSpace[n], m.nextGT[n] = start+n, start+n, start+n
	closeAt := map[int]int{} // level → nearest ')' to the right that leaves it
	space, gt := start+n, start+n
	for i := n - 1; i >= 0; i-- {
		c := src[i]
		if !escaped[i] {
			switch {
			case c == ')':
				closeAt[depth[i]] = start + i
			case util.IsSpace(c):
				space = start + i
			case c == '>':
				gt = start + i
			}
		}
		e := space
		if q, ok := closeAt[depth[i]]; ok && q < e {
			e = q
		}
		m.end[i] = e
		m.nextGT[i] = gt
		if util.IsSpace(c) {
			m.nextNonSpace[i] = m.nextNonSpace[i+1]
		} else {
			m.nextNonSpace[i] = start + i
		}
	}
	return m
}

// endedLine is a reader whose lines, after the parser's first look at its
// trigger, end where they start: goldmark's destination scan reads nothing
// and fails, as the memo said it would.
type endedLine struct {
	text.Reader
	looked bool
}

// PeekLine implements text.Reader.
func (r *endedLine) PeekLine() ([]byte, text.Segment) {
	line, seg := r.Reader.PeekLine()
	if !r.looked {
		r.looked = true
		return line, seg
	}
	return line[:0], text.NewSegment(seg.Start, seg.Start)
}

// CloseBlock implements parser.CloseBlocker: goldmark's link parser turns
// the link labels left open at the end of a block back into text.
func (b boundedLink) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if c, ok := b.InlineParser.(parser.CloseBlocker); ok {
		c.CloseBlock(parent, block, pc)
	}
}

var _ parser.CloseBlocker = boundedLink{}
