package report

import (
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
)

// followUps is the one-line follow-up of every end reason (H5).
var followUps = map[loop.EndReason]string{
	loop.EndClean: "Every engine is clean on the last commit; review the changes yourself and merge when satisfied — the loop never merges.",
	loop.EndNoFixes: "No fix could be applied this cycle (escalated, awaiting approval or reverted); handle the remaining findings " +
		"by hand or approve Tier 2 ones with `@review-loop approve <id>`, then comment `@review-loop start`.",
	loop.EndNoComments:    "Copilot left no comments on the last commit; review the changes yourself and merge when satisfied.",
	loop.EndMaxIterations: "Hit the max-iterations cap; the engine may still have feedback — review manually or re-run with a higher max-iterations.",
	loop.EndTimeout: "No review arrived within poll-timeout; check that the engine is installed and reachable, " +
		"then comment `@review-loop start` to try again.",
	loop.EndBound: "A bound tripped (commits, active minutes, idle time, or an engine stalled past its latency and marked HUNG); " +
		"look at the engines still pending or finding, then raise the bound or finish by hand.",
	loop.EndNoProgress: "The same finding category came back after a fix was attempted; the loop is going in circles — " +
		"fix it by hand or skip it with `@review-loop skip <id>`.",
	loop.EndDiverging: "The loop's fixes fed the engines new findings on the lines they changed (or a fixed defect came back), so it stopped fixing; " +
		"follow the chain named above, fix it by hand, then comment `@review-loop start`.",
	loop.EndTooLarge: "The diff is over every selected engine's own size limit, so no review will come; split the PR or review it by hand.",
	loop.EndStopped:  "A maintainer stopped the loop; comment `@review-loop start` to resume it.",
	loop.EndError: "The loop could not go on (an engine or the action errored); read the notes and the event log, " +
		"fix the cause, then comment `@review-loop start`.",
}

// FollowUp returns the one-line follow-up of an end reason (H5); an
// unknown reason gets a generic one.
func FollowUp(r loop.EndReason) string {
	if f, ok := followUps[r]; ok {
		return f
	}
	if r == "" {
		return "The loop is still running; this report is provisional."
	}
	return "The loop ended for a reason this version does not know; read the event log."
}

// HandBack renders the hand-back report (H1–H7): asymmetric clearance
// first (H2), then the pull request, last commit and end reason with its
// follow-up (H5), the per-engine outcome table (H1), the Copilot-only
// totals, the Tier 3 escalations with their reasoning (H3), non-blocking
// items (J5), open stale threads (E9), the large-PR caveat (H7) and the
// broader regression command (H4).
func HandBack(in Input) string {
	return handBack(in, Summarize(in))
}

// unproven is S8 at hand-back: each engine left UNPROVEN, named with the
// text it posted that is not a finished review of the head, clipped and
// escaped, for a person to judge.
func unproven(s Summary) string {
	var b strings.Builder
	for _, e := range s.Engines {
		if e.Verdict != loop.VerdictUnproven {
			continue
		}
		fmt.Fprintf(&b, "> [!WARNING]\n> **%s is UNPROVEN:** %s\n> Nothing it posted is a finished review of the head that review-loop recognises: read it and judge it yourself. An unrecognised text is never taken as clean (S8). If you judge its review of the head finished, answer %s and the loop goes on with your word as its proof for this head (S11).\n\n",
			Escape(e.Name, 40), cmpStr(Escape(e.Note, maxNoteRunes), "no text"), acceptCommand(e.Name))
	}
	return b.String()
}

