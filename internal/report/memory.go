package report

import (
	"fmt"
	"slices"
	"strings"
)

// remembered lists, once each, the won't-fix decisions that an engine
// raised again on a later head (WF1): what was decided, why, and where;
// the state's rows and those read back from the threads (Plan.Reraised).
func remembered(in Input) string {
	var b strings.Builder
	for _, m := range slices.Concat(in.State.WontFix, in.Plan.Reraised) {
		if len(m.ReraisedBy) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("#### Won't fix, remembered (WF1)\n\n")
		}
		why := Escape(m.Reason, maxNoteRunes)
		if m.ReplyURL != "" {
			why = link(why, m.ReplyURL)
		}
		fmt.Fprintf(&b, "- %s: %s (%s) — %s; raised again by %s, not counted as open\n",
			code(m.Path), Escape(m.Title, MaxTitleRunes), link(Escape(m.FindingID, 60), in.commentURL(m.CommentID)),
			why, Escape(strings.Join(m.ReraisedBy, ", "), 80))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
