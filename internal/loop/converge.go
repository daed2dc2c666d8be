package loop

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// Convergence rules CV1–CV6: a loop that finishes, not one that feeds
// itself. Everything here is pure; the orchestrator supplies the lines a
// fix commit changed (RecordFixCommit), the commits pushed since the
// loop's last look (Observation.Pushes) and the generated files
// (Observation.Generated).

// Additional end reasons (H5).
const (
	// EndDiverging: the loop's fixes create findings as fast as they fix
	// them, or a fixed defect came back on the fix's lines (CV2).
	EndDiverging EndReason = "diverging"
	// EndTooLarge: the diff is over every selected engine's own limit, so
	// no review will come (CV6).
	EndTooLarge EndReason = "too-large"
)

// PushHistory is what the orchestrator read of the commits between a base
// and the head (GitHub's compare of Base...Head), for CV4 and CV5.
type PushHistory struct {
	// Base is the commit compared from: the loop's last push when it has
	// one, else the head the previous cycle saw.
	Base string
	Head string
	// Status is the compare status of Head against Base: "ahead",
	// "identical", "behind" or "diverged". Behind and diverged mean Base
	// is no longer an ancestor of the head: the branch was rewritten.
	Status string
	// Commits are the commits after Base up to Head, oldest first.
	Commits []HeadCommit
	// Undone are fix commits of the loop whose changes the head no
	// longer has: every file the commit changed is as it was before it
	// (a revert by hand, without git's message).
	Undone []string
	// Unread says why the commits could not be read (a failed compare,
	// a fixer commit or the undo check that could not be fetched); ""
	// when they were read in full. Unread commits mean no fix (CV7).
	Unread string
}

// HeadCommit is one commit pushed to the PR head by someone.
type HeadCommit struct {
	SHA string
	// Parent is the commit it was made on (its first parent): the lines
	// of Touched are numbered as in it.
	Parent      string
	Message     string
	AuthorLogin string // the GitHub account the commit is attributed to, "" when none
	AuthorEmail string
	// Touched are the lines of the parent the commit replaced, per file
	// (old side of its hunks; a pure insertion touches the line it follows).
	Touched []state.ChangedFile
}

// DiffLimit is an engine's own limit on the diff it reviews (CV6); zero
// fields are no limit.
type DiffLimit struct {
	Lines int
	Chars int
}

// DefaultEngineLimits are the engines' documented limits: Bugbot skips
// PRs over 100,000 changed lines or 3 M characters (ENGINES.md round 3).
func DefaultEngineLimits() map[string]DiffLimit {
	return map[string]DiffLimit{"bugbot": {Lines: 100_000, Chars: 3_000_000}}
}

// EngineFixers are the engines' own fixers that push commits to a PR
// branch, by the login their commits are attributed to (CV5).
var EngineFixers = map[string]string{
	"cursor":             "Bugbot Autofix",
	"coderabbitai":       "CodeRabbit autofix",
	"copilot":            "Copilot coding agent",
	"copilot-swe-agent":  "Copilot coding agent",
	"claude":             "Claude",
	"gemini-code-assist": "Gemini Code Assist",
}

// noreplyRe reads the login out of GitHub's noreply commit address
// ("206951365+cursor[bot]@users.noreply.github.com").
var noreplyRe = regexp.MustCompile(`^(?:[0-9]+\+)?([A-Za-z0-9-]+(?:\[bot\])?)@users\.noreply\.github\.com$`)

// EngineFixer names the engine fixer a login or commit address belongs
// to, "" when it is none (CV5).
func EngineFixer(login, email string) string {
	norm := func(l string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(l)), "[bot]") }
	if n, ok := EngineFixers[norm(login)]; ok && login != "" {
		return n
	}
	if m := noreplyRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(email))); m != nil {
		if n, ok := EngineFixers[norm(m[1])]; ok {
			return n
		}
	}
	return ""
}

