package sim

import (
	"crypto/sha1"
	"fmt"
	"strings"
	"time"
)

// Bot identities as GraphQL shows them (REST adds "[bot]").
const (
	BugbotLogin          = "cursor"
	BugbotID             = 206951365
	BugbotApp            = "cursor"
	BugbotCheck          = "Cursor Bugbot"
	CopilotReviewerLogin = "copilot-pull-request-reviewer"
	CopilotCommentLogin  = "Copilot"
	CopilotID            = 175728472
	CopilotCheck         = "Agent" // the job of the "Copilot code review" workflow (see CopilotWorkflowPath)
	ClaudeLogin          = "claude"
	ClaudeID             = 209825114
	ClaudeJob            = "claude-review"
	ClaudeWorkflowName   = "Claude Code Review"
	ClaudeWorkflowPath   = ".github/workflows/claude-code-review.yml"
	GeminiLogin          = "gemini-code-assist"
	GeminiID             = 176961590
	CodeRabbitLogin      = "coderabbitai"
	CodeRabbitID         = 136622811
	CodeRabbitCheck      = "CodeRabbit"
	CodeRabbitApp        = "coderabbitai"
	ActionsApp           = "github-actions"
	ActionsLogin         = "github-actions"
	ActionsID            = 41898282
)

// CopilotWorkflowPath is the path of Copilot's dynamic workflow, named
// "Copilot code review"; its check run is the workflow's JOB, which
// third-party code reports as "Agent" (CopilotCheck). Unconfirmed
// (ENGINES.md, round 2): the adapter must not depend on the name.
const CopilotWorkflowPath = "dynamic/copilot-pull-request-reviewer/copilot-pull-request-reviewer"

// ClaudeCommentWorkflow is the smallest Claude workflow a repository may
// have: one named "Claude Code" that runs only on issue comments, so the
// loop's "@claude review once" comment is what starts it.
const ClaudeCommentWorkflow = "name: Claude Code\non:\n  issue_comment:\n    types: [created]\njobs:\n  claude:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: anthropics/claude-code-action@v1\n"

// ClaudeWorkflow is the generated claude-code-review.yml with --comment,
// also listening to issue_comment so that the loop's "@claude review
// once" comment starts it: a comment starts only a workflow that listens
// to issue_comment, and that run is on the default branch's head.
const ClaudeWorkflow = `name: Claude Code Review
on:
  pull_request:
    types: [opened, synchronize, ready_for_review, reopened]
  issue_comment:
    types: [created]
jobs:
  claude-review:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write
      id-token: write
    steps:
      - uses: actions/checkout@v4
      - uses: anthropics/claude-code-action@v1
        with:
          anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}
          plugin_marketplaces: https://github.com/anthropics/claude-code.git
          plugins: code-review@claude-code-plugins
          prompt: /code-review:code-review ${{ github.repository }}/pull/${{ github.event.pull_request.number }} --comment
`

