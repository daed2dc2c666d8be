package markdown

import (
	"regexp"
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
	st := labelsOf(pc)
	if line[0] != ']' {
		n := b.parse(parent, block, pc)
		if n != nil {
			l := label{node: n, start: seg.Start, stop: seg.Start + 1}
			if line[0] == '!' {
				l.stop, l.image = seg.Start+2, true
			}
			st.open = append(st.open, l)
		}
		return n
	}
	if len(st.open) == 0 {
		return b.parse(parent, block, pc) // no label is open: goldmark returns at once
	}
	last := st.open[len(st.open)-1]
	st.open = st.open[:len(st.open)-1]
	// goldmark gives up on a label when the open labels left span more
	// than 998 bytes, before it looks for a link in the label's text.
	long := len(st.open) > 0 && st.open[len(st.open)-1].stop-st.open[0].start > 998
	lr := &labelReader{Reader: block, lines: blockLines(parent), src: block.Source(),
		label: text.NewSegment(last.stop, seg.Start), steps: b.steps}
	lr.line = st.lineOf(lr.lines, seg.Start, b.steps)
	block = lr
	var undo func()
	if !long && !last.image {
		undo, block = st.answerContainsLink(last, block)
		if b.steps != nil {
			*b.steps += containsLinkWalk(last.node)
		}
	}
	n := b.parse(parent, block, pc)
	if undo != nil {
		undo()
	}
	if _, ok := n.(*ast.Link); ok {
		st.lastLink = max(st.lastLink, last.start)
	}
	return n
}

// parse is goldmark's link parser with the doomed destination scans cut.
func (b boundedLink) parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
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
	pc.Set(labelsKey, nil)
	if c, ok := b.InlineParser.(parser.CloseBlocker); ok {
		c.CloseBlock(parent, block, pc)
	}
}

var _ parser.CloseBlocker = boundedLink{}

// goldmark refuses a link whose text holds a link: at each "]" that may
// close one it walks every node after the label's "[" to the end of what
// is parsed (containsLink). 32,768 "[" then 32,768 "]" made it walk the
// rest of the paragraph for each of the last 999 brackets: about a
// second for 65,536 characters. The answer is known without a walk: the
// label's text holds a link exactly when a link was made in this block
// from a label opened after it (links are only ever made by this parser,
// each from the nodes after its own label, and nothing moves a node
// before an open label). labels mirrors goldmark's list of open labels —
// pushed at each "[" and "![", the last one taken at each "]", all
// dropped at the block's end — and keeps where the last link's label
// opened; goldmark is then shown a label whose walk ends at once with
// the same answer.

var labelsKey = parser.NewContextKey()

// label is an open "[" or "![" as goldmark keeps it: its node and its
// segment.
type label struct {
	node        ast.Node
	start, stop int
	image       bool
}

// labels is the block's open labels, oldest first, and the start of the
// label of the latest link made in the block (-1 when none).
type labels struct {
	open     []label
	lastLink int
	// line is the index, in the block's lines, of the line last read: the
	// parse only moves forward through a block.
	line int
}

// lineOf is the index of the block's line that holds position p (the
// last line starting at or before it), found from the line last read.
func (st *labels) lineOf(lines *text.Segments, p int, steps *int) int {
	if lines == nil || lines.Len() == 0 {
		return -1
	}
	st.line = min(max(st.line, 0), lines.Len()-1)
	for st.line+1 < lines.Len() && lines.At(st.line+1).Start <= p {
		st.line++
		if steps != nil {
			*steps++
		}
	}
	return st.line
}

// labelsOf returns the labels of the block being parsed.
func labelsOf(pc parser.Context) *labels {
	st, _ := pc.Get(labelsKey).(*labels)
	if st == nil {
		st = &labels{lastLink: -1}
		pc.Set(labelsKey, st)
	}
	return st
}

// answerContainsLink makes goldmark's walk over the nodes after last end
// at once with the answer labels know: a label whose text holds a link is
// given a link of its own to find first; one whose text does not is
// shown with no nodes after it until goldmark reads the line again (the
// next thing it does after the walk), when they are put back. undo puts
// back what is left to put back once goldmark returns.
func (st *labels) answerContainsLink(last label, block text.Reader) (undo func(), r text.Reader) {
	if st.lastLink > last.start {
		found := ast.NewLink()
		last.node.AppendChild(last.node, found)
		return func() { last.node.RemoveChild(last.node, found) }, block
	}
	next := last.node.NextSibling()
	if next == nil {
		return nil, block
	}
	last.node.SetNextSibling(nil)
	put := &putBack{Reader: block, put: func() { last.node.SetNextSibling(next) }}
	return put.back, put
}

// putBack is a reader that puts back the nodes hidden from goldmark's walk
// at its first use after the "]" it was given for: goldmark advances past
// the "]", walks, then reads on before it changes the tree.
type putBack struct {
	text.Reader
	put      func()
	advanced bool
}

func (r *putBack) back() {
	if r.put != nil {
		r.put()
		r.put = nil
	}
}

// Advance implements text.Reader.
func (r *putBack) Advance(n int) {
	if r.advanced {
		r.back()
	}
	r.advanced = true
	r.Reader.Advance(n)
}

// PeekLine implements text.Reader.
func (r *putBack) PeekLine() ([]byte, text.Segment) {
	if r.advanced {
		r.back()
	}
	return r.Reader.PeekLine()
}

// ReadRune implements text.Reader.
func (r *putBack) ReadRune() (rune, int, error) { r.back(); return r.Reader.ReadRune() }

