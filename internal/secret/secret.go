// Package secret finds the secrets review-loop holds in what it is about
// to write (rule TB14): every byte it writes to GitHub — commit contents,
// comments, replies, check output, issues, labels, the hardened mode's
// artifact — is checked against every secret input, in the forms a
// program (or a prompt-injected agent) would write one: raw, base64 (any
// alignment, standard and URL alphabets), hex (either case), URL-encoded
// (query, path and every-byte percent-encoding, either case) and
// JSON-escaped. A hit is reported by the input's name, never its value.
package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// MinLen is the shortest secret looked for in every form, and the
// shortest prefix of one that counts where a text was cut: the encoded
// forms of a shorter value (a few hex digits, base64 characters) would
// match ordinary text and refuse every write. Real tokens and API keys
// are tens of characters long; the secret inputs are refused shorter
// than this at start-up.
const MinLen = 8

// MinRaw is the shortest secret looked for at all, as it is: a value of
// MinRaw to MinLen-1 characters (a PIN, a short password in a secret
// variable) is still kept out of every write in its raw form. A value of
// fewer characters cannot be protected: one, two or three characters
// occur in almost every text, so looking for them would refuse every
// write, and an encoding or a cut would hide them anyway.
const MinRaw = 4

// cutMark is what review-loop writes where it cut a text short (a title
// kept to 100 runes, an engine's note, a status comment too long for
// GitHub): a secret cut there leaves its first characters before it.
const cutMark = "…"

// Named is one secret and the input it came from (`anthropic-api-key`).
type Named struct {
	Input string
	Value string
}

// Set is the secrets a run holds, each with its encoded forms worked out
// once. The zero Set and a nil *Set hold none.
type Set struct {
	forms []form
	cut   cuts
}

type form struct {
	input string
	b     []byte
}

// NewSet returns the set of the given secrets: each in every form, or,
// from MinRaw to MinLen-1 characters, as it is; empty values and values
// shorter than MinRaw are left out.
func NewSet(ns ...Named) *Set {
	s := &Set{}
	for _, n := range ns {
		if len(n.Value) < MinRaw {
			continue
		}
		if len(n.Value) < MinLen {
			s.forms = append(s.forms, form{input: n.Input, b: []byte(n.Value)})
			continue
		}
		for _, f := range Forms(n.Value) {
			s.forms = append(s.forms, form{input: n.Input, b: []byte(f)})
		}
	}
	s.cut = newCuts(s.forms)
	return s
}

// With returns a set that also holds the secret of n; s is unchanged. A
// value s already holds keeps the input s names it by.
func (s *Set) With(n Named) *Set {
	out := &Set{}
	if s != nil {
		out.forms = append(out.forms, s.forms...)
	}
	out.forms = append(out.forms, NewSet(n).forms...)
	out.cut = newCuts(out.forms)
	return out
}

// Inputs are the names of the inputs whose secrets the set holds, in
// order, each once.
func (s *Set) Inputs() []string {
	var out []string
	if s == nil {
		return nil
	}
	for _, f := range s.forms {
		if len(out) == 0 || out[len(out)-1] != f.input {
			out = append(out, f.input)
		}
	}
	return out
}

// Find returns the input whose secret b holds in any form, whole or cut
// short where b was truncated, "" when none.
func (s *Set) Find(b []byte) string {
	if s == nil {
		return ""
	}
	for _, f := range s.forms {
		if bytes.Contains(b, f.b) {
			return f.input
		}
	}
	if bytes.Contains(b, []byte(cutMark)) {
		return s.findCut(string(b))
	}
	return ""
}

// FindString is Find on a string.
func (s *Set) FindString(t string) string {
	if s == nil {
		return ""
	}
	for _, f := range s.forms {
		if strings.Contains(t, string(f.b)) {
			return f.input
		}
	}
	return s.findCut(t)
}

// findCut returns the input of a secret whose form t holds cut short: at
// least MinLen of its first characters just before a cut mark (white
// space and the "_" of an italic note between them ignored), "" when
// none. The work is one look-up at each mark.
func (s *Set) findCut(t string) string {
	for rest, at := t, 0; ; {
		i := strings.Index(rest, cutMark)
		if i < 0 {
			return ""
		}
		before := strings.TrimRight(t[:at+i], " \t\n_")
		if in, _ := s.cut.at(before); in != "" {
			return in
		}
		at += i + len(cutMark)
		rest = t[at:]
	}
}

// FindText is Find on text GitHub renders as markdown: the text itself,
// and the text as a reader sees it once rendered (Plain) — an escaped
// "dpl\_key" shows "dpl_key".
func (s *Set) FindText(t string) string {
	if in := s.FindString(t); in != "" {
		return in
	}
	return s.FindString(Plain(t))
}