// RecordFixCommit records a fix commit about to be pushed (CV1): the head
// it was made on, the lines of each file it wrote (new side) and the
// findings it fixed. It is recorded with the write-ahead push (E5) and
// marked pushed by RecordPush.
func RecordFixCommit(st state.State, sha, parent string, files []state.ChangedFile, fixed []Finding, now time.Time) state.State {
	s := st.Clone()
	s.FixCommits = slices.DeleteFunc(s.FixCommits, func(c state.FixCommit) bool { return c.SHA == sha })
	fc := state.FixCommit{SHA: sha, Parent: parent, Round: s.Iteration, At: now, Files: files}
	for _, f := range fixed {
		start, line := span(f)
		fc.Fixed = append(fc.Fixed, state.FixedRef{ID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Path: f.Path,
			StartLine: start, Line: line, Title: f.Title, Category: f.Category, Key: f.Key})
	}
	s.FixCommits = append(s.FixCommits, fc)
	return s
}

// markPushed marks the fix commit sha as landed on the branch.
func markPushed(s *state.State, sha string) {
	for i := range s.FixCommits {
		if s.FixCommits[i].SHA == sha {
			s.FixCommits[i].Pushed = true
		}
	}
}

// overlaps reports whether lines start..end meet any of the ranges.
func overlaps(rs []state.LineRange, start, end int) bool {
	for _, r := range rs {
		if start <= r.End && r.Start <= end {
			return true
		}
	}
	return false
}

// changedIn returns the ranges fc wrote in file p and whether fc changed it.
func changedIn(fc state.FixCommit, p string) ([]state.LineRange, bool) {
	for _, f := range fc.Files {
		if f.Path == p {
			return f.Ranges, true
		}
	}
	return nil, false
}

// inducedBy is CV1's test: the fix commit of this loop on whose lines f
// was raised. A finding's lines are those of the commit its review read
// (ReviewSHA, else the head), so it is compared with that commit's own
// changes only.
func (d *decider) inducedBy(f Finding) (state.FixCommit, bool) {
	at := f.ReviewSHA
	if at == "" {
		at = d.head
	}
	if f.Path == "" || f.Line <= 0 {
		return state.FixCommit{}, false
	}
	for _, fc := range d.s.FixCommits {
		if fc.SHA != at || !fc.Pushed || fc.At.Before(d.s.StartedAt) {
			continue
		}
		rs, ok := changedIn(fc, f.Path)
		if !ok {
			continue
		}
		if s, e := span(f); overlaps(rs, s, e) {
			return fc, true
		}
	}
	return state.FixCommit{}, false
}

// sameDefectBack is CV2's second test: f is the same defect (DD1's
// notion, any engine) as a finding fc fixed, come back on fc's lines.
// keys caches each fixed finding's DD1 key across the calls of one cycle,
// so each finding is read once however many others it meets (C1); f's
// suggested edit is never read, since a fixed finding's record carries
// none to compare it with.
func sameDefectBack(f Finding, fc state.FixCommit, keys map[string]defectKey) (state.FixedRef, bool) {
	rs, _ := changedIn(fc, f.Path)
	kf := defectKeyOf(&f)
	fs, fe := span(f)
	for _, x := range fc.Fixed {
		if x.Path != f.Path {
			continue
		}
		if x.Key != "" && x.Key == f.Key && x.Engine == f.Engine {
			return x, true
		}
		// DD1 compares two engines' comments on the same lines; here the
		// earlier finding's lines are the ones its fix rewrote.
		prior, ok := keys[x.ID]
		if !ok {
			prior = defectKeyOf(&Finding{Engine: "\x00fixed:" + x.Engine, Path: x.Path, Title: x.Title, Category: x.Category, Line: 1})
			keys[x.ID] = prior
		}
		prior.start, prior.end = fs, fe
		for _, r := range rs {
			if fs <= r.End && r.Start <= fe {
				prior.start, prior.end = r.Start, r.End
				break
			}
		}
		if prior.same(&kf) {
			return x, true
		}
	}
	return state.FixedRef{}, false
}

