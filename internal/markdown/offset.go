package markdown

import (
	"reflect"

	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// This file keeps goldmark's block parsing linear (R2). Its reader
// computes a position's column (LineOffset) by reading the line from its
// start every time the position moved, and block parsers ask for it at
// each container they open: a line of 32,768 nested block quotes ("> > >
// …") took two seconds. offsetReader answers from the last column it
// computed on the same line when the position only moved forward, and
// otherwise exactly as goldmark does, from the line's head as goldmark's
// reader keeps it.

// offsetReader is goldmark's reader with LineOffset made incremental.
type offsetReader struct {
	text.Reader
	src []byte
	// head reads the wrapped reader's line head; nil when this goldmark
	// has no such field, and then LineOffset is goldmark's own.
	head func() int
	// The last column computed: at pos, from head.
	anchorHead, anchorPos, anchorCol int
	// steps, when not nil, counts the bytes read to compute columns.
	steps *int
}

// newOffsetReader wraps goldmark's reader of src.
func newOffsetReader(src []byte, steps *int) *offsetReader {
	in := text.NewReader(src)
	r := &offsetReader{Reader: in, src: src, anchorHead: -1, steps: steps}
	if v := reflect.ValueOf(in); v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
		if f := v.Elem().FieldByName("head"); f.IsValid() && f.CanInt() {
			r.head = func() int { return int(f.Int()) }
		}
	}
	return r
}

// LineOffset implements text.Reader: the column of the position from the
// line's head (tabs expanded), less the position's padding.
func (r *offsetReader) LineOffset() int {
	if r.head == nil {
		return r.Reader.LineOffset()
	}
	_, pos := r.Reader.Position()
	head := r.head()
	from, col := head, 0
	if head == r.anchorHead && pos.Start >= r.anchorPos {
		from, col = r.anchorPos, r.anchorCol
	}
	for i := from; i < pos.Start; i++ {
		if r.src[i] == '\t' {
			col += util.TabWidth(col)
		} else {
			col++
		}
	}
	if r.steps != nil {
		*r.steps += max(pos.Start-from, 0)
	}
	r.anchorHead, r.anchorPos, r.anchorCol = head, max(pos.Start, from), col
	return col - pos.Padding
}
