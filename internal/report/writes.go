package report

import (
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file is the text of the single GitHub writes a cycle makes besides
// the status comment: the body-findings comment (E6), a follow-up issue
// (J5), the gate superseded on an old head (MG2), and the set-up notices
// a refused write leaves (E6, CI1, W5, MG1).

// BodyFindingsComment says once on the PR which fixed findings had no
// thread to reply to or resolve (E6): those an engine listed only in its
// review body (CodeRabbit's outside-diff and nitpick sections).
func BodyFindingsComment(pushed string, fs []loop.BodyFinding) string {
	lines := make([]string, 0, len(fs))
	for _, bf := range fs {
		f := bf.Finding
		where := "`" + f.Path + "`"
		if f.Line > 0 {
			where = fmt.Sprintf("`%s` (line %d)", f.Path, f.Line)
			if f.StartLine > 0 && f.StartLine < f.Line {
				where = fmt.Sprintf("`%s` (lines %d-%d)", f.Path, f.StartLine, f.Line)
			}
		}
		lines = append(lines, fmt.Sprintf("- %s %s: %s (`%s`)", f.Engine, where, f.Title, f.ID))
	}
	return fmt.Sprintf("review-loop fixed these findings in %s. Their engine listed them only in its review body, so there is no thread to reply to or resolve:\n\n%s", pushed, strings.Join(lines, "\n"))
}

// FollowUpIssue is the title and body of the issue a non-blocking item
// is filed as (J5).
func FollowUpIssue(it state.Item, number int, prURL string) (title, body string) {
	body = fmt.Sprintf("Non-blocking review item from %s on #%d (%s).\n\n%s", it.Engine, number, prURL, it.Title)
	if it.Path != "" {
		body += fmt.Sprintf("\n\nLocation: `%s`", it.Path)
		if it.Line > 0 {
			body += fmt.Sprintf(" line %d", it.Line)
		}
	}
	return "Follow-up: " + it.Title, body
}

// SupersededSummary is the summary of the gate concluded on an old head
// (MG2).
func SupersededSummary(head string) string {
	return fmt.Sprintf("The pull request's head moved to %s; review-loop's gate is on that commit now (MG2).", head)
}

// GateUnavailable is the set-up notice of a gate GitHub refused to write
// (MG1).
func GateUnavailable(err error) string {
	return fmt.Sprintf("could not publish the `%s` check run (%v): give the workflow `checks: write` so branch protection can require it (MG1)", loop.GateName, err)
}

// ResolveRefused is the set-up notice of a token that may not resolve
// review threads (E6).
func ResolveRefused(err error) string {
	return fmt.Sprintf("resolving review threads is not permitted for this token (%v); the threads stay open and the findings still count as fixed", err)
}

// CIDispatchRefused is the set-up notice of a CI workflow GitHub refused
// to dispatch (CI1): noTrigger when it has no workflow_dispatch trigger,
// permission when the token lacks `actions: write`.
func CIDispatchRefused(file, ref string, err error, noTrigger, permission bool) string {
	msg := fmt.Sprintf("could not dispatch the CI workflow %s on %s (%v); its checks do not run on review-loop's commits (CI1)", file, ref, err)
	if noTrigger {
		msg = fmt.Sprintf("%s has no workflow_dispatch trigger, so review-loop cannot run it on its own commits (a push made with GITHUB_TOKEN starts no workflow): add `workflow_dispatch:` to its `on:`, or give a push-token (CI1)", file)
	}
	if permission {
		msg += "; the workflow needs `actions: write`"
	}
	return msg
}

// RedispatchRefused is the set-up notice of review-loop's own workflow
// GitHub refused to dispatch again (W5).
func RedispatchRefused(file string, err error) string {
	return fmt.Sprintf("could not re-dispatch %s (%v): give the workflow a workflow_dispatch trigger with a `pr` input and `actions: write`; until then the loop relies on engine events and the scheduled sweep (W5)", file, err)
}

// StaleResolved is the notice of a resolve-stale command (E9).
func StaleResolved(n int) string {
	if n == 0 {
		return "resolve-stale: no stale review thread is open"
	}
	return fmt.Sprintf("resolve-stale: resolved %d stale review thread(s)", n)
}
