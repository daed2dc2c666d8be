package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
)

// This file carries out the effects that are single GitHub writes:
// replies, resolved threads, issues, labels, dispatches, mark-ready. What
// each write says is built in internal/report, what it records in
// internal/loop.

// replyAll posts the plan's replies one after another (E7); a reply that
// keeps a rationale is remembered as a won't-fix decision (loop.Decided).
func (c *prCycle) replyAll(ctx context.Context, replies []loop.Reply) {
	for _, r := range replies {
		id := c.reply(ctx, loop.Finding{ID: r.FindingID, CommentID: r.CommentID}, r.Body)
		if d, ok := loop.Decided(c.plan, r, id, c.obs.URL); ok {
			c.decided = append(c.decided, d)
		}
	}
}

// warnOnce adopts st, where the core recorded a set-up problem
// (loop.RecordNotice), and warns of it when it is new to the loop; report
// also puts it in the status comment.
func (c *prCycle) warnOnce(st state.State, isNew bool, msg string, report bool) bool {
	c.st = st
	if isNew {
		c.gha.Warningf("review-loop: %s", msg)
		if report {
			c.notices = append(c.notices, msg)
		}
	}
	return isNew
}

// logIf logs a write that failed and does not fail the cycle.
func (c *prCycle) logIf(err error, msg string, args ...any) {
	if err != nil {
		c.Log.Warn(msg, append(args, "err", err)...)
	}
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
				err = cmp.Or(err, e)
			}
		}
	}
	if github.IsPermission(err) {
		st, isNew := loop.RecordNotice(c.st, "resolve-permission")
		c.warnOnce(st, isNew, report.ResolveRefused(err), false)
	} else if err != nil {
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
		if r.Reply == "" || c.reply(ctx, r.Finding, r.Reply) == 0 {
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
// thread to reply to or resolve (E6, report.BodyFindingsComment).
func (c *prCycle) listBodyFindings(ctx context.Context, fs []loop.BodyFinding) {
	c.st = loop.RecordBodyFindings(c.st, fs)
	if _, err := c.gh.CreateIssueComment(ctx, c.owner, c.repo, c.number, report.BodyFindingsComment(c.res.Pushed, fs)); err != nil {
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
	for _, it := range loop.ItemsToFile(c.st, ids) {
		title, body := report.FollowUpIssue(it, c.number, c.obs.URL)
		n, url, err := c.gh.CreateIssue(ctx, c.owner, c.repo, title, body, []string{"review-loop"})
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
	if err := cmp.Or(c.trigger, c.gh).MarkReadyForReview(ctx, c.obs.NodeID); err != nil {
		return fmt.Errorf("marking the draft PR ready for review (IN3): %w", err)
	}
	c.notices = append(c.notices, "marked the draft PR ready for review so Claude reviews it (set keep-draft: true to prevent this)")
	return nil
}

// dispatchCI runs the repository's CI on the loop's own commit (CI1):
// each planned workflow is dispatched on the PR head branch; one GitHub
// refuses to dispatch is reported once and not asked again (loop.CINotice).
func (c *prCycle) dispatchCI(ctx context.Context, files []string) {
	for _, f := range files {
		err := c.gh.DispatchWorkflow(ctx, c.owner, c.repo, f, c.obs.HeadRef, nil)
		if err == nil {
			c.res.CIDispatched = append(c.res.CIDispatched, f)
			continue
		}
		var apiErr *github.APIError
		noTrigger := errors.As(err, &apiErr) && apiErr.Status == 422 && strings.Contains(apiErr.Message, "workflow_dispatch")
		st, isNew := loop.RecordNotice(c.st, loop.CINotice(f))
		c.warnOnce(st, isNew, report.CIDispatchRefused(f, c.obs.HeadRef, err, noTrigger, github.IsPermission(err)), true)
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
	if st, isNew := loop.RecordNotice(c.st, "dispatch-setup"); c.warnOnce(st, isNew, report.RedispatchRefused(file, err), false) {
		c.logIf(c.save(ctx), "saving the dispatch notice")
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
	} else if err = c.gh.RemoveLabel(ctx, c.owner, c.repo, c.number, LiveLabel); err == nil {
		c.obs.Labels = slices.DeleteFunc(c.obs.Labels, func(l string) bool { return l == LiveLabel })
	}
	c.logIf(err, "updating the live-loop label", "pr", c.number)
}
