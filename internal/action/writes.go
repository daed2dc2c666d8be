package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file carries out the effects that are single GitHub writes:
// replies, resolved threads, issues, labels, dispatches, mark-ready.

// replyAll posts the plan's replies one after another (E7); a reply that
// keeps a rationale is remembered with its URL as a won't-fix decision
// (WF1), in c.decided.
func (c *prCycle) replyAll(ctx context.Context, replies []loop.Reply) {
	for _, r := range replies {
		id := c.reply(ctx, loop.Finding{ID: r.FindingID, CommentID: r.CommentID}, r.Body)
		if !r.Remember {
			continue
		}
		d := loop.WontFixDecision{Finding: c.plannedFinding(r.FindingID), Reason: r.Body}
		if id != 0 && c.obs.URL != "" {
			d.ReplyURL = fmt.Sprintf("%s#discussion_r%d", c.obs.URL, id)
		}
		c.decided = append(c.decided, d)
	}
}

// plannedFinding is the triaged finding id of this cycle's plan.
func (c *prCycle) plannedFinding(id string) loop.Finding {
	for _, f := range c.plan.Triage {
		if f.ID == id {
			return f
		}
	}
	return loop.Finding{ID: id}
}

// resolveThreads resolves threads in one request (E6); a token that may
// not resolve threads is reported once and the loop carries on.
func (c *prCycle) resolveThreads(ctx context.Context, threads []string) {
	if len(threads) == 0 {
		return
	}
	failed, err := c.gh.ResolveThreads(ctx, threads)
	if err == nil {
		c.res.Resolved += len(threads)
		for _, e := range failed {
			if e != nil {
				c.res.Resolved--
				if err == nil {
					err = e
				}
			}
		}
	}
	if err != nil {
		if github.IsPermission(err) {
			if st, isNew := loop.RecordNotice(c.st, "resolve-permission"); isNew {
				c.st = st
				c.gha.Warningf("review-loop: resolving review threads is not permitted for this token (%v); the threads stay open and the findings still count as fixed", err)
			}
			return
		}
		c.gha.Warningf("review-loop: resolving review threads: %v", err)
	}
}

// answerRecalled answers, once each, the comments that raised a
// remembered won't-fix decision again (WF1) with the earlier rationale and
// its link, resolves their threads (E6) and records them as answered.
func (c *prCycle) answerRecalled(ctx context.Context) {
	var answered []int64
	var threads []string
	for _, r := range c.plan.Recalled {
		if r.Reply == "" {
			continue
		}
		if c.reply(ctx, r.Finding, r.Reply) == 0 {
			continue
		}
		answered = append(answered, r.Finding.CommentID)
		if r.Finding.ThreadID != "" {
			threads = append(threads, r.Finding.ThreadID)
		}
	}
	c.resolveThreads(ctx, threads)
	c.st = loop.RecordRecalled(c.st, c.plan.Recalled, answered)
}

// listBodyFindings says once on the PR which fixed findings had no
// thread to reply to or resolve (E6): those an engine listed only in its
// review body (CodeRabbit's outside-diff and nitpick sections).
func (c *prCycle) listBodyFindings(ctx context.Context, fs []loop.BodyFinding) {
	lines := make([]string, 0, len(fs))
	for _, bf := range fs {
		f := bf.Finding
		c.st, _ = loop.RecordNotice(c.st, loop.BodyFindingNotice(f.ID))
		where := "`" + f.Path + "`"
		if f.Line > 0 {
			where = fmt.Sprintf("`%s` (line %d)", f.Path, f.Line)
			if f.StartLine > 0 && f.StartLine < f.Line {
				where = fmt.Sprintf("`%s` (lines %d-%d)", f.Path, f.StartLine, f.Line)
			}
		}
		lines = append(lines, fmt.Sprintf("- %s %s: %s (`%s`)", f.Engine, where, f.Title, f.ID))
	}
	body := fmt.Sprintf("review-loop fixed these findings in %s. Their engine listed them only in its review body, so there is no thread to reply to or resolve:\n\n%s", c.res.Pushed, strings.Join(lines, "\n"))
	if _, err := c.gh.CreateIssueComment(ctx, c.owner, c.repo, c.number, body); err != nil {
		c.gha.Warningf("review-loop: replying to the fixed review-body findings: %v", err)
	}
}

// reply answers a finding's comment and returns the reply's id (0 when
// it failed, which is reported).
func (c *prCycle) reply(ctx context.Context, f loop.Finding, body string) int64 {
	id, err := c.gh.ReplyToReviewComment(ctx, c.owner, c.repo, c.number, f.CommentID, body)
	if err != nil {
		c.gha.Warningf("review-loop: replying to %s: %v", f.ID, err)
	}
	return id
}

