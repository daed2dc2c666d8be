package loop

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// ReviewStateOf is rule S1: the engine's review state for the head SHA,
// from its completion signal and what the loop fired. The signal's
// conclusion plays no part (S2).
func ReviewStateOf(es state.EngineState, v EngineView, headSHA string) ReviewState {
	switch v.Signal {
	case SignalDone:
		return Done
	case SignalRunning:
		return Running
	}
	if es.TriggeredSHA != "" && es.TriggeredSHA == headSHA {
		return Triggered
	}
	return NotTriggered
}

// ActiveFindings applies the staleness rules to an engine's open findings.
// Single-verdict engines (ST1): a finding is active iff it belongs to the
// engine's latest review. Multi-verdict engines (ST2): every finding of
// the latest SHA that has substantive verdicts stays active, so a newer
// clean verdict for the same SHA never retires an older one. Findings are
// identified by comment id (ST3): one comment listed twice, say after it
// moved lines, counts once. The result is sorted by comment id.
func ActiveFindings(v EngineView, headSHA string) []Finding {
	ps := activeFindings(v, headSHA)
	out := make([]Finding, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

// StaleFindings is rule E9: the engine's open threads that are not active
// (outdated, or from older reviews) and whose finding no longer appears —
// no active finding carries the same stable key. They are counted at
// hand-back and resolved by `resolve-stale`. Sorted by comment id.
func StaleFindings(v EngineView, headSHA string) []Finding {
	active := map[int64]bool{}
	keys := map[string]bool{}
	for _, f := range activeFindings(v, headSHA) {
		active[f.CommentID] = true
		if f.Key != "" {
			keys[f.Key] = true
		}
	}
	var out []Finding
	seen := map[int64]bool{}
	for _, f := range v.Findings {
		if f.Resolved || f.ThreadID == "" || active[f.CommentID] || seen[f.CommentID] || (f.Key != "" && keys[f.Key]) {
			continue
		}
		seen[f.CommentID] = true
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Finding) int { return cmp.Compare(a.CommentID, b.CommentID) })
	return out
}

// activeFindings is ActiveFindings without copying the findings, which
// matters on large PRs: the pointers are into v.Findings.
func activeFindings(v EngineView, headSHA string) []*Finding {
	if v.Incremental {
		return incrementalFindings(v, headSHA)
	}
	out := make([]*Finding, 0, len(v.Findings))
	if !v.MultiVerdict {
		if v.LatestReviewID != 0 {
			for i := range v.Findings {
				if f := &v.Findings[i]; !f.Resolved && f.ReviewID == v.LatestReviewID {
					out = append(out, f)
				}
			}
		}
	} else if target := verdictSHA(v, headSHA); target != "" {
		for i := range v.Findings {
			if f := &v.Findings[i]; !f.Resolved && f.ReviewSHA == target {
				out = append(out, f)
			}
		}
	}
	return byCommentOnce(out)
}

// byCommentOnce sorts findings by comment id and keeps one per comment id
// (ST3); body-only findings (comment id 0) are all kept.
func byCommentOnce(out []*Finding) []*Finding {
	byComment := func(a, b *Finding) int {
		if c := cmp.Compare(a.CommentID, b.CommentID); c != 0 {
			return c
		}
		// The same comment seen in two reviews: keep the latest reading.
		return cmp.Compare(b.ReviewID, a.ReviewID)
	}
	if !slices.IsSortedFunc(out, byComment) {
		slices.SortStableFunc(out, byComment)
	}
	return slices.CompactFunc(out, func(a, b *Finding) bool {
		return a.CommentID != 0 && a.CommentID == b.CommentID
	})
}

// incrementalFindings is rule ST5 for engines that do not re-post a
// still-present finding (Bugbot, CodeRabbit): every unresolved thread of
// the engine stays active across its reviews until it is resolved, one
// per comment id. A thread GitHub marks outdated stays active until the
// engine's review of a later head is DONE and S6 holds without it: the
// other active findings already reach the count the engine states (no
// stated count: nothing contradicts the later review). Body-only findings
// (no thread) have nothing to resolve: they are active only while they
// belong to the engine's latest review.
func incrementalFindings(v EngineView, headSHA string) []*Finding {
	laterDone := v.Signal == SignalDone && v.Material == MaterialOK && v.LatestReviewID != 0 && v.LatestSHA == headSHA
	out := make([]*Finding, 0, len(v.Findings))
	var outdated []*Finding
	for i := range v.Findings {
		f := &v.Findings[i]
		switch {
		case f.Resolved:
		case f.ThreadID == "":
			if v.LatestReviewID != 0 && f.ReviewID == v.LatestReviewID {
				out = append(out, f)
			}
		case f.Outdated && laterDone && f.ReviewSHA != headSHA:
			outdated = append(outdated, f)
		default:
			out = append(out, f)
		}
	}
	out = byCommentOnce(out)
	if len(outdated) > 0 && v.Stated != nil && len(out) < v.Stated.N {
		out = byCommentOnce(append(out, outdated...))
	}
	return out
}

// verdictSHA is the SHA whose verdicts are in force for a multi-verdict
// engine: the head SHA when it has any, else the latest SHA that has.
func verdictSHA(v EngineView, headSHA string) string {
	type cand struct {
		sha string
		at  time.Time
		id  int64
	}
	cands := make([]cand, 0, len(v.Reviews)+len(v.Verdicts))
	for _, r := range v.Reviews {
		if r.Substantive && r.SHA != "" {
			cands = append(cands, cand{r.SHA, r.At, r.ID})
		}
	}
	for _, vd := range v.Verdicts {
		if vd.Substantive && vd.SHA != "" {
			cands = append(cands, cand{vd.SHA, vd.At, vd.ReviewID})
		}
	}
	if slices.ContainsFunc(cands, func(c cand) bool { return c.sha == headSHA }) ||
		slices.ContainsFunc(v.Findings, func(f Finding) bool { return f.ReviewSHA == headSHA }) {
		return headSHA
	}
	best := ""
	var bestAt time.Time
	var bestID int64
	for _, c := range cands {
		if best == "" || c.at.After(bestAt) || (c.at.Equal(bestAt) && c.id > bestID) {
			best, bestAt, bestID = c.sha, c.at, c.id
		}
	}
	return best
}

// materialKey fingerprints the review material a judge reads: a change
// means new material and a re-judge (J4).
func materialKey(v EngineView, headSHA string) string {
	h := fnv.New64a()
	ids := make([]int64, 0, len(v.Verdicts)+len(v.Findings)+1)
	for _, vd := range v.Verdicts {
		if vd.SHA == headSHA {
			ids = append(ids, vd.ReviewID)
		}
	}
	ids = append(ids, -1)
	for _, f := range activeFindings(v, headSHA) {
		ids = append(ids, f.CommentID)
	}
	ids = append(ids, -2, v.LatestReviewID)
	var buf []byte
	for _, id := range ids {
		buf = strconv.AppendInt(buf[:0], id, 10)
		buf = append(buf, ',')
		_, _ = h.Write(buf)
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// NeedsJudge is rule J1 with J4's cache: a prose-only engine that is DONE
// with readable material needs a judge verdict unless one is cached for
// this head SHA and this material.
func NeedsJudge(st state.State, v EngineView, headSHA string) bool {
	v = withAcceptance(st, v, headSHA)
	if !v.Prose || !v.Installed || v.Signal != SignalDone || v.Material != MaterialOK || !Proven(v, headSHA) {
		return false
	}
	c := st.EngineStates[v.Engine].Judge
	return c == nil || c.SHA != headSHA || c.Material != materialKey(v, headSHA)
}

// RecordJudge caches a judge verdict for the engine and head SHA (J4).
// A CLEAN verdict is refused when the adapter could not prove it saw the
// whole verdict set (J3, fail closed); non-blocking items are recorded (J5).
func RecordJudge(st state.State, v EngineView, headSHA string, res JudgeResult) state.State {
	s := st.Clone()
	es := engineState(&s, v.Engine)
	c := &state.JudgeCache{
		Verdict:  string(res.Verdict),
		SHA:      headSHA,
		Material: materialKey(v, headSHA),
		Reason:   res.Reason,
	}
	if res.Verdict == JudgeClean && !v.VerdictSetProven {
		c.Verdict = string(JudgeNone)
		c.Reason = "judge said CLEAN but the adapter could not prove it saw the whole verdict set (J3)"
	}
	for _, f := range res.Items {
		it := state.Item{ID: f.ID, Engine: v.Engine, Title: f.Title, Path: f.Path, Line: f.Line, SHA: headSHA}
		if it.ID == "" {
			it.ID = v.Engine + "-judge-" + strconv.Itoa(len(c.Items)+1)
		}
		c.Items = append(c.Items, it)
		if res.Verdict == JudgeNonBlocking && !slices.ContainsFunc(s.NonBlocking, func(x state.Item) bool { return x.ID == it.ID }) {
			s.NonBlocking = append(s.NonBlocking, it)
		}
	}
	es.Judge = c
	s.EngineStates[v.Engine] = *es
	return s
}

// judgeVerdict returns the cached verdict in force for the head SHA, or
// JudgeNone with the reason there is none.
func judgeVerdict(es state.EngineState, v EngineView, headSHA string) (JudgeVerdict, string) {
	c := es.Judge
	switch {
	case c == nil || c.SHA != headSHA:
		return JudgeNone, "no judge verdict for this head SHA (no judge configured, or it failed); a prose-only engine is never clean without one (J3)"
	case c.Material != materialKey(v, headSHA):
		return JudgeNone, "new review material since the last judge verdict (J4)"
	case JudgeVerdict(c.Verdict) == JudgeNone:
		if c.Reason == "" {
			return JudgeNone, "the judge gave no verdict (J3)"
		}
		return JudgeNone, c.Reason
	}
	return JudgeVerdict(c.Verdict), c.Reason
}

// IsClean is rule S3 with J2/J3 for one engine: DONE with readable
// material and zero active findings counted structurally, or for a
// prose-only engine a judge verdict of CLEAN or NON_BLOCKING. It returns
// the reason when the engine is not clean. It is the same rule Decide
// applies (verdictOf), so `status` and the loop never disagree.
func IsClean(st state.State, v EngineView, headSHA string) (bool, string) {
	return IsCleanAt(st, v, headSHA, "")
}

// IsCleanAt is IsClean with the severity floor (EQ3) applied as Decide
// applies it: findings below the floor are not active; "" is no floor.
func IsCleanAt(st state.State, v EngineView, headSHA string, floor Severity) (bool, string) {
	v = withAcceptance(st, v, headSHA)
	es := st.EngineStates[v.Engine]
	active, below := splitFloor(activeFindings(v, headSHA), floor)
	v = lessStated(v, len(below))
	verdict, why, _ := verdictOf(es, v, headSHA, ReviewStateOf(es, v, headSHA), active)
	switch {
	case verdict == VerdictClean:
		return true, ""
	case verdict == "":
		return false, "not DONE"
	case why == "":
		return false, strconv.Itoa(len(active)) + " active finding(s)"
	}
	return false, why
}

// lessStated takes n findings the loop does not count (WF1's recalled,
// EQ3's below the floor) off the engine's own stated count (S6), which
// includes them.
func lessStated(v EngineView, n int) EngineView {
	if v.Stated != nil && n > 0 {
		st := *v.Stated
		st.N -= n
		v.Stated = &st
	}
	return v
}

// verdictOf is rule S3 with S6, S7 and J1–J3: the verdict of an engine
// whose review state is rs, from its view and active findings; empty while
// it is not DONE. Clean is DONE with readable material (never SILENT,
// NOOP, DRAFT, ERRORED, UNPROVEN or QUOTA) and zero active findings — and
// not fewer than the engine itself states (S6) — or, for a prose-only
// engine, a judge verdict of CLEAN or NON_BLOCKING.
func verdictOf(es state.EngineState, v EngineView, headSHA string, rs ReviewState, active []*Finding) (EngineVerdict, string, JudgeVerdict) {
	switch {
	case rs != Done:
		return "", "", JudgeNone
	case v.Material == MaterialQuota && v.Quota != nil:
		return VerdictErrored, "quota: " + oneLine(v.Quota.Text), JudgeNone
	case v.Material != MaterialOK:
		// SILENT, NOOP, DRAFT, ERRORED, UNPROVEN, QUOTA are never clean;
		// degrade loudly.
		return VerdictErrored, materialNote(v), JudgeNone
	case v.Stated != nil && len(active) < v.Stated.N:
		// S6, for prose engines too: fewer counted than stated is never
		// clean, whatever a judge says.
		return VerdictStillFinding, statedNote(v, len(active)), JudgeNone
	case !Proven(v, headSHA) && (v.Prose || len(active) == 0):
		// S8: clean needs positive proof, a finished review of the head of
		// a kind the adapter recognises; without it the engine is UNPROVEN
		// (its open findings, if any, are still findings to fix).
		return VerdictUnproven, UnprovenNote(v, headSHA), JudgeNone
	case v.Prose:
		j, why := judgeVerdict(es, v, headSHA)
		switch j {
		case JudgeClean, JudgeNonBlocking:
			return VerdictClean, "", j
		case JudgeBlocking:
			return VerdictStillFinding, "judge: BLOCKING", j
		}
		return VerdictStillFinding, why, j
	case len(active) == 0:
		return VerdictClean, "", JudgeNone
	}
	return VerdictStillFinding, "", JudgeNone
}

// UnprovenNote says why an engine is UNPROVEN (S8) and quotes, clipped
// to one line, the text it posted that is not a finished review of the
// head, so a person can judge it.
func UnprovenNote(v EngineView, headSHA string) string {
	return unprovenNote(v, headSHA, "")
}

// unprovenNote is UnprovenNote with why, S11's reason and answer, said
// before the quote so that a clipped note keeps them.
func unprovenNote(v EngineView, headSHA, why string) string {
	s := "UNPROVEN: no finished review of the head " + short(headSHA) + " that the adapter recognises (S8)"
	if v.Proof != nil && v.Proof.SHA != "" && v.Proof.SHA != headSHA {
		s += "; its last finished review (" + v.Proof.Kind + ") is of " + short(v.Proof.SHA)
	}
	if why != "" {
		s += "; " + why
	}
	if q := clipQuote(v.Unproven); q != "" {
		s += "; its latest text: «" + q + "»"
	}
	return s
}

// statedNote is S6's "not proven" line naming both numbers.
func statedNote(v EngineView, counted int) string {
	return fmt.Sprintf("not proven: %s states %d open finding(s), %d counted (%s)", v.Engine, v.Stated.N, counted, v.Stated.Source)
}

// oneLine collapses an engine's text to one line of at most 300
// characters for the status comment.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// clipQuote collapses an engine's text to one line of at most 160
// characters, the quote of an UNPROVEN engine (S8); the report escapes it.
func clipQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}

func materialNote(v EngineView) string {
	s := "review material " + string(v.Material)
	if v.MaterialNote != "" {
		s += ": " + v.MaterialNote
	}
	return s
}

// engineState returns a pointer to a copy of the engine's state in s,
// creating the map entry's value; callers write it back.
func engineState(s *state.State, engine string) *state.EngineState {
	if s.EngineStates == nil {
		s.EngineStates = map[string]state.EngineState{}
	}
	es := s.EngineStates[engine]
	return &es
}
