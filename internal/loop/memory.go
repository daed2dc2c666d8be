package loop

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// Recall is a finding raised again after a remembered won't-fix decision
// (WF1): it is not active, and the orchestrator answers its comment once
// with the earlier rationale and link.
type Recall struct {
	Finding Finding
	Memory  state.WontFix
	// Reply is the answer to post on the finding's comment; empty when the
	// comment was already answered.
	Reply string
}

// WontFixDecision is one DISAGREE or won't-fix decision of a fix cycle,
// with its rationale and the URL of the reply that gave it (WF1).
type WontFixDecision struct {
	Finding  Finding
	Reason   string
	ReplyURL string
}

// contextRadius is how many lines around the flagged ones the context
// hash covers.
const contextRadius = 1

// ContextHash is WF1's code context hash: a hash of the lines from
// start-1 to line+1 of content (1-based; start 0 means line), each with
// its whitespace normalised, so that a finding on code that moved keeps
// its fingerprint and one on changed code does not. Empty when line is
// outside content.
func ContextHash(content string, start, line int) string {
	lines := strings.Split(content, "\n")
	if line <= 0 || line > len(lines) {
		return ""
	}
	if start <= 0 || start > line {
		start = line
	}
	from, to := max(1, start-contextRadius), min(len(lines), line+contextRadius)
	h := sha256.New()
	for _, l := range lines[from-1 : to] {
		h.Write([]byte(strings.Join(strings.Fields(l), " ")))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// NormalTitle is a title as WF1 fingerprints it: its normalised tokens.
func NormalTitle(t string) string { return strings.Join(titleTokens(t), " ") }

// KeepUnpostedWontFix is how many decisions whose reply could not be
// posted the state keeps (R1): every other decision lives in its reply's
// marker, which the next observation reads back (Remembered).
const KeepUnpostedWontFix = 100

// RememberWontFix keeps in the state the fix cycle's DISAGREE and
// won't-fix decisions whose reply could not be posted (WF1): a posted
// reply carries the decision in its marker (DeclineMarker), and the next
// observation reads it back from the thread, so the state does not grow
// with the decisions (R1). A finding without a file or a readable code
// context cannot be fingerprinted and is not remembered; a decision
// already remembered for the same fingerprint keeps its first rationale.
// Only the newest KeepUnpostedWontFix unposted rows are kept; rows of a
// state written before the markers (which have a link) are kept as they
// are and still read.
func RememberWontFix(st state.State, ds []WontFixDecision, head string, now time.Time) state.State {
	s := st.Clone()
	for _, d := range ds {
		f := d.Finding
		if f.Path == "" || f.ContextHash == "" || strings.TrimSpace(d.Reason) == "" || d.ReplyURL != "" {
			continue
		}
		if _, ok := matchMemory(s.WontFix, f, true); ok {
			continue
		}
		s.WontFix = append(s.WontFix, state.WontFix{Path: f.Path, Title: oneLine(f.Title), Context: f.ContextHash,
			FindingID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Reason: oneLine(d.Reason), SHA: head, At: now})
	}
	unposted := 0
	for _, m := range s.WontFix {
		if m.ReplyURL == "" {
			unposted++
		}
	}
	if drop := unposted - KeepUnpostedWontFix; drop > 0 {
		s.WontFix = slices.DeleteFunc(s.WontFix, func(m state.WontFix) bool {
			if m.ReplyURL == "" && drop > 0 {
				drop--
				return true
			}
			return false
		})
	}
	return s
}

// The markers review-loop's own replies carry (WF1): a decline reply ends
// with the decision's fingerprint, a recall reply with the decline reply
// it repeats. Each holds base64url JSON, so no text of a finding can end
// the HTML comment early.
const (
	declineMarker  = "<!-- review-loop:wontfix "
	recalledMarker = "<!-- review-loop:recalled "
	markerEnd      = " -->"
	// maxMarkerChars bounds what a marker may hold before it is decoded:
	// no more than a comment holds.
	maxMarkerChars = 65536
)

// declineMemo is a decline marker's content: the fingerprint and the
// finding decided on.
type declineMemo struct {
	Path    string `json:"p"`
	Title   string `json:"t"`
	Context string `json:"c"`
	ID      string `json:"id"`
	Engine  string `json:"e,omitempty"`
	SHA     string `json:"s,omitempty"`
}

// recallMemo is a recall marker's content: the decline reply repeated
// (0 for a decision the state holds) and the engine that raised it again.
type recallMemo struct {
	Of     int64  `json:"of,omitempty"`
	Engine string `json:"e"`
}

// DeclineMarker is the hidden marker a reply that declines finding f on
// head ends with (WF1): review-loop reads its own decisions back from it.
// "" when f has no fingerprint (no file or no code context).
func DeclineMarker(f Finding, head string) string {
	if f.Path == "" || f.ContextHash == "" {
		return ""
	}
	return marker(declineMarker, declineMemo{Path: f.Path, Title: oneLine(f.Title), Context: f.ContextHash, ID: f.ID, Engine: f.Engine, SHA: head})
}

// RecallMarker is the hidden marker a recall reply ends with: the
// decision it repeats and the engine that raised it again (WF1).
func RecallMarker(m state.WontFix, engine string) string {
	return marker(recalledMarker, recallMemo{Of: m.ReplyID, Engine: engine})
}

func marker(open string, v any) string {
	b, _ := json.Marshal(v) // plain strings and ints: cannot fail
	return open + base64.RawURLEncoding.EncodeToString(b) + markerEnd
}

// trailingMarker splits body into the text before a marker that opens
// with open and ends the body, and the marker's decoded JSON. Only a
// marker at the very end counts: one quoted inside an engine's or an
// agent's text never does.
func trailingMarker(body, open string, v any) (string, bool) {
	body = strings.TrimRight(body, " \t\r\n")
	if !strings.HasSuffix(body, markerEnd) {
		return "", false
	}
	i := strings.LastIndex(body, open)
	if i < 0 || i+len(open) > len(body)-len(markerEnd) {
		return "", false // none, or its opening and end overlap
	}
	enc := body[i+len(open) : len(body)-len(markerEnd)]
	if len(enc) > maxMarkerChars {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(v) != nil {
		return "", false
	}
	return strings.TrimSpace(body[:i]), true
}

// ReplyText is a reply's text without its trailing marker.
func ReplyText(body string) string {
	if text, ok := trailingMarker(body, declineMarker, &declineMemo{}); ok {
		return text
	}
	if text, ok := trailingMarker(body, recalledMarker, &recallMemo{}); ok {
		return text
	}
	return body
}

// ReadDecline reads the decision a decline reply carries (WF1): its
// fingerprint and finding from the marker, its rationale from the text.
// ok is false for a body without a well-formed trailing marker, or with
// no fingerprint or rationale. Whose reply it is the caller checks: only
// review-loop's own count.
func ReadDecline(body string) (state.WontFix, bool) {
	var m declineMemo
	text, ok := trailingMarker(body, declineMarker, &m)
	if !ok || m.Path == "" || m.Context == "" || strings.TrimSpace(text) == "" {
		return state.WontFix{}, false
	}
	return state.WontFix{Path: m.Path, Title: m.Title, Context: m.Context, FindingID: m.ID, Engine: m.Engine, SHA: m.SHA, Reason: oneLine(text)}, true
}

// ReadRecall reads a recall reply's marker: the decline reply it repeats
// (0 when the decision was the state's) and the engine that raised it.
func ReadRecall(body string) (of int64, engine string, ok bool) {
	var m recallMemo
	if _, ok := trailingMarker(body, recalledMarker, &m); !ok {
		return 0, "", false
	}
	return m.Of, m.Engine, true
}

// memory is every remembered decision a decision reads: the state's rows
// first (unposted ones, and those of a state written before the
// markers), then those read back from the threads; indexed by file and
// code context.
type memory struct {
	all   []state.WontFix
	state int // all[:state] are the state's rows
	by    map[[2]string][]int
	// answered are the comments a recall reply already answered.
	answered map[int64]bool
}

func newMemory(st []state.WontFix, read []state.WontFix) *memory {
	m := &memory{all: slices.Concat(st, read), state: len(st), by: map[[2]string][]int{}, answered: map[int64]bool{}}
	for i, w := range m.all {
		k := [2]string{w.Path, w.Context}
		m.by[k] = append(m.by[k], i)
		for _, id := range w.Answered {
			m.answered[id] = true
		}
	}
	return m
}

// match finds the remembered decision whose fingerprint f has (matchMemory).
func (m *memory) match(f Finding) (int, bool) {
	for _, i := range m.by[[2]string{f.Path, f.ContextHash}] {
		if _, ok := matchMemory(m.all[i:i+1], f, false); ok {
			return i, true
		}
	}
	return 0, false
}

// matchMemory finds the remembered decision whose fingerprint f has: the
// same file, the same code context hash and near-identical titles (DD1's
// similarity, or equal normalised titles). With self false, the finding
// decided on itself and its merged sources never match: they are the
// decision, not a re-raise.
func matchMemory(ms []state.WontFix, f Finding, self bool) (int, bool) {
	if f.ContextHash == "" || f.Path == "" {
		return 0, false
	}
	for i, m := range ms {
		if m.Path != f.Path || m.Context != f.ContextHash {
			continue
		}
		if !self && f.CommentID != 0 && f.CommentID == m.CommentID {
			continue
		}
		nt, mt := NormalTitle(f.Title), NormalTitle(m.Title)
		if nt == "" || (nt != mt && titleSimilarity(nt, mt) < TitleSimilarity) {
			continue
		}
		return i, true
	}
	return 0, false
}

// recall splits an engine's active findings into those still active and
// those raised again after a remembered decision (WF1), and lists the
// decisions read from the threads that were raised again for the
// hand-back.
func (d *decider) recall(e *eval) {
	if d.mem == nil {
		d.mem = newMemory(d.s.WontFix, d.obs.Remembered)
	}
	mem := d.mem
	if len(mem.all) == 0 {
		return
	}
	keep := e.active[:0:0]
	for _, f := range e.active {
		i, ok := mem.match(*f)
		if !ok {
			keep = append(keep, f)
			continue
		}
		m := mem.all[i]
		r := Recall{Finding: *f, Memory: m}
		if f.CommentID != 0 && !mem.answered[f.CommentID] {
			r.Reply = RecallReply(m) + "\n\n" + RecallMarker(m, f.Engine)
		}
		if i >= mem.state && !slices.Contains(mem.all[i].ReraisedBy, f.Engine) {
			mem.all[i].ReraisedBy = append(slices.Clone(mem.all[i].ReraisedBy), f.Engine)
			slices.Sort(mem.all[i].ReraisedBy)
		}
		e.recalled = append(e.recalled, f)
		d.plan.Recalled = append(d.plan.Recalled, r)
	}
	e.active = keep
	d.plan.Reraised = d.plan.Reraised[:0:0]
	for _, m := range mem.all[mem.state:] {
		if len(m.ReraisedBy) > 0 {
			d.plan.Reraised = append(d.plan.Reraised, m)
		}
	}
}

// RecallReply is the answer to a finding raised again after a remembered
// decision (WF1): the earlier rationale and the link to it.
func RecallReply(m state.WontFix) string {
	b := "review-loop already decided not to change this (WF1)"
	if m.SHA != "" {
		b += " on " + short(m.SHA)
	}
	b += ", when " + m.Engine + " raised it: " + m.Reason
	if m.ReplyURL != "" {
		b += "\n\nEarlier reply: " + m.ReplyURL
	}
	return b + "\n\nIt is not counted as an open finding."
}

// RecordRecalled records, on the state's own rows (unposted decisions and
// those of a state written before the markers), which engines raised each
// remembered decision again, for the hand-back, and which of the recalled
// findings' comments were answered (WF1), so that each is answered once.
// A decision read from a thread needs no row: the recall reply's marker
// records both.
func RecordRecalled(st state.State, rs []Recall, answered []int64) state.State {
	s := st.Clone()
	for _, r := range rs {
		i, ok := matchMemory(s.WontFix, r.Finding, false)
		if !ok {
			continue
		}
		m := &s.WontFix[i]
		if id := r.Finding.CommentID; id != 0 && slices.Contains(answered, id) && !slices.Contains(m.Answered, id) {
			m.Answered = append(m.Answered, r.Finding.CommentID)
		}
		if !slices.Contains(m.ReraisedBy, r.Finding.Engine) {
			m.ReraisedBy = append(m.ReraisedBy, r.Finding.Engine)
			slices.Sort(m.ReraisedBy)
		}
	}
	return s
}

// RecallsToAnswer reports whether a plan has recalled findings whose
// comments are still to be answered (WF1): the cycle then writes.
func RecallsToAnswer(p Plan) bool {
	return slices.ContainsFunc(p.Recalled, func(r Recall) bool { return r.Reply != "" })
}

// TreeToDecide says why the decision needs the PR's tree, "" when it does
// not: findings to fingerprint against remembered won't-fix decisions
// (WF1: the state's and those read from the threads), or a judge command (it runs in the checkout, judgeInTree) with
// something to judge.
func TreeToDecide(st state.State, remembered []state.WontFix, views []EngineView, head string, judgeInTree bool) string {
	if len(st.WontFix)+len(remembered) > 0 && slices.ContainsFunc(views, func(v EngineView) bool {
		return slices.ContainsFunc(v.Findings, func(f Finding) bool { return f.Path != "" && f.Line > 0 && !f.Outdated })
	}) {
		return "matches findings against remembered won't-fix decisions"
	}
	if judgeInTree && slices.ContainsFunc(views, func(v EngineView) bool { return NeedsJudge(st, v, head) }) {
		return "runs the judge command"
	}
	return ""
}