// markInduced is CV1: every fresh finding raised on lines one of the
// loop's own fix commits changed is recorded as fix-induced, linked to
// that commit and to the findings it fixed in that file. It returns the
// first finding that is a fixed defect come back (CV2), if any.
func (d *decider) markInduced(fresh []Finding) (*state.Induced, state.FixedRef) {
	s := &d.s
	var back *state.Induced
	var backOf state.FixedRef
	if len(s.FixCommits) == 0 {
		return nil, backOf
	}
	keys := map[string]defectKey{}
	index := make(map[string]int, len(s.Induced))
	for i, in := range s.Induced {
		index[in.FindingID] = i
	}
	for _, f := range fresh {
		fc, ok := d.inducedBy(f)
		if !ok {
			continue
		}
		i, seen := index[f.ID]
		if !seen {
			in := state.Induced{FindingID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Path: f.Path, Line: f.Line,
				Title: oneLine(f.Title), Commit: fc.SHA, Round: fc.Round, Seen: s.Iteration}
			in.Fixed = linkedFixes(fc, f)
			if x, same := sameDefectBack(f, fc, keys); same {
				in.Same, in.Fixed = true, []string{x.ID}
			}
			s.Induced = append(s.Induced, in)
			scoreInduced(s, fc, in)
			i = len(s.Induced) - 1
			index[f.ID] = i
			d.event(state.Event{Name: state.EventReviewDetected, Engine: f.Engine, SHA: fc.SHA, Reason: "fix-induced",
				Detail: fmt.Sprintf("%s on lines changed by fix %s (fixing %s) (CV1)", f.ID, short(fc.SHA), strings.Join(in.Fixed, ", "))})
		}
		if in := s.Induced[i]; in.Same && back == nil {
			back = &in
			for _, x := range fc.Fixed {
				if x.ID == in.Fixed[0] {
					backOf = x
				}
			}
		}
	}
	return back, backOf
}

// maxLinks is how many of a fix commit's findings one fix-induced finding
// is linked to: the state stays linear in the findings (C1) however many
// the commit fixed in one file.
const maxLinks = 3

// linkedFixes is the findings fc fixed that f is linked to (CV1): those in
// f's file nearest to f's line, at most maxLinks, nearest first; fc's
// first ones when it fixed none in that file.
func linkedFixes(fc state.FixCommit, f Finding) []string {
	type near struct {
		id   string
		dist int
	}
	best := make([]near, 0, maxLinks+1)
	for _, x := range fc.Fixed {
		if x.Path != f.Path {
			continue
		}
		n := near{x.ID, max(x.Line-f.Line, f.Line-x.Line)}
		i := len(best)
		for i > 0 && best[i-1].dist > n.dist {
			i--
		}
		if i < maxLinks {
			best = slices.Insert(best, i, n)[:min(len(best)+1, maxLinks)]
		}
	}
	out := make([]string, 0, maxLinks)
	for _, n := range best {
		out = append(out, n.id)
	}
	for _, x := range fc.Fixed {
		if len(best) > 0 || len(out) == maxLinks {
			break
		}
		out = append(out, x.ID)
	}
	return out
}

// chain names a finding → fix commit → new finding chain (CV2).
func chain(in state.Induced) string {
	return fmt.Sprintf("%s → fix %s → %s", strings.Join(in.Fixed, ", "), short(in.Commit), in.FindingID)
}

// divergingWhy is CV2's first test, for every fix commit of the loop: its
// fix-induced findings are at least as many as the findings it fixed.
func (d *decider) divergingWhy() string {
	for _, fc := range d.s.FixCommits {
		if !fc.Pushed || len(fc.Fixed) == 0 || fc.At.Before(d.s.StartedAt) {
			continue
		}
		var ins []state.Induced
		for _, in := range d.s.Induced {
			if in.Commit == fc.SHA {
				ins = append(ins, in)
			}
		}
		if len(ins) == 0 || len(ins) < len(fc.Fixed) {
			continue
		}
		links := make([]string, len(ins))
		for i, in := range ins {
			links[i] = chain(in)
		}
		return fmt.Sprintf("CV2: round %d's fix %s fixed %d finding(s) and the engines raised %d new one(s) on its lines: %s",
			fc.Round, short(fc.SHA), len(fc.Fixed), len(ins), strings.Join(links, "; "))
	}
	return ""
}

