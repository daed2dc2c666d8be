package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// commentEvents is how many of the latest events the status comment shows.
const commentEvents = 20

// summaryEvents is how many of the latest events the job summary shows.
const summaryEvents = 200

// StatusComment renders the visible part of the PR's one status comment,
// edited in place every cycle; state.Encode appends the hidden state. It
// shows the phase at a glance, the hand-back report once the loop is
// over, the two lines of rule S4 per engine, the bounds used, the triage
// table (TR5), the approvals waiting for a maintainer and the latest events.
func StatusComment(in Input) string {
	return render(in, commentEvents)
}

// JobSummary renders the report for $GITHUB_STEP_SUMMARY: the status
// comment's content with a link to the pull request and a longer event log.
func JobSummary(in Input) string {
	return render(in, summaryEvents)
}

func render(in Input, events int) string {
	s := Summarize(in)
	var b strings.Builder
	b.WriteString(header(in, s) + "\n\n")
	if events > commentEvents {
		if u := in.prURL(); u != "" {
			fmt.Fprintf(&b, "Pull request: %s\n\n", u)
		}
	}
	fmt.Fprintf(&b, "**Cycle %d** · phase `%s` · verdict `%s`", s.Cycle, s.Phase, s.Verdict)
	if s.Reason != "" {
		fmt.Fprintf(&b, " · end reason `%s`", s.Reason)
	}
	b.WriteString("  \n" + boundsLine(in) + "\n")
	b.WriteString(freshness(in, s))
	if why := in.Plan.Why; why != "" {
		b.WriteString("_" + linkRules(Escape(why, maxNoteRunes), in.RulesURL) + "_\n")
	}
	if ns := in.notices(); len(ns) > 0 {
		b.WriteString("\n")
		for _, n := range ns {
			b.WriteString("> ℹ️ " + linkRules(Escape(n, maxNoteRunes), in.RulesURL) + "\n")
		}
	}
	if l := approvalLine(in); l != "" {
		b.WriteString("\n" + l)
	}
	if s.Finished {
		b.WriteString("\n" + handBack(in, s))
	}
	b.WriteString("\n#### Engines\n\n")
	for _, e := range s.Engines {
		b.WriteString(engineLines(in, e, "- ") + "\n")
	}
	if len(s.Engines) == 0 {
		b.WriteString("_No engine selected yet._\n\n")
	}
	b.WriteString(triageTable(in))
	b.WriteString(approvals(in))
	b.WriteString(lastCycle(in))
	if !s.Finished {
		b.WriteString(costSection(in)) // the hand-back holds it once finished
	}
	b.WriteString(eventLog(in.State, events))
	return b.String()
}

