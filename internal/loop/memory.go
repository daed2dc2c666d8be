package loop

import (
	"crypto/sha256"
	"encoding/hex"
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

// RememberWontFix records a fix cycle's DISAGREE and won't-fix decisions
// (WF1). A finding without a file or a readable code context cannot be
// fingerprinted and is not remembered; a decision already remembered for
// the same fingerprint keeps its first rationale.
func RememberWontFix(st state.State, ds []WontFixDecision, head string, now time.Time) state.State {
	s := st.Clone()
	for _, d := range ds {
		f := d.Finding
		if f.Path == "" || f.ContextHash == "" || strings.TrimSpace(d.Reason) == "" {
			continue
		}
		if _, ok := matchMemory(s.WontFix, f, true); ok {
			continue
		}
		s.WontFix = append(s.WontFix, state.WontFix{Path: f.Path, Title: oneLine(f.Title), Context: f.ContextHash,
			FindingID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Reason: oneLine(d.Reason), ReplyURL: d.ReplyURL, SHA: head, At: now})
	}
	return s
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
// those raised again after a remembered decision (WF1).
func (d *decider) recall(e *eval) {
	if len(d.s.WontFix) == 0 {
		return
	}
	keep := e.active[:0:0]
	for _, f := range e.active {
		i, ok := matchMemory(d.s.WontFix, *f, false)
		if !ok {
			keep = append(keep, f)
			continue
		}
		m := d.s.WontFix[i]
		r := Recall{Finding: *f, Memory: m}
		if f.CommentID != 0 && !slices.Contains(m.Answered, f.CommentID) {
			r.Reply = RecallReply(m)
		}
		e.recalled = append(e.recalled, f)
		d.plan.Recalled = append(d.plan.Recalled, r)
	}
	e.active = keep
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

// RecordRecalled records which engines raised each remembered decision
// again, for the hand-back, and which of the recalled findings' comments
// were answered (WF1), so that each is answered once.
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
// (WF1), or a judge command (it runs in the checkout, judgeInTree) with
// something to judge.
func TreeToDecide(st state.State, views []EngineView, head string, judgeInTree bool) string {
	if len(st.WontFix) > 0 && slices.ContainsFunc(views, func(v EngineView) bool {
		return slices.ContainsFunc(v.Findings, func(f Finding) bool { return f.Path != "" && f.Line > 0 && !f.Outdated })
	}) {
		return "matches findings against remembered won't-fix decisions"
	}
	if judgeInTree && slices.ContainsFunc(views, func(v EngineView) bool { return NeedsJudge(st, v, head) }) {
		return "runs the judge command"
	}
	return ""
}
