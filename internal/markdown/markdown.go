// Package markdown reads comment bodies as GitHub renders them (CommonMark
// with the GFM extensions, rule TB4): the running text at the start of each
// line of a top-level paragraph, and the ```suggestion blocks GitHub shows.
// Nothing inside a code block (fenced or indented), a block quote, an HTML
// block or inline HTML comment, or a code span counts.
package markdown

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// parse returns the document tree of src.
func parse(src []byte) ast.Node {
	return gfm().Parse(newOffsetReader(src, nil))
}

// gfm is the one parser every call shares: goldmark's parser keeps no
// state between documents (each parse has its own context) and is built
// on first use, so building it once saves its cost on every comment.
var gfm = sync.OnceValue(func() parser.Parser { return newParser(nil) })

// newParser builds the parser: goldmark's CommonMark and GFM parsers,
// with the fenced code block parser that marks closed blocks and the link
// parser kept linear (boundedLink, which counts its reading in steps when
// that is not nil).
func newParser(steps *int) parser.Parser {
	blocks := parser.DefaultBlockParsers()
	for i, b := range blocks {
		if _, ok := b.Value.(parser.BlockParser); ok && b.Priority == 700 {
			blocks[i].Value = closingFence{parser.NewFencedCodeBlockParser()}
		}
	}
	inlines := parser.DefaultInlineParsers()
	for i, p := range inlines {
		if ip, ok := p.Value.(parser.InlineParser); ok && string(ip.Trigger()) == string(parser.NewLinkParser().Trigger()) {
			inlines[i].Value = boundedLink{InlineParser: ip, steps: steps}
		}
	}
	md := goldmark.New(
		goldmark.WithParser(parser.NewParser(
			parser.WithBlockParsers(blocks...),
			parser.WithInlineParsers(inlines...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		)),
		goldmark.WithExtensions(extension.GFM),
	)
	return md.Parser()
}

// normalize turns CRLF and lone CR line endings into LF, as GitHub does
// before rendering.
func normalize(body string) []byte {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	return []byte(strings.ReplaceAll(body, "\r", "\n"))
}

// LineStarts returns, in order, the rendered lines of the body's top-level
// paragraphs that start with running text: each is the source text from
// that text to the end of its line, cut before an inline HTML comment on
// the line. A line that starts inside a code span, a link, emphasis or inline
// HTML is not returned, nor is any line of a block quote, list, heading,
// table, code block or HTML block.
func LineStarts(body string) []string {
	return lineStarts(body, nil)
}

// lineStarts is LineStarts counting, in steps when it is not nil, the
// nodes it visits: the cost test's measure of its work (R2). Each node of
// a paragraph is visited once: a line's end is found when the line
// starts, and the line is cut at the first inline HTML comment that
// starts before that end, so no line looks past its own nodes.
func lineStarts(body string, steps *int) []string {
	src := normalize(body)
	doc := parse(src)
	var out []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() != ast.KindParagraph {
			continue
		}
		atStart := true
		open, start, end := false, 0, 0 // the line being read: src[start:end]
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if steps != nil {
				*steps++
			}
			t, isText := c.(*ast.Text)
			if open {
				if isText && t.Segment.Start >= end {
					open = false
				} else if s, ok := commentStart(src, c); ok && s < end {
					end, open = s, false
				}
				if !open {
					out = append(out, string(src[start:end]))
				}
			}
			if atStart && isText {
				open, start, end = true, t.Segment.Start, lineEnd(src, t.Segment.Start)
			}
			atStart = isText && (t.SoftLineBreak() || t.HardLineBreak())
		}
		if open {
			out = append(out, string(src[start:end]))
		}
	}
	return out
}

// lineEnd is the end of the line of src that holds start.
func lineEnd(src []byte, start int) int {
	if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
		return start + i
	}
	return len(src)
}

// commentStart is where c starts when it is an inline HTML comment (which
// GitHub hides); visible inline HTML such as <b> is kept.
func commentStart(src []byte, c ast.Node) (int, bool) {
	h, ok := c.(*ast.RawHTML)
	if !ok || h.Segments.Len() == 0 {
		return 0, false
	}
	s := h.Segments.At(0).Start
	return s, bytes.HasPrefix(src[s:], []byte("<!--"))
}

// Fence is a fenced code block GitHub renders at the top level or inside
// list items.
type Fence struct {
	// Info is the info string after the opening fence, trimmed.
	Info string
	// Lines are the block's lines without line endings, tabs and trailing
	// spaces kept.
	Lines []string
	// Closed is false when the block runs to the end of its container
	// without a closing fence.
	Closed bool
}

// Fences returns the fenced code blocks of body that GitHub renders as
// such outside block quotes: those at the top level and in list items.
// Fences nested in another code block, in an HTML block (an HTML comment
// is invisible on GitHub) or in a block quote are not returned.
func Fences(body string) []Fence {
	src := normalize(body)
	doc := parse(src)
	var out []Fence
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindDocument, ast.KindList, ast.KindListItem:
			return ast.WalkContinue, nil
		case ast.KindFencedCodeBlock:
			out = append(out, fence(src, n.(*ast.FencedCodeBlock)))
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}

func fence(src []byte, b *ast.FencedCodeBlock) Fence {
	f := Fence{}
	if b.Info != nil {
		f.Info = strings.TrimSpace(string(b.Info.Segment.Value(src)))
	}
	lines := b.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		f.Lines = append(f.Lines, strings.TrimSuffix(string(seg.Value(src)), "\n"))
	}
	_, f.Closed = b.AttributeString(closedAttr)
	return f
}

// closedAttr marks a fenced code block that ended on its closing fence.
const closedAttr = "review-loop-closed"

// closingFence is goldmark's fenced code block parser that marks each
// block it sees closed by its own fence (rather than by the end of its
// container or of the body).
type closingFence struct{ parser.BlockParser }

// Continue implements parser.BlockParser.
func (p closingFence) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	s := p.BlockParser.Continue(node, reader, pc)
	if s&parser.Close != 0 {
		node.SetAttributeString(closedAttr, true)
	}
	return s
}
