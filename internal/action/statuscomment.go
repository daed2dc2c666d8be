package action

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
)

// This file reads and writes the status comment: its hidden state, the
// claim that makes one run own a cycle, and the hash that lets an idle
// wake write nothing (C2).

// RulesURL is the rules page the status comment links rule ids to.
const RulesURL = "https://github.com/review-loop/review-loop/blob/main/docs/rules.md"

// claimMarker prefixes the claim token hidden in the status comment; the
// token says which run wrote the comment last.
const claimMarker = "<!-- review-loop:claim "

// contentMarker prefixes the hash of what the status comment says apart
// from which run wrote it and when: the state and the report rendered
// without the run's link and clock (C2).
const contentMarker = "<!-- review-loop:content "

// content is the hash contentMarker carries for this cycle's comment.
func (c *prCycle) content() (string, error) {
	in := c.reportInput()
	in.RunURL, in.Now = "", time.Time{}
	// The last cycle's plan says what the cycle that writes did; a cycle
	// with nothing new to say writes nothing, whatever it planned (C2).
	st := c.st.Clone()
	st.LastCycle = nil
	in.State = st
	body, err := state.Encode(report.StatusComment(in), st)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:12]), nil
}

// unchanged reports whether the status comment already says what this
// cycle would write (C2): then an idle wake writes nothing.
func (c *prCycle) unchanged() bool {
	if c.comment == nil || c.readOnly {
		return false
	}
	sum, err := c.content()
	return err == nil && markerValue(c.comment.Body, contentMarker) == sum
}

// save writes the status comment: the dashboard and the hidden state. A
// comment that changed since this run read or last wrote it means another
// run got there first: the run stops without acting (errLostRace).
func (c *prCycle) save(ctx context.Context) error { return c.write(ctx, true) }

// write writes the status comment; verify first checks that nobody else
// changed it since this run read or last wrote it.
func (c *prCycle) write(ctx context.Context, verify bool) error {
	c.beforeWrite(ctx)
	if c.comment == nil && c.cfg.RunID != 0 && c.ourWorkflow() != "" {
		c.st.Owner = &state.Owner{RunID: c.cfg.RunID, Workflow: c.ourWorkflow()}
	}
	body, err := c.encode()
	if err != nil {
		return err
	}
	if c.readOnly {
		return nil
	}
	if c.comment == nil {
		ic, err := c.gh.CreateIssueComment(ctx, c.owner, c.repo, c.number, body)
		if github.IsPermission(err) {
			return c.degradeReadOnly(err)
		}
		if err != nil {
			return fmt.Errorf("creating the status comment: %w", err)
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
		if github.IsPermission(err) {
			return c.degradeReadOnly(err)
		}
		return fmt.Errorf("updating the status comment: %w", err)
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
	if claimOf(cur.Body) != c.claim {
		return errLostRace
	}
	return nil
}

// claimOf returns the claim token in a status comment body, or "".
func claimOf(body string) string { return markerValue(body, claimMarker) }

// markerValue returns the value of the last hidden marker in a status
// comment body, or "".
func markerValue(body, marker string) string {
	i := strings.LastIndex(body, marker)
	if i < 0 {
		return ""
	}
	token, _, _ := strings.Cut(body[i+len(marker):], " -->")
	return token
}

// degradeReadOnly turns a token that may not write to the PR (a read-only
// GITHUB_TOKEN, as on a fork's pull_request run) into a report-only run:
// nothing is written or acted on, and the report goes to the job summary
// and an annotation instead.
func (c *prCycle) degradeReadOnly(err error) error {
	c.readOnly = true
	c.gha.Warningf("review-loop: this token cannot write to PR #%d (%v); running report-only: nothing is triggered, fixed or pushed, and the report is in the job summary. Give the workflow `pull-requests: write` and `issues: write`.", c.number, err)
	return nil
}

// encode is the status comment this cycle writes: the report, the hash
// of what it says (C2), this run's claim, and the hidden state.
func (c *prCycle) encode() (string, error) {
	sum, err := c.content()
	if err != nil {
		return "", fmt.Errorf("encoding the state: %w", err)
	}
	visible := report.StatusComment(c.reportInput()) + "\n" + contentMarker + sum + " -->\n" + claimMarker + c.claim + " -->"
	body, err := state.Encode(visible, c.st)
	if err != nil {
		return "", fmt.Errorf("encoding the state: %w", err)
	}
	return body, nil
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