// inducedNotices are CV1's per-round counts for the status comment and
// the hand-back.
func (d *decider) inducedNotices() {
	for _, fc := range d.s.FixCommits {
		var ids []string
		for _, in := range d.s.Induced {
			if in.Commit == fc.SHA {
				ids = append(ids, in.FindingID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("fix-induced: round %d's fix %s (fixed %d) is followed by %d new finding(s) on its own lines: %s (CV1)",
			fc.Round, short(fc.SHA), len(fc.Fixed), len(ids), strings.Join(ids, ", ")))
	}
}

// readPushes applies CV4 and CV5 to the commits pushed since the loop's
// last look: a revert of one of the loop's commits, or a rewrite of the
// branch that drops it, turns auto-fix off until `resume`; a commit by an
// engine's own fixer is a foreign push (yielded to as HY1 yields to a
// person) and the findings it fixed are never fixed again.
func (d *decider) readPushes() {
	s, p := &d.s, d.obs.Pushes
	if !d.outsidePush && s.UnreadPushes == nil {
		return
	}
	if why := unreadWhy(p, d.head); why != "" {
		// CV7: what the loop cannot read it does not guess.
		base := d.pushBase
		if s.UnreadPushes != nil {
			base = s.UnreadPushes.Base
		}
		if p != nil && p.Base != "" {
			base = p.Base
		}
		s.UnreadPushes = &state.UnreadPushes{Base: base, Head: d.head, Why: why}
		d.pushesUnread = why
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf(
			"CV7: the commits pushed since review-loop's last look (%s..%s) could not be read (%s): no fix is made until they are; they are read again on the next wake",
			short(base), short(d.head), why))
		return
	}
	s.UnreadPushes = nil
	ours := func(sha string) (state.FixCommit, bool) {
		for _, fc := range s.FixCommits {
			if fc.Pushed && len(sha) >= 7 && strings.HasPrefix(fc.SHA, sha) {
				return fc, true
			}
		}
		return state.FixCommit{}, false
	}
	if fc, ok := ours(p.Base); ok && (p.Status == "diverged" || p.Status == "behind") && s.AutofixOff == nil {
		s.AutofixOff = &state.AutofixOff{Reason: fmt.Sprintf("the branch was force-pushed: review-loop's commit %s is no longer in the PR (head %s)", short(fc.SHA), short(d.head)),
			Commit: fc.SHA, By: d.obs.HeadPusher, At: d.obs.Now}
	}
	for _, c := range p.Commits {
		for _, m := range revertRe.FindAllStringSubmatch(c.Message, -1) {
			if fc, ok := ours(m[1]); ok && s.AutofixOff == nil {
				who := c.AuthorLogin
				if who == "" && c.SHA == d.head {
					who = d.obs.HeadPusher
				}
				if who == "" {
					who = "someone"
				} else {
					who = "@" + who
				}
				s.AutofixOff = &state.AutofixOff{Reason: fmt.Sprintf("%s reverted review-loop's commit %s in %s", who, short(fc.SHA), short(c.SHA)),
					Commit: fc.SHA, By: c.AuthorLogin, At: d.obs.Now}
			}
		}
		fixer := EngineFixer(c.AuthorLogin, c.AuthorEmail)
		if fixer == "" {
			continue
		}
		if d.cfg.YieldFor > 0 {
			d.yield(fmt.Sprintf("a push by %s (commit %s)", fixer, short(c.SHA)))
		}
		d.engineFixed(c, fixer)
	}
	// A hand-made undo, when no revert message said so.
	for _, sha := range p.Undone {
		if fc, ok := ours(sha); ok && s.AutofixOff == nil {
			s.AutofixOff = &state.AutofixOff{Reason: fmt.Sprintf("a push undid review-loop's commit %s: its files are back as they were before it (head %s)", short(fc.SHA), short(d.head)),
				Commit: fc.SHA, By: d.obs.HeadPusher, At: d.obs.Now}
		}
	}
	if a := s.AutofixOff; a != nil && a.At.Equal(d.obs.Now) {
		d.event(state.Event{Name: state.EventIterError, SHA: d.head, Reason: "autofix-off", Detail: a.Reason + " (CV4)"})
	}
}

// unreadWhy says why the pushes to head are not read (CV7): none were read,
// they were read for another head, or reading them failed; "" when they
// were read in full.
func unreadWhy(p *PushHistory, head string) string {
	switch {
	case p == nil:
		return "they were not read"
	case p.Head != head:
		return "they were read for " + short(p.Head) + ", not the head " + short(head)
	}
	return p.Unread
}

// revertRe is git's revert message ("This reverts commit <sha>.").
var revertRe = regexp.MustCompile(`(?i)\bthis reverts commit ([0-9a-f]{7,40})\b`)

// engineFixed records the active findings an engine fixer's commit fixed:
// it replaced their lines, or its message names them (CV5).
func (d *decider) engineFixed(c HeadCommit, fixer string) {
	s := &d.s
	msg := strings.ToLower(c.Message)
	for _, e := range d.ev {
		for _, f := range e.active {
			if slices.Contains(s.EngineFixed, f.ID) {
				continue
			}
			hit := false
			if fs, fe, ok := linesIn(*f, c.Parent); ok {
				for _, t := range c.Touched {
					if t.Path == f.Path && overlaps(t.Ranges, fs, fe) {
						hit = true
					}
				}
			}
			if t := strings.ToLower(strings.TrimSpace(f.Title)); len(t) >= 12 && strings.Contains(msg, t) {
				hit = true
			}
			if f.CommentID != 0 && strings.Contains(msg, strconv.FormatInt(f.CommentID, 10)) {
				hit = true
			}
			if !hit {
				continue
			}
			s.EngineFixed = append(s.EngineFixed, f.ID)
			d.hold(*f, "CV5", fmt.Sprintf("fixed by %s in %s; not fixed again", fixer, short(c.SHA)))
		}
	}
}

// linesIn are a finding's lines numbered as in commit parent, the commit
// an engine fixer's commit was made on (CV5): its original lines when it
// was written on that commit (an outdated finding keeps only those), else
// its current lines while it is not outdated and the commit is unknown
// or the one it was reviewed on. ok is false when its lines there are not
// known: a push in between may have moved them.
func linesIn(f Finding, parent string) (start, end int, ok bool) {
	if parent != "" && f.OriginalCommit == parent && f.OriginalLine > 0 {
		start = f.OriginalLine
		if f.StartLine > 0 && f.Line > f.StartLine && !f.Outdated {
			start -= f.Line - f.StartLine
		}
		return max(start, 1), f.OriginalLine, true
	}
	if f.Outdated || f.Line <= 0 || (parent != "" && f.ReviewSHA != parent) {
		return 0, 0, false
	}
	start, end = span(f)
	return start, end, true
}

// FixerRun is an engine fixer at work on the head (CV5).
type FixerRun struct {
	Fixer     string // "Bugbot Autofix"
	StartedAt time.Time
}

// fixerAppSlugs name the engine fixers by the app of their check run.
var fixerAppSlugs = map[string]string{"cursor": "Bugbot Autofix", "coderabbitai": "CodeRabbit autofix"}

// EngineFixerCheck names the engine fixer a check run belongs to: an
// engine's app whose check is named for its autofix ("Cursor / Cursor
// Bugbot Autofix", ENGINES.md round 3); "" for any other check.
func EngineFixerCheck(appSlug, name string) string {
	if !strings.Contains(strings.ToLower(name), "autofix") {
		return ""
	}
	return fixerAppSlugs[strings.ToLower(appSlug)]
}

// racing is CV5's "never raced": an engine fixer at work on the head,
// for no longer than StallFactor times the default latency (a run stuck
// longer does not hold the loop forever).
func (d *decider) racing() string {
	var names []string
	for _, r := range d.obs.FixersRunning {
		if !r.StartedAt.IsZero() && d.obs.Now.Sub(r.StartedAt) > time.Duration(d.cfg.StallFactor)*d.cfg.DefaultLatency {
			continue
		}
		if !slices.Contains(names, r.Fixer) {
			names = append(names, r.Fixer)
		}
	}
	return strings.Join(names, ", ")
}

// hold lists a finding for a human instead of fixing it.
func (d *decider) hold(f Finding, rule, why string) {
	s := &d.s
	if d.held == nil {
		d.held = make(map[string]bool, len(s.Held))
		for _, h := range s.Held {
			d.held[h.FindingID] = true
		}
	}
	if d.held[f.ID] {
		return
	}
	d.held[f.ID] = true
	s.Held = append(s.Held, state.Held{FindingID: f.ID, Engine: f.Engine, CommentID: f.CommentID, Path: f.Path, Line: f.Line,
		Title: oneLine(f.Title), Rule: rule, Why: why})
}

// IsNitpick reports whether an engine calls a finding a nitpick (CV3).
// Its words are the runs of the letters a to z in the lower-cased
// category, read in place (C1: no allocation per finding).
func IsNitpick(f Finding) bool {
	c := strings.ToLower(f.Category) // no copy when already lower case
	for i := 0; i < len(c); {
		if c[i] < 'a' || c[i] > 'z' {
			i++
			continue
		}
		j := i
		for j < len(c) && c[j] >= 'a' && c[j] <= 'z' {
			j++
		}
		if w := c[i:j]; w == "nitpick" || w == "nit" || w == "nitpicks" {
			return true
		}
		i = j
	}
	return false
}

// cooled reports whether CV3 holds f back: a prose-only engine's or a
// nitpick finding once ProseRounds fix rounds acted on such findings.
func (d *decider) cooled(e *eval, f Finding) bool {
	return d.cfg.ProseRounds > 0 && d.s.ProseRounds >= d.cfg.ProseRounds && (e.view.Prose || IsNitpick(f))
}

// scopeGuard is CV3, CV5 and CV6 on the findings about to go to
// triage: it keeps those the loop may fix and holds the rest for a human.
func (d *decider) scopeGuard(fresh []Finding) []Finding {
	s, cfg := &d.s, d.cfg
	prose := map[string]bool{}
	for _, e := range d.ev {
		prose[e.view.Engine] = e.view.Prose
	}
	cooled := cfg.ProseRounds > 0 && s.ProseRounds >= cfg.ProseRounds
	// fresh is this cycle's own slice: filtered in place (C1), a finding
	// moved only when one before it was held.
	k := 0
	keep := func(i int) {
		if k != i {
			fresh[k] = fresh[i]
		}
		k++
	}
	actedOnProse := false
	fixedByEngine := make(map[string]bool, len(s.EngineFixed))
	for _, id := range s.EngineFixed {
		fixedByEngine[id] = true
	}
	ignored, generated := compileScope(cfg.PathsIgnore), compileScope(d.obs.Generated)
	for i := range fresh {
		f := &fresh[i]
		switch {
		case fixedByEngine[f.ID]:
			d.hold(*f, "CV5", "an engine's own fixer already fixed it; not fixed again")
		case f.Path != "" && ignored.match(f.Path):
			d.hold(*f, "CV6", "in a path listed under paths-ignore; never fixed")
		case f.Path != "" && generated.match(f.Path):
			d.hold(*f, "CV6", "in a file marked linguist-generated in .gitattributes; never fixed")
		case prose[f.Engine] || IsNitpick(*f):
			if cooled {
				d.hold(*f, "CV3", fmt.Sprintf("a prose or nitpick finding after %d round(s) acting on such findings; listed for a human", s.ProseRounds))
				continue
			}
			actedOnProse = true
			keep(i)
		default:
			keep(i)
		}
	}
	if actedOnProse && k > 0 {
		d.proseRound = true
	}
	return fresh[:k]
}

// heldNotices lists the held findings on the status comment (CV3, CV5, CV6).
func (d *decider) heldNotices() {
	for _, h := range d.s.Held {
		where := h.Path
		if h.Line > 0 {
			where += ":" + strconv.Itoa(h.Line)
		}
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("for a human: %s (%s) %s — %s (%s)", h.FindingID, where, h.Title, h.Why, h.Rule))
	}
	if a := d.s.AutofixOff; a != nil {
		d.plan.Notices = append(d.plan.Notices, fmt.Sprintf("auto-fix is off since %s: %s; `@review-loop resume` turns it back on (CV4)",
			a.At.UTC().Format("2006-01-02 15:04 UTC"), a.Reason))
	}
}

