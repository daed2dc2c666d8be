package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/review-loop/review-loop/internal/state"
)

// StatusText renders the plain text of the `review-loop status` command:
// the phase at a glance, the two lines of rule S4 per engine, the bounds,
// the triage table (TR5), the hand-back outcome when the loop is over, and
// the event log as JSON lines (H6). Untrusted text is reduced to single
// lines without control characters, so it cannot drive the terminal.
func StatusText(in Input) string {
	s := Summarize(in)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", strings.Replace(strings.TrimPrefix(stripEmoji(header(in, s)), "### "), " — ", ": ", 1))
	if u := in.prURL(); u != "" {
		fmt.Fprintf(&b, "pull request: %s\n", Plain(u, 0))
	}
	fmt.Fprintf(&b, "cycle %d · phase %s · verdict %s", s.Cycle, s.Phase, s.Verdict)
	if s.Reason != "" {
		fmt.Fprintf(&b, " · end reason %s", Plain(string(s.Reason), 40))
	}
	b.WriteString("\n" + boundsLine(in) + "\n")
	if s.Finished {
		fmt.Fprintf(&b, "follow-up: %s\n", plainMarkdown(FollowUp(s.Reason)))
		if s.Asymmetric {
			fmt.Fprintf(&b, "ASYMMETRIC CLEARANCE: clean: %s · not clean: %s\n", strings.Join(s.Clean, ", "), strings.Join(s.NotClean, ", "))
		}
	}
	for _, n := range in.notices() {
		b.WriteString("notice: " + Plain(n, maxNoteRunes) + "\n")
	}
	b.WriteString("\nengines:\n")
	for _, e := range s.Engines {
		fmt.Fprintf(&b, "  %s\n", Plain(e.Name, 60))
		fmt.Fprintf(&b, "    check run: %s\n", stateLine(e, false))
		fmt.Fprintf(&b, "    findings:  %s\n", findingsLine(in, e, false))
	}
	if len(in.State.LastCycle) > 0 {
		b.WriteString("\nlast cycle:\n")
		for i, e := range in.State.LastCycle {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, Plain(e, maxNoteRunes))
		}
	}
	b.WriteString("\ntriage:\n")
	if len(in.State.Triage) == 0 {
		b.WriteString("  (no findings triaged yet)\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  FINDING\tENGINE\tTIER\tOUTCOME\tCYCLE\tJUSTIFICATION")
		for _, r := range in.State.Triage {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\n", Plain(r.FindingID, 60), Plain(r.Engine, 40), tier(r.Tier),
				Plain(r.Outcome, 40), r.Cycle, orDash(Plain(r.Justification, MaxTitleRunes)))
		}
		_ = tw.Flush() // writes to a strings.Builder cannot fail
	}
	for _, r := range awaitingApproval(in.State) {
		id := Plain(r.FindingID, 60)
		if commandSafe(r.FindingID) {
			fmt.Fprintf(&b, "awaiting approval: %s — comment: @review-loop approve %s [direction]\n", id, id)
		} else {
			fmt.Fprintf(&b, "awaiting approval: %s — comment: @review-loop approve <id> [direction]\n", id)
		}
	}
	fmt.Fprintf(&b, "\nevent log (%s, JSON lines):\n", plural(len(in.State.Events), "event"))
	if in.State.EventsDropped > 0 {
		fmt.Fprintf(&b, "(%d older events dropped to fit the comment)\n", in.State.EventsDropped)
	}
	_ = state.WriteEventLog(&b, in.State.Events) // state.Event always marshals
	return b.String()
}

// stripEmoji drops the header's leading emoji for plain text.
func stripEmoji(h string) string {
	for _, e := range []string{"🔁 ", "🔧 ", "✅ ", "✋ ", "⏹️ "} {
		h = strings.Replace(h, e, "", 1)
	}
	return h
}

// plainMarkdown drops the inline code marks of a trusted markdown line.
func plainMarkdown(s string) string { return strings.ReplaceAll(s, "`", "") }