// bugID is a stable UUID-shaped id for a scripted finding.
func bugID(id string) string {
	h := sha1.Sum([]byte("bugbot:" + id))
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func title(f Finding) string {
	if t := strings.TrimSpace(f.Title); t != "" {
		return t
	}
	line, _, _ := strings.Cut(strings.TrimSpace(f.Body), "\n")
	return line
}

func severityWord(f Finding) string {
	switch f.Severity {
	case "critical":
		return "Critical"
	case "high":
		return "High"
	case "low":
		return "Low"
	}
	return "Medium"
}

func lines(a, b int) string {
	if a == 0 || a == b {
		return fmt.Sprintf("L%d", b)
	}
	return fmt.Sprintf("L%d-L%d", a, b)
}

func suggestionBlock(f Finding) string {
	if f.Suggestion == "" {
		return ""
	}
	return "\n\n```suggestion\n" + strings.TrimSuffix(f.Suggestion, "\n") + "\n```"
}

// bugbotComment renders a Bugbot inline comment with its hidden markers.
func bugbotComment(f Finding, start, line int, sha string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n**%s Severity**\n\n", title(f), severityWord(f))
	fmt.Fprintf(&b, "<!-- DESCRIPTION START -->\n%s\n<!-- DESCRIPTION END -->\n\n", strings.TrimSpace(f.Body))
	fmt.Fprintf(&b, "<!-- BUGBOT_BUG_ID: %s -->\n\n", bugID(f.ID))
	fmt.Fprintf(&b, "<!-- LOCATIONS START\n%s#%s\n", f.Path, lines(start, line))
	for _, l := range f.Locations {
		b.WriteString(l + "\n")
	}
	b.WriteString("LOCATIONS END -->\n")
	if len(f.Locations) > 0 {
		b.WriteString("<details>\n<summary>Additional Locations (" + fmt.Sprint(len(f.Locations)) + ")</summary>\n\n")
		for _, l := range f.Locations {
			b.WriteString("- [`" + l + "`](https://github.com/)\n")
		}
		b.WriteString("\n</details>\n")
	}
	b.WriteString(`<p><a href="https://cursor.com/open?data=sim" target="_blank" rel="noopener noreferrer"><picture><img alt="Fix in Cursor" width="115" height="28" src="https://cursor.com/assets/images/fix-in-cursor-dark.png"></picture></a></p>` + "\n\n")
	fmt.Fprintf(&b, "<sup>Reviewed by [Cursor Bugbot](https://cursor.com/bugbot) for commit %s. Configure [here](https://www.cursor.com/dashboard/bugbot).</sup>", sha)
	return b.String()
}

func bugbotSummary(n int, sha string) string {
	foot := fmt.Sprintf("\n\n<sup>Reviewed by [Cursor Bugbot](https://cursor.com/bugbot) for commit [`%s`](https://github.com/commit/%s). Configure [here](https://www.cursor.com/dashboard/bugbot).</sup>", short(sha), sha)
	if n == 0 {
		return "✅ Bugbot reviewed your changes and found no new issues!\n\n_Comment `@cursor review` or `bugbot run` to trigger another review on this PR_" + foot
	}
	s := "s"
	if n == 1 {
		s = ""
	}
	return fmt.Sprintf("Cursor Bugbot has reviewed your changes and found %d potential issue%s.\n\n_Comment `@cursor review` or `bugbot run` to trigger another review on this PR_", n, s) + foot
}

// bugbotCheckOutput is the check run's summary and text for a review
// that posted n new findings while previous earlier ones remain open, in
// Bugbot's own words and grammar ("1 previously reported issue remain
// unresolved", testdata/engines/bugbot/08).
func bugbotCheckOutput(n, previous int) (summary, text string) {
	plural := func(k int, one, many string) string {
		if k == 1 {
			return one
		}
		return many
	}
	if n == 0 {
		summary = "Final Result: Bugbot completed review - no new issues found!"
	} else {
		summary = fmt.Sprintf("Final Result: Bugbot completed review and found %d potential %s.", n, plural(n, "issue", "issues"))
	}
	if previous > 0 {
		summary += fmt.Sprintf(" %d previously reported %s remain unresolved.", previous, plural(previous, "issue", "issues"))
	}
	if total := n + previous; total > 0 {
		text = fmt.Sprintf("There %s %d total unresolved %s (including %d from previous review).", plural(total, "is", "are"), total, plural(total, "issue", "issues"), previous)
	}
	return summary, text
}

// BugbotUsageLimit is Bugbot's usage-limit stop, an issue comment
// (testdata/engines/bugbot/06, dsifry/metareview#206).
const BugbotUsageLimit = "<h3>Bugbot couldn't run - usage limit reached</h3>\n\nBugbot is counted against Cursor usage for this user or team, and this run hit a usage or spend limit.\n\nA user or team admin can review and increase usage limits in the [Cursor dashboard](https://www.cursor.com/dashboard/spending).\n\n(requestId: serverGenReqId_00000000-0000-4000-8000-000000000000)"

// BugbotSkippedLarge is the comment Bugbot leaves when it skips a very
// large PR (cursor.com/docs/bugbot; the exact wording is unconfirmed).
const BugbotSkippedLarge = "<h3>Bugbot skipped this PR</h3>\n\nThis pull request is too large for Bugbot to review."

// copilotComment renders a Copilot inline comment: prose and an optional
// suggestion block, no ids or severity.
func copilotComment(f Finding) string {
	body := strings.TrimSpace(f.Body)
	if body == "" {
		body = title(f)
	}
	return body + suggestionBlock(f)
}

func copilotOverview(files, n, low int) string {
	var b strings.Builder
	b.WriteString("## Pull request overview\n\nThis PR changes the calculator package and its tests.\n\n### Reviewed changes\n\n")
	gen := "no comments"
	switch {
	case n == 1:
		gen = "1 comment"
	case n > 1:
		gen = fmt.Sprintf("%d comments", n)
	}
	fmt.Fprintf(&b, "Copilot reviewed %d out of %d changed files in this pull request and generated %s.\n", files, files, gen)
	if low > 0 {
		fmt.Fprintf(&b, "\n<details>\n<summary>Comments suppressed due to low confidence (%d)</summary>\n\n", low)
		for i := range low {
			fmt.Fprintf(&b, "**calc/calc.go:%d**\n* Consider documenting this exported function.\n\n", i+1)
		}
		b.WriteString("</details>\n")
	}
	return b.String()
}

// CopilotErrorBody is what Copilot posts when it cannot review.
const CopilotErrorBody = "Copilot encountered an error and was unable to review this pull request. You can try again by re-requesting a review."

// claudeComment renders a Claude inline comment (code-review plugin).
func claudeComment(f Finding) string {
	body := strings.TrimSpace(f.Body)
	if t := strings.TrimSpace(f.Title); t != "" {
		body = "**" + t + "**: " + body
	}
	return body + suggestionBlock(f)
}

// ClaudeClean is the code-review plugin's clean summary comment.
const ClaudeClean = "## Code review\n\nNo issues found. Checked for bugs and CLAUDE.md compliance.\n\n🤖 Generated with [Claude Code](https://claude.ai/code)"

// ClaudeErrorComment is the action's tracking comment after a failure.
const ClaudeErrorComment = "**Claude encountered an error after 41s** —— [View job](https://github.com/actions/runs/1)\n\nThe review could not be completed."

func geminiComment(f Finding) string {
	sev := f.Severity
	if sev == "" {
		sev = "medium"
	}
	return fmt.Sprintf("![%s](https://www.gstatic.com/codereviewagent/%s-priority.svg)\n\n%s", sev, sev, strings.TrimSpace(f.Body)) + suggestionBlock(f)
}

func geminiSummary(n int) string {
	if n == 0 {
		return "## Code Review\n\nThis pull request looks good to me. I have no feedback at this time."
	}
	return fmt.Sprintf("## Code Review\n\nThis pull request changes the calculator package. I found %d issue(s) that should be addressed; see the comments below.", n)
}

// GeminiSunset is Gemini's consumer-version shutdown notice.
const GeminiSunset = "The consumer version of Gemini Code Assist on GitHub has been sunset. Please migrate to the enterprise version."

func coderabbitComment(f Finding) string {
	sev := map[string]string{"critical": "🔴 Critical", "high": "🟠 Major", "medium": "🟡 Minor", "low": "🔵 Trivial"}[f.Severity]
	if sev == "" {
		sev = "🟡 Minor"
	}
	h := sha1.Sum([]byte("coderabbit:" + f.ID))
	var b strings.Builder
	fmt.Fprintf(&b, "_⚠️ Potential issue_ | _%s_ | _⚡ Quick win_\n\n**%s**\n\n%s", sev, title(f), strings.TrimSpace(f.Body))
	b.WriteString(suggestionBlock(f))
	b.WriteString("\n\n<details>\n<summary>🤖 Prompt for AI Agents</summary>\n\n```\nVerify each finding against the current code and only fix it if needed.\n```\n\n</details>\n\n")
	fmt.Fprintf(&b, "<!-- cr-comment:v1:%x -->", h[:8])
	return b.String()
}

// coderabbitSummary is CodeRabbit's review body for n inline comments:
// "**Actionable comments posted: N**" (0 included, 08-…), its review
// details and its review-status marker (08-…, 10-…). "No actionable
// comments were generated in the recent review" is the walkthrough's
// recent-review block (10-… A), not a review body.
func coderabbitSummary(n int) string {
	return fmt.Sprintf("**Actionable comments posted: %d**\n\n<details>\n<summary>📜 Review details</summary>\n\n**Configuration used**: defaults\n\n**Review profile**: CHILL\n\n</details>\n\n<!-- This is an auto-generated comment by CodeRabbit for review status -->", n)
}

// bodyKey names a body-only finding (no comment id) by path and title, as
// the fixer input gives them.
func bodyKey(path, title string) string { return path + "\x00" + strings.TrimSpace(title) }

// coderabbitSections are the review-body sections CodeRabbit puts findings
// it does not post inline in, with their headings as in
// testdata/engines/coderabbit/08-… (Dec 2025 layout).
var coderabbitSections = []struct{ where, heading string }{
	{WhereOutsideDiff, "⚠️ Outside diff range comments"},
	{WhereDuplicate, "♻️ Duplicate comments"},
	{WhereNitpick, "🧹 Nitpick comments"},
}

// coderabbitReviewBody renders CodeRabbit's review body: the actionable
// count counts only the inline comments of this review (08-… says
// "Actionable comments posted: 0" above real outside-diff and nitpick
// findings); the body-only findings follow in collapsible sections, per
// file, each item a line like "`14-16`: **title**" then prose, items separated by
// "---". The outside-diff section sits in a `> [!CAUTION]` block.
func coderabbitReviewBody(inline int, body []Finding, loc func(Finding) (int, int)) string {
	if inline == 0 && len(body) == 0 {
		return coderabbitSummary(0)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Actionable comments posted: %d**\n\n", inline)
	for _, s := range coderabbitSections {
		var in []Finding
		for _, f := range body {
			if f.Where == s.where {
				in = append(in, f)
			}
		}
		if len(in) == 0 {
			continue
		}
		var sec strings.Builder
		fmt.Fprintf(&sec, "<details>\n<summary>%s (%d)</summary><blockquote>\n\n", s.heading, len(in))
		byPath := map[string][]Finding{}
		var paths []string
		for _, f := range in {
			if byPath[f.Path] == nil {
				paths = append(paths, f.Path)
			}
			byPath[f.Path] = append(byPath[f.Path], f)
		}
		for _, p := range paths {
			fmt.Fprintf(&sec, "<details>\n<summary>%s (%d)</summary><blockquote>\n\n", p, len(byPath[p]))
			for i, f := range byPath[p] {
				if i > 0 {
					sec.WriteString("---\n\n")
				}
				start, line := loc(f)
				if start == 0 {
					start = line
				}
				if f.Severity != "" {
					// The 2026 item header (10-…): badges, then the title line.
					fmt.Fprintf(&sec, "`%d-%d`: _⚠️ Potential issue_ | _%s_ | _⚡ Quick win_\n\n**%s**\n\n", start, line, coderabbitSeverity(f), title(f))
				} else {
					fmt.Fprintf(&sec, "`%d-%d`: **%s**\n\n", start, line, title(f))
				}
				fmt.Fprintf(&sec, "%s\n\n", strings.TrimSpace(f.Body))
			}
			sec.WriteString("</blockquote></details>\n\n")
		}
		sec.WriteString("</blockquote></details>\n\n")
		if s.where == WhereOutsideDiff {
			b.WriteString("> [!CAUTION]\n> Some comments are outside the diff and can’t be posted inline due to platform limitations.\n>\n")
			for _, l := range strings.Split(strings.TrimRight(sec.String(), "\n"), "\n") {
				b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
			}
			b.WriteString("\n")
			continue
		}
		b.WriteString(sec.String())
	}
	b.WriteString("<details>\n<summary>📜 Review details</summary>\n\n**Configuration used**: defaults\n\n**Review profile**: CHILL\n\n</details>\n\n<!-- This is an auto-generated comment by CodeRabbit for review status -->")
	return b.String()
}

func coderabbitSeverity(f Finding) string {
	if s := map[string]string{"critical": "🔴 Critical", "high": "🟠 Major", "medium": "🟡 Minor", "low": "🔵 Trivial"}[f.Severity]; s != "" {
		return s
	}
	return "🟡 Minor"
}

// coderabbitRateLimited is CodeRabbit's rate-limit notice (04-… A): the
// walkthrough comment rewritten, stating the wait in minutes and seconds.
func coderabbitRateLimited(author string, wait time.Duration) string {
	w := fmt.Sprintf("%d minutes and %d seconds", int(wait.Minutes()), int(wait.Seconds())%60)
	return "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n<!-- This is an auto-generated comment: rate limited by coderabbit.ai -->\n\n" +
		"> [!WARNING]\n> ## Rate limit exceeded\n> \n" +
		"> `@" + author + "` has exceeded the limit for the number of commits that can be reviewed per hour. Please wait **" + w + "** before requesting another review.\n> \n" +
		"> Your organization is not enrolled in usage-based pricing. Contact your admin to enable usage-based pricing to continue reviews beyond the rate limit, or try again in **" + w + "**.\n> \n" +
		"> <details>\n> <summary>⌛ How to resolve this issue?</summary>\n> \n> After the wait time has elapsed, a review can be triggered using the `@coderabbitai review` command as a PR comment. Alternatively, push new commits to this PR.\n> \n> </details>\n"
}

// CodeRabbitSkipped is CodeRabbit's "Review skipped" status comment
// (06-…): no review follows, and its commit status says success.
const CodeRabbitSkipped = "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n<!-- This is an auto-generated comment: skip review by coderabbit.ai -->\n\n" +
	"> [!IMPORTANT]\n> ## Review skipped\n> \n> Auto reviews are disabled on this repository. Please check the settings in the CodeRabbit UI or the `.coderabbit.yaml` file in this repository. To trigger a single review, invoke the `@coderabbitai review` command.\n> \n" +
	"> You can disable this status message by setting the `reviews.review_status` to `false` in the CodeRabbit configuration file.\n\n<!-- end of auto-generated comment: skip review by coderabbit.ai -->"

// CodeRabbitPaused is CodeRabbit's walkthrough once it paused its
// automatic reviews after auto_pause_after_reviewed_commits, verbatim from
// jdx/mise#12718 (coderabbit/03-…, block B; checkbox ids kept).
const CodeRabbitPaused = "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n<!-- This is an auto-generated comment: review paused by coderabbit.ai -->\n\n> [!NOTE]\n> ## Reviews paused\n> \n> It looks like this branch is under active development. To avoid overwhelming you with review comments due to an influx of new commits, CodeRabbit has automatically paused this review. You can configure this behavior by changing the `reviews.auto_review.auto_pause_after_reviewed_commits` setting.\n> \n> Use the following commands to manage reviews:\n> - `@coderabbitai resume` to resume automatic reviews.\n> - `@coderabbitai review` to trigger a single review.\n> \n> Use the checkboxes below for quick actions:\n> - [ ] <!-- {\"checkboxId\":\"7f6cc2e2-2e4e-497a-8c31-c9e4573e93d1\"} --> ▶️ Resume reviews\n> - [ ] <!-- {\"checkboxId\":\"e9bb8d72-00e8-4f67-9cb2-caf3b22574fe\"} --> 🔍 Trigger review\n\n<!-- end of auto-generated comment: review paused by coderabbit.ai -->\n\n" + CodeRabbitWalkthrough

// CodeRabbitWalkthrough is the walkthrough block of CodeRabbit's comment
// (09-…, shortened), as it reads when its reviews are not paused.
const CodeRabbitWalkthrough = "<!-- walkthrough_start -->\n\n<details>\n<summary>📝 Walkthrough</summary>\n\n## Walkthrough\n\nThe PR changes the calculator package.\n\n</details>\n\n<!-- walkthrough_end -->"

// CodeRabbitFailed is CodeRabbit's failure banner above its walkthrough
// (09-…): the walkthrough is there, the review is not.
const CodeRabbitFailed = "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n<!-- This is an auto-generated comment: failure by coderabbit.ai -->\n\n" +
	"> [!CAUTION]\n> ## Review failed\n> \n> Failed to post review comments\n\n<!-- end of auto-generated comment: failure by coderabbit.ai -->\n\n" +
	"<!-- walkthrough_start -->\n\n<details>\n<summary>📝 Walkthrough</summary>\n\n## Walkthrough\n\nThe PR changes the calculator package.\n\n</details>\n\n<!-- walkthrough_end -->"

// geminiPlaceholder is Gemini's first review, "## Summary of Changes",
// saying it is still reviewing (gemini/06-…, LexLattice/tf-lang#101).
func geminiPlaceholder(author string) string {
	return "## Summary of Changes\n\nHello @" + author + ", I'm Gemini Code Assist[^1]! I'm currently reviewing this pull request and will post my feedback shortly. In the meantime, here's a summary to help you and other reviewers quickly get up to speed!\n\nThis pull request changes the calculator package.\n\n[^1]: Review the [Privacy Notices](https://policies.google.com/privacy), [Generative AI Prohibited Use Policy](https://policies.google.com/terms/generative-ai/use-policy), [Terms of Service](https://policies.google.com/terms), and learn how to configure Gemini Code Assist in GitHub [here](https://developers.google.com/gemini-code-assist/docs/customize-gemini-behavior-github)."
}

// CodeRabbitRefusal is CodeRabbit's reply to a review command it declines
// (coderabbit/11-…, lhpaul/ai-dev-framework-template#1591), possibly
// while it never reviewed the head.
const CodeRabbitRefusal = "<!-- CodeRabbit review command invocation: eda08424-098f-4422-b2c0-25f396a239de -->\n⚠️ Action not completed\nAlready reviewed the last commit. Use `@coderabbitai full review` to rerun a\nreview of the entire changeset"

// CopilotQuotaBody is Copilot's quota stop, a COMMENTED review
// (copilot/14-…, helm/helm#32229).
const CopilotQuotaBody = "Copilot was unable to review this pull request because the user who requested the review has reached their quota limit."

// GeminiQuota is Gemini's daily-quota notice, an issue comment answering
// the command (gemini/05-…).
const GeminiQuota = "> [!WARNING]\n> You have reached your daily quota limit. Please wait up to 24 hours and I will start processing your requests again!"

// GeminiUnsupported is Gemini's note when it cannot review the PR's file
// types (gemini/07-…): no review follows.
const GeminiUnsupported = "> [!NOTE]\n> Gemini is unable to generate a review for this pull request due to the file types involved not being currently supported."

// copilotOverviewDetails renders Copilot's 2026-09 overview
// (testdata/engines/copilot/16-…): a verdict heading, the overview and
// its "**Changes:**" list folded in a <details> block, and the counts in
// a "Review details" list, with no "Copilot reviewed X out of Y files"
// sentence.
func copilotOverviewDetails(files, n int) string {
	var b strings.Builder
	if n == 0 {
		b.WriteString("### 🟢 Approval recommended\n\nNo unresolved review issues were identified.\n\n")
	} else {
		fmt.Fprintf(&b, "### 🟡 Changes recommended\n\n%d open findings need attention before merging.\n\n", n)
	}
	b.WriteString("<details>\n<summary>Pull request overview</summary>\n\nThis PR changes the calculator package and its tests.\n\n**Changes:**\n- Adds and fixes arithmetic helpers in `calc/calc.go`.\n</details>\n\n")
	fmt.Fprintf(&b, "<details>\n<summary>Review details</summary>\n\n- **Files reviewed:** %d/%d changed files\n- **Comments generated:** %d\n- **Review effort level:** Lite\n</details>\n\n", files, files, n)
	b.WriteString("---\n\n💡 Add a `code-review` agent skill or configure MCP servers for context-aware, tailored reviews.")
	return b.String()
}

// CodeRabbit's walkthrough comment, edited in place (coderabbit/14-…,
// 10-… A): its head, its "review in progress" state naming the range
// under review, and its recent-review block naming the range reviewed.
const (
	coderabbitWalkHead = "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n"
	coderabbitWalkBody = "<!-- walkthrough_start -->\n\n## Walkthrough\n\nThe PR changes the calculator package.\n\n<!-- walkthrough_end -->"
)

func coderabbitInProgress(from, head string) string {
	return coderabbitWalkHead + "<!-- This is an auto-generated comment: review in progress by coderabbit.ai -->\n\n" +
		"> [!NOTE]\n> Currently processing new changes in this PR. This may take a few minutes, please wait...\n> \n" +
		"> <details>\n> <summary>📥 Commits</summary>\n> \n> Reviewing files that changed from the base of the PR and between " + from + " and " + head + ".\n> \n> </details>\n\n" +
		"<!-- end of auto-generated comment: review in progress by coderabbit.ai -->\n\n" + coderabbitWalkBody
}

// coderabbitRecent is the walkthrough after a review of head: its
// recent-review block says "No actionable comments were generated in the
// recent review. 🎉" when the review posted nothing (a clean incremental
// review posts no review object, team-mirai/marumie#1383).
func coderabbitRecent(from, head string, clean bool) string {
	verdict := "No actionable comments were generated in the recent review. 🎉\n\n"
	if !clean {
		verdict = ""
	}
	return coderabbitWalkHead + "<!-- recent_review_start -->\n\n" + verdict +
		"<details>\n<summary>ℹ️ Recent review info</summary>\n\n<details>\n<summary>📥 Commits</summary>\n\n" +
		"Reviewing files that changed from the base of the PR and between " + from + " and " + head + ".\n\n</details>\n\n" +
		"**Included review availability:** Your plan provides up to 10 included reviews per hour; 4 remain after this review.\n\n</details>\n\n---\n\n\n\n<!-- recent_review_end -->\n\n" + coderabbitWalkBody
}

// coderabbitFallback is CodeRabbit's full-review fallback notice for a
// head (coderabbit/13-…).
func coderabbitFallback(pr int, head string) string {
	return fmt.Sprintf("<!-- This is an auto-generated comment by CodeRabbit -->\n<!-- coderabbit-full-review-fallback-pr-%d-head-%s -->\n> [!NOTE]\n> GitHub couldn't provide a complete incremental comparison for this pull request, so CodeRabbit is performing a full review instead. This review may take a little longer.", pr, head)
}

// BugbotCheckClean is the summary of Bugbot's check when a run found
// nothing and no earlier issue is open (testdata/engines/bugbot/08-… B
// #171): with postSuccessComment false it is all an API-triggered clean
// run leaves.
const BugbotCheckClean = "Bugbot completed review - no issues found! ✅"

// claudeAutomation is what claude-code-action in automation mode posts
// in the words its prompt asks for (no tracking comment, no "## Code
// review" header): a verdict in prose.
func claudeAutomation(n int) string {
	if n == 0 {
		return "Looks good to me: the change is narrow, the new functions behave as their doc comments say, and nothing here blocks merging."
	}
	return fmt.Sprintf("I left %d inline comment(s) on problems that should be fixed before merging.", n)
}

// BugbotStaleBody is the body Bugbot gives the reviews of an earlier run
// when it clears them (testdata/engines/bugbot/11-… A).
const BugbotStaleBody = "<!-- BUGBOT_REVIEW -->\n<!-- BUGBOT_REVIEW_STALE -->\nStale Bugbot comment from a previous run."

// bugbotWithTotal adds to a Bugbot review body the total of unresolved
// issues it states (bugbot/11-… B): "There are 2 total unresolved issues
// (including 1 from previous review)."
func bugbotWithTotal(body string, total, previous int) string {
	if total == 0 {
		return body
	}
	line := fmt.Sprintf("There are %d total unresolved issues (including %d from previous review).", total, previous)
	if total == 1 {
		line = fmt.Sprintf("There is 1 total unresolved issue (including %d from previous review).", previous)
	}
	head, foot, ok := strings.Cut(body, "\n\n<sup>")
	if !ok {
		return body + "\n\n" + line
	}
	return head + "\n\n" + line + "\n\n<sup>" + foot
}