// tooLarge is CV6's size check for one engine: the note to show when the
// PR's diff is over the engine's own limit, "" when it is not.
func (d *decider) tooLarge(engine string) string {
	lim, ok := d.cfg.EngineLimits[engine]
	if !ok {
		return ""
	}
	switch {
	case lim.Lines > 0 && d.obs.ChangedLines > lim.Lines:
		return fmt.Sprintf("skipped: too large — %d changed lines are over %s's limit of %d, so no review will come (CV6)", d.obs.ChangedLines, engine, lim.Lines)
	case lim.Chars > 0 && d.obs.ChangedChars > lim.Chars:
		return fmt.Sprintf("skipped: too large — %d changed characters are over %s's limit of %d, so no review will come (CV6)", d.obs.ChangedChars, engine, lim.Chars)
	}
	return ""
}

// OutOfScope reports whether path matches one of the patterns, read the
// way .gitattributes and paths-ignore read them: a pattern without a
// slash matches a file name at any depth, one with a slash matches from
// the repository root, "**" matches any number of directories and a
// trailing "/" (or "/**") matches everything under a directory.
func OutOfScope(p string, patterns []string) bool {
	return compileScope(patterns).match(p)
}

// scope is OutOfScope's patterns read once, each as its path segments, so
// a cycle checks every finding's path without re-reading them (C1).
type scope [][]string