// FindJSON is FindText on every string of a JSON document (a request's
// body, where the text's backslashes are themselves escaped), and Find
// on the bytes; a body that is not JSON is checked as bytes only.
func (s *Set) FindJSON(b []byte) string {
	if in := s.Find(b); in != "" || s == nil || len(s.forms) == 0 {
		return in
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	return s.findIn(v)
}

func (s *Set) findIn(v any) string {
	switch v := v.(type) {
	case string:
		return s.FindText(v)
	case []any:
		for _, e := range v {
			if in := s.findIn(e); in != "" {
				return in
			}
		}
	case map[string]any:
		for k, e := range v {
			if in := s.FindText(k); in != "" {
				return in
			}
			if in := s.findIn(e); in != "" {
				return in
			}
		}
	}
	return ""
}

// Plain is markdown text as a reader sees it rendered, for finding a
// secret in it: no backslash before punctuation, the entities &lt; &gt;
// &amp; &quot; decoded, and no zero-width spaces.
func Plain(t string) string {
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '\\' && i+1 < len(t) && isASCIIPunct(t[i+1]) {
			continue
		}
		if c == '&' {
			if e, r, ok := entity(t[i:]); ok {
				b.WriteByte(r)
				i += e - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return strings.ReplaceAll(b.String(), "\u200b", "")
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func entity(t string) (int, byte, bool) {
	for _, e := range []struct {
		name string
		r    byte
	}{{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}} {
		if strings.HasPrefix(t, e.name) {
			return len(e.name), e.r, true
		}
	}
	return 0, 0, false
}

// Forms are the shapes a secret takes in written text: itself; hex, lower
// and upper case; base64 in the standard and URL alphabets at each of the
// three alignments a secret can have inside longer encoded data (only the
// characters the secret's own bits decide); URL-encoded as a query value,
// as a path segment, and with every byte percent-encoded in either case;
// and JSON-escaped.
func Forms(v string) []string {
	out := []string{v}
	add := func(f string) {
		if f == "" {
			return
		}
		for _, o := range out {
			if o == f {
				return
			}
		}
		out = append(out, f)
	}
	h := hex.EncodeToString([]byte(v))
	add(h)
	add(strings.ToUpper(h))
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for k := range 3 {
			add(aligned(enc, v, k))
		}
	}
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	var lo, up strings.Builder
	for i := 0; i < len(v); i++ {
		fmt.Fprintf(&lo, "%%%02x", v[i])
		fmt.Fprintf(&up, "%%%02X", v[i])
	}
	add(lo.String())
	add(up.String())
	if j, err := json.Marshal(v); err == nil {
		add(string(j[1 : len(j)-1]))
	}
	return out
}

// aligned is the part of the base64 of v, preceded by k other bytes,
// that v's bits alone decide: the characters before it mix in the
// preceding bytes and the one after it the following ones.
func aligned(enc *base64.Encoding, v string, k int) string {
	e := enc.EncodeToString(append(make([]byte, k), v...))
	skip := (k*8 + 5) / 6
	end := (k + len(v)) * 8 / 6
	if end <= skip {
		return ""
	}
	return e[skip:end]
}

// Error is a write refused because it holds a secret. It names the input
// and what was being written, never the value.
type Error struct {
	// Input is the secret's input (`anthropic-api-key`).
	Input string
	// Write names what was to be written ("POST /repos/o/r/issues/1/comments").
	Write string
}

func (e *Error) Error() string {
	return fmt.Sprintf("refused (TB14): %s would write the secret input `%s`; nothing was written", e.Write, e.Input)
}

// Reason is the refusal as the PR and the hand-back say it.
func (e *Error) Reason() string {
	return Reason(e.Input, e.Write)
}

// Reason says why a write holding the secret of input was refused.
func Reason(input, write string) string {
	return fmt.Sprintf("refused (TB14): %s held the secret input `%s`; it was not written and the PR is handed back", write, input)
}

// Withhold replaces every form of every secret in t with a placeholder
// naming its input: what is left of a text that must still be written (the
// status comment that hands the PR back) once its secret is taken out.
// Each of escapes gives another shape a form takes in t (the markdown
// escaping t was written with), withheld as well.
func (s *Set) Withhold(t string, escapes ...func(string) string) string {
	if s == nil {
		return t
	}
	shapes := slices.Clone(s.forms)
	for _, f := range s.forms {
		t = strings.ReplaceAll(t, string(f.b), "[withheld: "+f.input+"]")
		for _, esc := range escapes {
			if e := esc(string(f.b)); e != "" {
				t = strings.ReplaceAll(t, e, "[withheld: "+f.input+"]")
				shapes = append(shapes, form{input: f.input, b: []byte(e)})
			}
		}
	}
	cut := newCuts(shapes)
	// What is left of a secret cut short before a cut mark.
	var b strings.Builder
	from := 0
	for at := 0; ; {
		i := strings.Index(t[at:], cutMark)
		if i < 0 {
			break
		}
		end := len(strings.TrimRight(t[from:at+i], " \t\n_")) + from
		if in, n := cut.at(t[from:end]); in != "" {
			b.WriteString(t[from : end-n])
			b.WriteString("[withheld: " + in + "]")
			from = end
		}
		at += i + len(cutMark)
	}
	b.WriteString(t[from:])
	return b.String()
}

// cuts finds the form a text ends with the start of: each run of MinLen
// characters of a form, mapped to where it ends in the form.
type cuts map[string][]cutAt

// cutAt is a form's first k characters, which end with the run indexed.
type cutAt struct {
	input, f string
	k        int
}

// newCuts indexes the starts, MinLen characters or longer and shorter than
// the whole, of each form.
func newCuts(forms []form) cuts {
	c := cuts{}
	for _, fm := range forms {
		f := string(fm.b)
		for k := MinLen; k < len(f); k++ {
			g := f[k-MinLen : k]
			c[g] = append(c[g], cutAt{input: fm.input, f: f, k: k})
		}
	}
	return c
}

// at returns the input of the form whose start, MinLen characters or
// longer, t ends with, and that start's length; "" when none.
func (c cuts) at(t string) (string, int) {
	if len(t) < MinLen {
		return "", 0
	}
	in, best := "", 0
	for _, a := range c[t[len(t)-MinLen:]] {
		if a.k > best && a.k <= len(t) && t[len(t)-a.k:] == a.f[:a.k] {
			in, best = a.input, a.k
		}
	}
	return in, best
}
