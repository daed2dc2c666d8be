package report

import (
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/state"
)

// Convergence renders the convergence section of the merge gate's
// summary (CV1–CV6): per fix round, the findings raised on the lines its
// own fix commit changed; whether auto-fix is off and why; the findings
// listed for a human instead of fixed. Empty when there is nothing to say.
func Convergence(st state.State) string {
	var lines []string
	for _, fc := range st.FixCommits {
		var ids []string
		for _, in := range st.Induced {
			if in.Commit == fc.SHA {
				ids = append(ids, Escape(in.FindingID, 80))
			}
		}
		if len(ids) > 0 {
			lines = append(lines, fmt.Sprintf("- CV1 round %d: fix `%s` fixed %d, followed by %d fix-induced finding(s): %s",
				fc.Round, shortSHA(fc.SHA), len(fc.Fixed), len(ids), strings.Join(ids, ", ")))
		}
	}
	if st.EndReason == "diverging" {
		lines = append(lines, "- CV2: the loop stopped fixing: its fixes fed the engines new findings (diverging)")
	}
	if a := st.AutofixOff; a != nil {
		lines = append(lines, fmt.Sprintf("- CV4: auto-fix is off since %s: %s; `@review-loop resume` turns it back on",
			a.At.UTC().Format("2006-01-02 15:04 UTC"), Escape(a.Reason, 200)))
	}
	for _, h := range st.Held {
		lines = append(lines, fmt.Sprintf("- %s: %s (%s) is for a human: %s", h.Rule, Escape(h.FindingID, 80), Escape(h.Path, 120), Escape(h.Why, 200)))
	}
	if len(lines) == 0 {
		return ""
	}
	return "#### Convergence\n\n" + strings.Join(lines, "\n") + "\n\n"
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