func compileScope(patterns []string) scope {
	var sc scope
	for _, pat := range patterns {
		pat = strings.TrimSpace(pat)
		if pat == "" || strings.HasPrefix(pat, "#") {
			continue
		}
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		if !strings.Contains(pat, "/") {
			// A bare name or glob matches at any depth.
			pat = "**/" + pat
		}
		sc = append(sc, strings.Split(strings.TrimPrefix(pat, "/"), "/"))
	}
	return sc
}

// match is OutOfScope of p on the patterns of sc.
func (sc scope) match(p string) bool {
	if len(sc) == 0 {
		return false
	}
	segs := strings.Split(strings.TrimPrefix(path.Clean("/"+p), "/"), "/")
	for _, pat := range sc {
		if globMatch(pat, segs) {
			return true
		}
	}
	return false
}

// globMatch matches path segments against pattern segments, "**" being
// any number of segments.
func globMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return true
			}
			for i := 0; i <= len(segs); i++ {
				if globMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// freshFindings are the findings every engine in the gate would send to
// triage this cycle, before DD1 merges them.
func (d *decider) freshFindings() []Finding {
	var out []Finding
	if n := d.countFresh(); n > 0 {
		out = make([]Finding, 0, n)
	}
	for _, e := range d.ev {
		if e.out {
			continue
		}
		for _, f := range e.fresh {
			out = append(out, *f)
		}
	}
	return out
}

// countFresh is how many findings freshFindings gives.
func (d *decider) countFresh() int {
	n := 0
	for _, e := range d.ev {
		if !e.out {
			n += len(e.fresh)
		}
	}
	return n
}

// dedupFresh is Dedup of freshFindings, read in place: the cycle's own
// slice of the findings to triage, nil when there are none.
func (d *decider) dedupFresh() []Finding {
	n := d.countFresh()
	if n == 0 {
		return nil
	}
	at := make([]*Finding, 0, n)
	for _, e := range d.ev {
		if !e.out {
			at = append(at, e.fresh...)
		}
	}
	out, _ := dedupAt(n, func(i int) *Finding { return at[i] })
	return out
}

// tooLargeNotices say on the PR which engines will not review it (CV6).
func (d *decider) tooLargeNotices() {
	for _, e := range d.ev {
		if e.tooLarge {
			d.plan.Notices = append(d.plan.Notices, "engine "+e.view.Engine+" "+e.note)
		}
	}
}

// PushesSince is the commit from which the loop reads the commits pushed
// since its last look (CV4, CV5): its own last pushed commit, else the
// head it saw last cycle; "" when the head did not move, or moved by the
// loop's own push.
func PushesSince(st state.State, head string) string {
	if u := st.UnreadPushes; u != nil && head != "" && head != st.LastPushSHA && head != st.PendingPushSHA {
		// CV7: read again what could not be read, from where it started.
		return u.Base
	}
	if head == "" || st.LastObservedSHA == "" || head == st.LastObservedSHA || head == st.LastPushSHA || head == st.PendingPushSHA {
		return ""
	}
	if st.LastPushSHA != "" {
		return st.LastPushSHA
	}
	return st.LastObservedSHA
}

// UndoSuspect is the loop's last pushed fix commit that a push since may
// have undone (CV4): it is still behind the head (the compare from the
// last look is "ahead") and a commit since touched one of its files; nil
// otherwise, and then the head is not compared with its parent.
func UndoSuspect(st state.State, status string, touched []string) *state.FixCommit {
	var fc *state.FixCommit
	for i, c := range st.FixCommits {
		if c.SHA == st.LastPushSHA && c.Pushed && c.Parent != "" && len(c.Files) > 0 {
			fc = &st.FixCommits[i]
		}
	}
	if fc == nil || status != "ahead" {
		return nil
	}
	if !slices.ContainsFunc(fc.Files, func(f state.ChangedFile) bool { return slices.Contains(touched, f.Path) }) {
		return nil // nothing pushed since touched its files
	}
	return fc
}

// Undone reports whether the head undid fix commit fc (CV4): none of the
// files it changed differ between its parent and the head (differ are
// the files that do).
func Undone(fc state.FixCommit, differ []string) bool {
	return !slices.ContainsFunc(fc.Files, func(f state.ChangedFile) bool { return slices.Contains(differ, f.Path) })
}

// NeedsDiffChars reports whether an installed engine among views has a
// character limit that the changed lines do not already put it over: only
// then is the diff's size in characters read (CV6).
func NeedsDiffChars(views []EngineView, limits map[string]DiffLimit, lines int) bool {
	return slices.ContainsFunc(views, func(v EngineView) bool {
		lim := limits[v.Engine]
		return v.Installed && lim.Chars > 0 && (lim.Lines <= 0 || lines <= lim.Lines)
	})
}

// SavedDiffChars is the diff's size in characters that a cycle on the same
// base and head saved (CV6), and whether there is one.
func SavedDiffChars(st state.State, base, head string) (int, bool) {
	d := st.DiffChars
	if d == nil || head == "" || d.Head != head || d.Base != base {
		return 0, false
	}
	return d.Chars, true
}

// RecordDiffChars saves a known size in characters of the diff from base
// to head with the state (CV6), so a wake on the same commits does not
// read it again; an unknown one (0) changes nothing.
func RecordDiffChars(st state.State, base, head string, chars int) state.State {
	if chars > 0 && head != "" {
		st.DiffChars = &state.DiffChars{Base: base, Head: head, Chars: chars}
	}
	return st
}