// fileIssues files the plan's non-blocking items as follow-up issues (J5).
func (c *prCycle) fileIssues(ctx context.Context, ids []string) error {
	for _, it := range c.st.NonBlocking {
		if !slices.Contains(ids, it.ID) {
			continue
		}
		body := fmt.Sprintf("Non-blocking review item from %s on #%d (%s).\n\n%s", it.Engine, c.number, c.obs.URL, it.Title)
		if it.Path != "" {
			body += fmt.Sprintf("\n\nLocation: `%s`", it.Path)
			if it.Line > 0 {
				body += fmt.Sprintf(" line %d", it.Line)
			}
		}
		n, url, err := c.gh.CreateIssue(ctx, c.owner, c.repo, "Follow-up: "+it.Title, body, []string{"review-loop"})
		if err != nil {
			return fmt.Errorf("filing the non-blocking item %s as an issue: %w", it.ID, err)
		}
		c.st = loop.RecordIssue(c.st, it.ID, url)
		c.notices = append(c.notices, fmt.Sprintf("non-blocking item %s filed as #%d (%s)", it.ID, n, url))
	}
	return nil
}

// markReady marks the draft PR ready for review (IN3). The
// ready_for_review event must start the engine's workflow, and an event
// made with GITHUB_TOKEN starts none: the user token is used when given.
func (c *prCycle) markReady(ctx context.Context) error {
	gh := c.gh
	if c.trigger != nil {
		gh = c.trigger
	}
	if err := gh.MarkReadyForReview(ctx, c.obs.NodeID); err != nil {
		return fmt.Errorf("marking the draft PR ready for review (IN3): %w", err)
	}
	c.notices = append(c.notices, "marked the draft PR ready for review so Claude reviews it (set keep-draft: true to prevent this)")
	return nil
}

// dispatchCI runs the repository's CI on the loop's own commit (CI1):
// each planned workflow is dispatched on the PR head branch; one GitHub
// refuses to dispatch (no workflow_dispatch trigger) is reported once and
// not asked again (loop.CINotice).
func (c *prCycle) dispatchCI(ctx context.Context, files []string) {
	for _, f := range files {
		err := c.gh.DispatchWorkflow(ctx, c.owner, c.repo, f, c.obs.HeadRef, nil)
		if err == nil {
			c.res.CIDispatched = append(c.res.CIDispatched, f)
			continue
		}
		var apiErr *github.APIError
		msg := fmt.Sprintf("could not dispatch the CI workflow %s on %s (%v); its checks do not run on review-loop's commits (CI1)", f, c.obs.HeadRef, err)
		if errors.As(err, &apiErr) && apiErr.Status == 422 && strings.Contains(apiErr.Message, "workflow_dispatch") {
			msg = fmt.Sprintf("%s has no workflow_dispatch trigger, so review-loop cannot run it on its own commits (a push made with GITHUB_TOKEN starts no workflow): add `workflow_dispatch:` to its `on:`, or give a push-token (CI1)", f)
		}
		if github.IsPermission(err) {
			msg += "; the workflow needs `actions: write`"
		}
		st, isNew := loop.RecordNotice(c.st, loop.CINotice(f))
		c.st = st
		if isNew {
			c.gha.Warningf("review-loop: %s", msg)
			c.notices = append(c.notices, msg)
		}
	}
}

// redispatch dispatches this workflow again for the PR (W5): comments and
// pushes made with GITHUB_TOKEN start no workflow. A workflow that cannot
// be dispatched is reported once, and the notice saved.
func (c *prCycle) redispatch(ctx context.Context) {
	file := c.cfg.WorkflowFile()
	err := c.gh.DispatchWorkflow(ctx, c.owner, c.repo, file, c.obs.DefaultBranch, map[string]any{"pr": strconv.Itoa(c.number)})
	if err == nil {
		c.res.Dispatched = true
		return
	}
	st, isNew := loop.RecordNotice(c.st, "dispatch-setup")
	if !isNew {
		return
	}
	c.st = st
	c.gha.Warningf("review-loop: could not re-dispatch %s (%v): give the workflow a workflow_dispatch trigger with a `pr` input and `actions: write`; until then the loop relies on engine events and the scheduled sweep (W5)", file, err)
	if serr := c.save(ctx); serr != nil {
		c.Log.Warn("saving the dispatch notice", "err", serr)
	}
}

// label adds or removes LiveLabel as the plan says (SW1); a failure is
// logged, never the cycle's error.
func (c *prCycle) label(ctx context.Context, add bool) {
	var err error
	if add {
		if err = c.gh.AddLabel(ctx, c.owner, c.repo, c.number, LiveLabel); err == nil {
			c.obs.Labels = append(c.obs.Labels, LiveLabel)
		}
	} else {
		if err = c.gh.RemoveLabel(ctx, c.owner, c.repo, c.number, LiveLabel); err == nil {
			c.obs.Labels = slices.DeleteFunc(c.obs.Labels, func(l string) bool { return l == LiveLabel })
		}
	}
	if err != nil {
		c.Log.Warn("updating the live-loop label", "pr", c.number, "err", err)
	}
}