func handBack(in Input, s Summary) string {
	var b strings.Builder
	b.WriteString("#### Hand-back\n\n")
	if s.Asymmetric {
		var not []string
		for _, e := range s.Engines {
			if e.Verdict != "" && e.Verdict != loop.VerdictClean {
				not = append(not, Escape(e.Name, 40)+" ("+string(e.Verdict)+")")
			}
		}
		fmt.Fprintf(&b, "> [!WARNING]\n> **Asymmetric clearance:** clean: %s · not clean: %s. "+
			"One engine's clean pass does not clear the others; review what they did not.\n\n",
			Escape(strings.Join(s.Clean, ", "), 0), strings.Join(not, ", "))
	}
	if u := in.prURL(); u != "" {
		b.WriteString("- Pull request: " + safeURL(u) + "\n")
	}
	if c := lastCommit(in); c != "" {
		b.WriteString("- Last commit: " + commitRef(in, c) + "\n")
	}
	fmt.Fprintf(&b, "- Verdict: **%s**\n", s.Verdict)
	fmt.Fprintf(&b, "- End reason: `%s` — %s\n", Plain(string(cmpReason(s.Reason)), 40), FollowUp(s.Reason))
	b.WriteString("\n| engine | cycles | auto-fixed | approved | escalated | skipped | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, e := range s.Engines {
		verdict := orDash(string(e.Verdict))
		if !e.QuotaUntil.IsZero() {
			verdict = "QUOTA until " + cooldownEnd(e.QuotaUntil)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s |\n", Escape(e.Name, 40), e.Cycles, e.Fixed, e.Approved,
			e.Escalated, e.Skipped, verdict)
	}
	b.WriteString("\n")
	b.WriteString(unproven(s))
	if in.CopilotOnly {
		t := in.State.Totals
		fmt.Fprintf(&b, "Copilot comments: %d fixed · %d outdated · %d disagreed\n\n", t.Fixed, t.Outdated, t.Disagreed)
	}
	b.WriteString(escalations(in))
	b.WriteString(belowFloor(in, s))
	b.WriteString(nonBlocking(in))
	b.WriteString(remembered(in))
	b.WriteString(scorecardSection(in))
	b.WriteString(costSection(in))
	if in.StaleThreads > 0 {
		fmt.Fprintf(&b, "**Stale threads:** %s (outdated, or from older reviews) still open. "+
			"Comment `@review-loop resolve-stale` to resolve those whose finding no longer appears.\n\n",
			plural(in.StaleThreads, "review thread"))
	}
	if s.LargePR {
		b.WriteString("> [!IMPORTANT]\n> **Large PR:** a single clean pass is necessary but not sufficient on a change this size; " +
			"review it in parts as well.\n\n")
	}
	if c := strings.TrimSpace(in.RegressionCommand); c != "" {
		b.WriteString("**Before merging:** Run " + code(c) + " before merging; the loop ran only targeted tests.\n")
	} else {
		b.WriteString("**Before merging:** run your full test suite; the loop ran only targeted tests. " +
			"Set the `regression-command` input to have this report name the command.\n")
	}
	return b.String()
}

func lastCommit(in Input) string {
	if in.LastCommit != "" {
		return in.LastCommit
	}
	if in.State.LastObservedSHA != "" {
		return in.State.LastObservedSHA
	}
	return in.State.LastPushSHA
}

func commitRef(in Input, sha string) string {
	short := Plain(sha, 0)
	if len(short) > 7 {
		short = short[:7]
	}
	if in.Repo == "" {
		return code(short)
	}
	return "[" + code(short) + "](" + safeURL(in.server()+"/"+in.Repo+"/commit/"+sha) + ")"
}

// escalations lists Tier 3 findings with their reasoning (H3); for Tier 3
// rows the saved justification holds the escalation reason.
func escalations(in Input) string {
	var b strings.Builder
	for _, r := range in.State.Triage {
		if r.Tier != 3 && r.Outcome != loop.OutcomeEscalated {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("#### Escalated to you (Tier 3)\n\n")
		}
		fmt.Fprintf(&b, "- %s (%s): %s\n", link(Escape(r.FindingID, 60), in.commentURL(r.CommentID)),
			Escape(r.Engine, 40), cmpStr(Escape(r.Justification, maxNoteRunes), "no reasoning recorded"))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// nonBlocking lists the judge's non-blocking items with the issue filed
// for each or a proposed follow-up (J5).
func nonBlocking(in Input) string {
	items := in.State.NonBlocking
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Non-blocking items\n\n")
	for _, it := range items {
		where := ""
		if it.Path != "" {
			where = " (" + Escape(it.Path, MaxTitleRunes)
			if it.Line > 0 {
				where += ":" + itoa(it.Line)
			}
			where += ")"
		}
		follow := "proposed follow-up: a separate PR or issue, so this one stays focused"
		if u := in.NonBlockingIssues[it.ID]; u != "" {
			follow = "tracked in " + safeURL(u)
		}
		fmt.Fprintf(&b, "- %s: %s%s — %s\n", Escape(it.Engine, 40), Escape(it.Title, MaxTitleRunes), where, follow)
	}
	b.WriteString("\n")
	return b.String()
}

func cmpStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// acceptCommand is the `accept` command for an engine, as a code span
// when the name is safe to show as one (S11).
func acceptCommand(engine string) string {
	if commandSafe(engine) {
		return code("@review-loop accept " + engine)
	}
	return "`@review-loop accept <engine>`"
}

// belowFloor lists the findings below the severity floor (EQ3): they
// blocked neither CLEAN nor the gate, and were not fixed; a person
// decides on them.
func belowFloor(in Input, s Summary) string {
	var b strings.Builder
	for _, e := range s.Engines {
		for _, id := range e.BelowFloor {
			if b.Len() == 0 {
				b.WriteString("#### Below the severity floor (for you)\n\n" +
					"These findings are below `clean-at`: they blocked neither CLEAN nor the merge gate and were not fixed.\n\n")
			}
			fmt.Fprintf(&b, "- %s (%s)\n", findingRef(in, id, true), Escape(e.Name, 40))
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