// lastCycle lists the effects of the cycle that wrote the state, each
// with its rule, folded: what the loop did, in the order it did it.
func lastCycle(in Input) string {
	if len(in.State.LastCycle) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n<details><summary>This cycle, effect by effect</summary>\n\n")
	for i, e := range in.State.LastCycle {
		fmt.Fprintf(&b, "%d. %s\n", i+1, linkRules(Escape(e, maxNoteRunes), in.RulesURL))
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// header is the one line a maintainer reads first.
func header(in Input, s Summary) string {
	const prefix = "### "
	switch {
	case s.Phase == PhaseStopped:
		return prefix + "⏹️ review-loop — stopped by a maintainer"
	case s.Finished && s.Verdict == VerdictClean:
		switch n := in.State.Commits; n {
		case 0:
			return prefix + "✅ review-loop — clean with no fix commits"
		case 1:
			return prefix + "✅ review-loop — clean after 1 fix commit"
		default:
			return fmt.Sprintf("%s✅ review-loop — clean after %d fix commits", prefix, n)
		}
	case s.Finished:
		return fmt.Sprintf("%s✋ review-loop — handed back: %s", prefix, Escape(string(cmpReason(s.Reason)), 40))
	case s.Phase == PhaseFix:
		return fmt.Sprintf("%s🔧 review-loop — cycle %d · fixing %s", prefix, s.Cycle, plural(len(in.Plan.Triage), "finding"))
	case s.Phase == PhaseTrigger:
		var names []string
		for _, t := range in.Plan.Triggers {
			names = append(names, t.Engine)
		}
		if len(names) == 0 {
			return fmt.Sprintf("%s🔁 review-loop — cycle %d · starting", prefix, s.Cycle)
		}
		return fmt.Sprintf("%s🔁 review-loop — cycle %d · triggering %s", prefix, s.Cycle, Escape(strings.Join(names, ", "), 0))
	case len(s.Waiting) > 0:
		return fmt.Sprintf("%s🔁 review-loop — cycle %d · waiting for %s", prefix, s.Cycle, Escape(strings.Join(s.Waiting, ", "), 0))
	default:
		return fmt.Sprintf("%s🔁 review-loop — cycle %d · waiting", prefix, s.Cycle)
	}
}

func cmpReason(r loop.EndReason) loop.EndReason {
	if r == "" {
		return "done"
	}
	return r
}

// boundsLine shows each hard bound as used/limit (B1–B3, IN5).
func boundsLine(in Input) string {
	st, bd := in.State, in.Bounds
	of := func(used, limit int) string {
		if limit > 0 {
			return fmt.Sprintf("%d/%d", used, limit)
		}
		return itoa(used)
	}
	line := fmt.Sprintf("Bounds: commits %s · active %s min",
		of(st.Commits, bd.MaxCommits), of(int(st.ActiveSeconds/60), bd.MaxActiveMinutes))
	// B3 is shown as a time, not a count, so an idle wake leaves the
	// comment as it is (C2).
	if !st.IdleSince.IsZero() {
		line += " · idle since " + st.IdleSince.UTC().Format("2006-01-02 15:04 UTC")
		if bd.MaxIdleMinutes > 0 {
			line += fmt.Sprintf(" (bound %d min)", bd.MaxIdleMinutes)
		}
	}
	if in.CopilotOnly {
		line += " · iterations " + of(st.Iteration, bd.MaxIterations)
	}
	return line
}

// engineLines renders rule S4's two lines for one engine: its review
// state, then its active findings with their comment ids.
func engineLines(in Input, e Engine, bullet string) string {
	var b strings.Builder
	b.WriteString("**" + Escape(e.Name, 60) + "**\n")
	b.WriteString(bullet + "check run: " + stateLine(e, true) + "\n")
	b.WriteString(bullet + "findings: " + findingsLine(in, e, true) + "\n")
	return b.String()
}

// stateLine is S4's first line: review state, mark or verdict, judge, note.
func stateLine(e Engine, md bool) string {
	esc := Plain
	st, strong := string(e.State), func(s string) string { return s }
	if md {
		esc = Escape
		st = "`" + st + "`"
		strong = func(s string) string { return "**" + s + "**" }
	}
	parts := []string{st}
	switch {
	case !e.QuotaUntil.IsZero():
		// T8: a quota is a wait with an end, not a broken engine.
		parts = append(parts, "⏳ "+strong("QUOTA")+" — cooldown until "+cooldownEnd(e.QuotaUntil))
	case e.Mark != "":
		parts = append(parts, "⚠️ "+strong(e.Mark))
	case e.Verdict != "":
		parts = append(parts, strong(string(e.Verdict)))
	case e.ActiveKnown:
		parts = append(parts, "pending")
	}
	if e.Judge != "" {
		parts = append(parts, "judge "+string(e.Judge))
	}
	line := strings.Join(parts, " · ")
	if e.Note != "" {
		line += " — " + esc(e.Note, maxNoteRunes)
	}
	return line
}

// findingsLine is S4's second line: the active findings by comment id.
func findingsLine(in Input, e Engine, md bool) string {
	var line string
	switch {
	case !e.ActiveKnown:
		line = "not observed by this run (the next cycle reads them)"
	case len(e.Active) == 0:
		line = "0 active findings"
	default:
		ids := make([]string, 0, len(e.Active))
		for _, id := range e.Active {
			ids = append(ids, findingRef(in, id, md))
		}
		sep := ", "
		if md {
			sep = "; "
		}
		line = plural(len(e.Active), "active finding") + ": " + strings.Join(ids, sep)
	}
	if e.LowConfidence > 0 {
		line += fmt.Sprintf(" · %d low-confidence in the review body (not counted)", e.LowConfidence)
	}
	if len(e.BelowFloor) > 0 && e.ActiveKnown {
		ids := make([]string, 0, len(e.BelowFloor))
		for _, id := range e.BelowFloor {
			ids = append(ids, findingRef(in, id, md))
		}
		line += " · " + plural(len(e.BelowFloor), "finding") + " below the severity floor, listed for you, not blocking (EQ3): " + strings.Join(ids, "; ")
	}
	if e.Stated != nil && e.ActiveKnown {
		src := Plain(e.Stated.Source, maxNoteRunes)
		if md {
			src = Escape(e.Stated.Source, maxNoteRunes)
		}
		line += fmt.Sprintf(" · the engine states %d open, %d counted (S6: %s)", e.Stated.N, e.Counted, src)
	}
	return line
}

// findingRef is one active finding: its comment id, linked, and its title.
func findingRef(in Input, id int64, md bool) string {
	title := in.Titles[id]
	if !md {
		s := itoa64(id)
		if title != "" {
			s += " " + Plain(title, MaxTitleRunes)
		}
		return s
	}
	s := link(itoa64(id), in.commentURL(id))
	if title != "" {
		s += " " + Escape(title, MaxTitleRunes)
	}
	return s
}

func link(text, url string) string {
	if url == "" {
		return text
	}
	return "[" + text + "](" + safeURL(url) + ")"
}

// safeURL keeps a URL from closing the markdown link or the HTML comment.
func safeURL(u string) string { return urlEscaper.Replace(u) }

// urlEscaper is built once: a replacer built per link cost most of a
// large PR's rendering (C1).
var urlEscaper = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\n", "", "\r", "", "|", "%7C")

// triageTable renders the triage table (TR5): finding, engine, tier,
// justification, outcome and the cycle it was triaged in.
func triageTable(in Input) string {
	var b strings.Builder
	b.WriteString("#### Triage\n\n")
	if len(in.State.Triage) == 0 {
		b.WriteString("_No findings triaged yet._\n\n")
		return b.String()
	}
	b.WriteString("| finding | engine | tier | justification | outcome | cycle |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range in.State.Triage {
		just := orDash(Escape(r.Justification, MaxTitleRunes))
		if len(r.FlaggedBy) > 1 {
			just = "flagged by " + Escape(strings.Join(r.FlaggedBy, ", "), 80) + " · " + just
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d |\n",
			link(Escape(r.FindingID, 60), in.commentURL(r.CommentID)), Escape(r.Engine, 40), tier(r.Tier),
			just, Escape(r.Outcome, 40), r.Cycle)
	}
	b.WriteString("\n")
	if n := in.State.TriagePruned; n > 0 {
		fmt.Fprintf(&b, "_%d decided rows of earlier cycles, whose findings are closed, are no longer listed (R1); the totals count them._\n\n", n)
	}
	return b.String()
}

// awaitingApproval lists Tier 2 rows still waiting for a maintainer.
func awaitingApproval(st state.State) []state.TriageRow {
	var out []state.TriageRow
	for _, r := range st.Triage {
		if r.Outcome != loop.OutcomeAwaitingApproval && r.Outcome != "approved-pending" {
			continue
		}
		if slices.ContainsFunc(st.Approvals, func(a state.Approval) bool { return a.FindingID == r.FindingID }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// approvalLine is the status comment's one line for Tier 2 findings
// still waiting for a maintainer (TR2): the command to comment so that
// in.FixerWho (the fixer in effect: "the agent (claude-code)", "the
// fixer command") fixes them; "" when none waits or no fixer is named.
// TR2 decides that an uncodified finding is fixed only after that
// approval, whatever the fixer.
func approvalLine(in Input) string {
	pending := awaitingApproval(in.State)
	if len(pending) == 0 || in.FixerWho == "" {
		return ""
	}
	tr2 := linkRules("TR2", in.RulesURL)
	if id := pending[0].FindingID; len(pending) == 1 && commandSafe(id) {
		return fmt.Sprintf("> 👉 Finding %s is Tier 2 and waits for a maintainer (%s): comment %s to let %s fix it.\n",
			Escape(id, 60), tr2, code("@review-loop approve "+id), Escape(in.FixerWho, 60))
	}
	return fmt.Sprintf("> 👉 %d Tier 2 findings wait for a maintainer (%s): comment %s with an id listed under Approvals to let %s fix it.\n",
		len(pending), tr2, code("@review-loop approve <id>"), Escape(in.FixerWho, 60))
}

// approvals tells a maintainer what waits for them and how to approve it
// (TR2), and which approvals the next fix cycle will act on.
func approvals(in Input) string {
	st := in.State
	pending := awaitingApproval(st)
	var approved []state.Approval
	for _, a := range st.Approvals {
		fixed := slices.ContainsFunc(st.Triage, func(r state.TriageRow) bool {
			return r.FindingID == a.FindingID && r.Outcome == loop.OutcomeFixed
		})
		if !fixed {
			approved = append(approved, a)
		}
	}
	if len(pending) == 0 && len(approved) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Approvals\n\n")
	for _, r := range pending {
		hint := "approve with `@review-loop approve <id> [direction]`"
		if commandSafe(r.FindingID) {
			hint = "approve with " + code("@review-loop approve "+r.FindingID+" [direction]")
		}
		fmt.Fprintf(&b, "- %s (%s, Tier %d): %s — %s\n",
			link(Escape(r.FindingID, 60), in.commentURL(r.CommentID)), Escape(r.Engine, 40), r.Tier,
			orDash(Escape(r.Justification, MaxTitleRunes)), hint)
	}
	for _, a := range approved {
		s := "- " + Escape(a.FindingID, 60) + ": approved"
		if a.By != "" {
			s += " by " + Escape(a.By, 40)
		}
		if a.Direction != "" {
			s += " (direction: " + Escape(a.Direction, MaxTitleRunes) + ")"
		}
		b.WriteString(s + "; the next fix cycle applies it\n")
	}
	b.WriteString("\n")
	return b.String()
}

// eventLog renders the latest events as JSON lines in a collapsed block
// (H6). JSON escapes <, > and & and every line starts with "{", so the
// block can neither close the fence nor the hidden state's comment.
func eventLog(st state.State, n int) string {
	if len(st.Events) == 0 {
		return ""
	}
	evs := st.Events
	if len(evs) > n {
		evs = evs[len(evs)-n:]
	}
	var buf bytes.Buffer
	_ = state.WriteEventLog(&buf, evs) // state.Event always marshals
	total := len(st.Events) + st.EventsDropped
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>Event log (last %d of %s)</summary>\n\n````jsonl\n", len(evs), plural(total, "event"))
	b.WriteString(buf.String())
	b.WriteString("````\n\n</details>\n")
	return b.String()
}

func tier(t int) string {
	if t == 0 {
		return "—"
	}
	return itoa(t)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}

// cooldownEnd is when a quota cooldown ends, as the status comment shows
// it beside the engine: the time of day in UTC (the engine's note beside
// it carries the full date and time).
func cooldownEnd(t time.Time) string {
	return t.UTC().Format("15:04 UTC")
}