// ResetPosition implements text.Reader.
func (r *putBack) ResetPosition() { r.back(); r.Reader.ResetPosition() }

// Peek implements text.Reader.
func (r *putBack) Peek() byte { r.back(); return r.Reader.Peek() }

// PrecendingCharacter implements text.Reader.
func (r *putBack) PrecendingCharacter() rune { r.back(); return r.Reader.PrecendingCharacter() }

// Value implements text.Reader.
func (r *putBack) Value(s text.Segment) []byte { r.back(); return r.Reader.Value(s) }

// LineOffset implements text.Reader.
func (r *putBack) LineOffset() int { r.back(); return r.Reader.LineOffset() }

// Position implements text.Reader.
func (r *putBack) Position() (int, text.Segment) { r.back(); return r.Reader.Position() }

// SetPosition implements text.Reader.
func (r *putBack) SetPosition(l int, s text.Segment) { r.back(); r.Reader.SetPosition(l, s) }

// SetPadding implements text.Reader.
func (r *putBack) SetPadding(n int) { r.back(); r.Reader.SetPadding(n) }

// AdvanceAndSetPadding implements text.Reader.
func (r *putBack) AdvanceAndSetPadding(n, p int) { r.back(); r.Reader.AdvanceAndSetPadding(n, p) }

// AdvanceToEOL implements text.Reader.
func (r *putBack) AdvanceToEOL() { r.back(); r.Reader.AdvanceToEOL() }

// AdvanceLine implements text.Reader.
func (r *putBack) AdvanceLine() { r.back(); r.Reader.AdvanceLine() }

// SkipSpaces implements text.Reader.
func (r *putBack) SkipSpaces() (text.Segment, int, bool) { r.back(); return r.Reader.SkipSpaces() }

// SkipBlankLines implements text.Reader.
func (r *putBack) SkipBlankLines() (text.Segment, int, bool) {
	r.back()
	return r.Reader.SkipBlankLines()
}

// Match implements text.Reader.
func (r *putBack) Match(reg *regexp.Regexp) bool { r.back(); return r.Reader.Match(reg) }

// FindSubMatch implements text.Reader.
func (r *putBack) FindSubMatch(reg *regexp.Regexp) [][]byte {
	r.back()
	return r.Reader.FindSubMatch(reg)
}

// FindClosure implements text.Reader.
func (r *putBack) FindClosure(opener, closer byte, o text.FindClosureOptions) (*text.Segments, bool) {
	r.back()
	return r.Reader.FindClosure(opener, closer, o)
}

// containsLinkWalk is how many nodes goldmark's containsLink visits from
// n: the cost test's measure (R2).
func containsLinkWalk(n ast.Node) int {
	steps := 0
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		for c := n; c != nil; c = c.NextSibling() {
			steps++
			if _, ok := c.(*ast.Link); ok {
				return true
			}
			if walk(c.FirstChild()) {
				return true
			}
		}
		return false
	}
	walk(n)
	return steps
}

// goldmark's block reader copies a segment's bytes to read them (Value),
// finding the segment's first line by walking back from the block's last
// line, and at each "]" it reads the label's text so, before it checks
// the text against the 999-character limit: a label opened early in a
// long paragraph cost a copy of, and a walk over, the rest of it at each
// of up to 999 brackets. labelReader gives the same bytes with the line
// found by a binary search, and gives a label's text longer than the
// limit as any text longer than it: goldmark only measures it.

// labelReader is the reader of one "]": label is the text of the label
// it closes.
type labelReader struct {
	text.Reader
	lines *text.Segments
	// line is the index of the line holding the "]", -1 when unknown.
	line  int
	src   []byte
	label text.Segment
	steps *int
}

// tooLong stands for a label's text over the limit: goldmark reads only
// its length. It is never written to.
var tooLong = make([]byte, 1000)

// Value implements text.Reader: what goldmark's block reader returns,
// found without its walk.
func (r *labelReader) Value(seg text.Segment) []byte {
	if seg.Start == r.label.Start && seg.Stop == r.label.Stop && seg.Stop-seg.Start > 999 {
		if r.steps != nil {
			*r.steps++
		}
		return tooLong
	}
	if r.line < 0 {
		return r.Reader.Value(seg)
	}
	// The last line starting at or before seg, walked to from the "]"'s:
	// as far as the text read (a label's text, a link's title) spans.
	n, line, walked := r.lines.Len(), r.line, 0
	for line >= 0 && r.lines.At(line).Start > seg.Start {
		line--
		walked++
	}
	for line+1 < n && r.lines.At(line+1).Start <= seg.Start {
		line++
		walked++
	}
	if line < 0 {
		return r.Reader.Value(seg)
	}
	ret := make([]byte, 0, seg.Stop-seg.Start+1)
	i := seg.Start
	for ; line < n; line++ {
		s := r.lines.At(line)
		if i < 0 {
			i = s.Start
		}
		ret = s.ConcatPadding(ret)
		if e := min(seg.Stop, s.Stop); i < e {
			ret = append(ret, r.src[i:e]...)
		}
		i = -1
		if s.Stop > seg.Stop {
			break
		}
	}
	if r.steps != nil {
		*r.steps += walked + len(ret)
	}
	return ret
}

// blockLines are the lines of the block being parsed.
func blockLines(parent ast.Node) *text.Segments {
	for n := parent; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock {
			return n.Lines()
		}
	}
	return nil
}
