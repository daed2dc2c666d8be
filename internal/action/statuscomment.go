package action

import (
	"context"
	"fmt"
	"slices"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/secret"
)

// This file writes the status comment report.StatusBody encodes: a
// checked write that stops when another run changed it first
// (errLostRace), the claim read back after it, the proof of origin of a
// new comment (SC4), and report-only when the token may not write.

// unchanged reports whether the status comment already says what this
// cycle would write (C2): then an idle wake writes nothing.
func (c *prCycle) unchanged() bool {
	// The prepare job writes nothing, but whether its publish job would
	// is the same question (C3).
	if c.comment == nil || (c.readOnly && c.cfg.Mode != config.ModePrepare) {
		return false
	}
	in := c.reportInput()
	// C2: the note of a planned wake (a cooldown, a yield, a stall) is
	// written by the plan's own effect; the comment says it already when
	// an earlier wake planned the same one.
	if c.plan.Action == loop.ActionWait && !c.plan.WakeAt.IsZero() {
		in.Notices = append(slices.Clone(in.Notices), loop.WakeNote(c.plan.WakeAt, c.plan.Why))
	}
	return report.SaysAlready(c.comment.Body, in)
}

// save writes the status comment: the dashboard and the hidden state. A
// comment that changed since this run read or last wrote it means another
// run got there first: the run stops without acting (errLostRace).
func (c *prCycle) save(ctx context.Context) error { return c.write(ctx, true) }

// write writes the status comment; verify first checks that nobody else
// changed it since this run read or last wrote it.
func (c *prCycle) write(ctx context.Context, verify bool) error {
	c.beforeWrite(ctx)
	c.st = loop.StampOwner(c.st, c.comment != nil, c.cfg.RunID, c.ourWorkflow(), c.Driver)
	body, err := c.encode()
	if err != nil {
		return err
	}
	if in := c.secrets.FindText(body); in != "" {
		// TB14: the status comment this cycle would write holds a secret
		// (a fixer's or a command's text that carried one): that comment is
		// not written; the hand-back is, with the secret withheld.
		c.refuseWrite(&secret.Error{Input: in, Write: "the status comment"})
		if body, err = c.encode(); err != nil {
			return err
		}
	}
	if c.readOnly {
		return nil
	}
	if c.comment == nil {
		ic, err := c.gh.CreateIssueComment(ctx, c.owner, c.repo, c.number, body)
		if err != nil {
			return c.degradeReadOnly(err, "creating the status comment")
		}
		c.comment = &ic
		return c.proveOwner(ctx)
	}
	if verify {
		cur, err := c.gh.GetIssueComment(ctx, c.owner, c.repo, c.comment.DatabaseID)
		if err != nil {
			return fmt.Errorf("reading the status comment: %w", err)
		}
		if cur.Body != c.comment.Body {
			return errLostRace
		}
	}
	if err := c.gh.UpdateIssueComment(ctx, c.owner, c.repo, c.comment.DatabaseID, body); err != nil {
		return c.degradeReadOnly(err, "updating the status comment")
	}
	c.comment.Body = body
	if verify {
		return c.checkClaim(ctx)
	}
	return nil
}

// checkClaim re-reads the status comment after a checked write: a run
// whose check passed at the same moment may have written just after us,
// and the comment then carries its claim, not ours. The run that reads
// another claim stops (errLostRace); the last writer goes on.
func (c *prCycle) checkClaim(ctx context.Context) error {
	cur, err := c.gh.GetIssueComment(ctx, c.owner, c.repo, c.comment.DatabaseID)
	if err != nil {
		return fmt.Errorf("re-reading the status comment after the claim: %w", err)
	}
	if report.ClaimOf(cur.Body) != c.claim {
		return errLostRace
	}
	return nil
}

// degradeReadOnly turns a token that may not write to the PR (a read-only
// GITHUB_TOKEN, as on a fork's pull_request run) into a report-only run:
// nothing is written or acted on, and the report goes to the job summary
// and an annotation instead. Any other error fails the write, named.
func (c *prCycle) degradeReadOnly(err error, what string) error {
	if !github.IsPermission(err) {
		return fmt.Errorf("%s: %w", what, err)
	}
	c.readOnly = true
	c.gha.Warningf("review-loop: this token cannot write to PR #%d (%v); running report-only: nothing is triggered, fixed or pushed, and the report is in the job summary. Give the workflow `pull-requests: write` and `issues: write`.", c.number, err)
	return nil
}

// encode is the status comment this cycle writes (report.StatusBody).
// After a refused write (TB14) every secret is withheld from it.
func (c *prCycle) encode() (string, error) {
	b, err := report.StatusBody(c.reportInput(), c.claim)
	if c.withheld {
		b = c.secrets.Withhold(b, func(s string) string { return report.Escape(s, 0) })
	}
	return b, err
}

// proveOwner writes the new status comment's own id into its state, the
// proof that review-loop wrote it (SC4): no text posted by another
// workflow can hold the id of the comment it becomes.
func (c *prCycle) proveOwner(ctx context.Context) error {
	if c.st.Owner == nil {
		return nil
	}
	c.st.Owner.CommentID = c.comment.DatabaseID
	body, err := c.encode()
	if err != nil {
		return err
	}
	if err := c.gh.UpdateIssueComment(ctx, c.owner, c.repo, c.comment.DatabaseID, body); err != nil {
		return fmt.Errorf("writing the status comment's proof of origin: %w", err)
	}
	c.comment.Body = body
	return nil
}
