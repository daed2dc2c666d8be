package action

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
)

// RulesURL is the rules page the status comment links rule ids to.
const RulesURL = "https://github.com/review-loop/review-loop/blob/main/docs/rules.md"

// runURL links this workflow run, when the run id is known.
func (c *prCycle) runURL() string {
	if c.cfg.RunID == 0 || c.owner == "" {
		return ""
	}
	server := strings.TrimSuffix(c.cfg.ServerURL, "/")
	if server == "" {
		server = "https://github.com"
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", server, c.owner, c.repo, c.cfg.RunID)
}

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
	body, err := state.Encode(report.StatusComment(in), c.st)
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

// reportInput gathers what the renderers need.
func (c *prCycle) reportInput() report.Input {
	in := report.Input{
		State: c.st, Plan: c.plan, PRURL: c.obs.URL, ServerURL: c.cfg.ServerURL,
		Repo: c.owner + "/" + c.repo, Number: c.number,
		Bounds: report.Bounds{MaxCommits: c.cfg.MaxCommits, MaxActiveMinutes: c.cfg.MaxActiveMinutes,
			MaxIdleMinutes: c.cfg.MaxIdleMinutes, MaxIterations: c.cfg.MaxIterations},
		CopilotOnly: c.cfg.CopilotOnly, LastCommit: c.obs.HeadSHA, RegressionCommand: c.cfg.RegressionCommand,
		Notices: c.notices, Titles: map[int64]string{},
		RunURL: c.runURL(), Now: c.Now(), RulesURL: RulesURL, Prices: c.repoCfg.prices,
	}
	if c.res.Pushed != "" {
		in.LastCommit = c.res.Pushed
	}
	for _, it := range c.st.NonBlocking {
		if it.Issue != "" {
			if in.NonBlockingIssues == nil {
				in.NonBlockingIssues = map[string]string{}
			}
			in.NonBlockingIssues[it.ID] = it.Issue
		}
	}
	for _, v := range c.views {
		for _, f := range v.Findings {
			in.Titles[f.CommentID] = f.Title
		}
		if c.plan.Action == loop.ActionHandBack {
			in.StaleThreads += len(loop.StaleFindings(v, c.obs.HeadSHA))
		}
	}
	return in
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
	sum, err := c.content()
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
	}
	visible := report.StatusComment(c.reportInput()) + "\n" + contentMarker + sum + " -->\n" + claimMarker + c.claim + " -->"
	body, err := state.Encode(visible, c.st)
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
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

// finish sets the outputs and writes the job summary and JSON report.
func (c *prCycle) finish() {
	in := c.reportInput()
	c.res.State = c.st
	out := report.Outputs(in)
	if b, err := report.JSON(in); err == nil {
		path := reportPath(c.Getenv, c.number)
		if werr := os.WriteFile(path, b, 0o644); werr == nil {
			out["report-json"] = path
		} else {
			c.Log.Warn("writing the JSON report", "err", werr)
		}
	}
	c.res.Outputs = out
	if c.Getenv("GITHUB_OUTPUT") != "" {
		for _, k := range sortedKeys(out) {
			c.gha.SetOutput(k, out[k])
		}
	}
	if c.Getenv("GITHUB_STEP_SUMMARY") != "" {
		c.gha.AddStepSummary(report.JobSummary(in))
		if c.res.DryRun != "" {
			c.gha.AddStepSummary(c.res.DryRun)
		}
	}
	if c.plan.Action == loop.ActionHandBack {
		c.gha.Noticef("review-loop: PR #%d handed back: %s", c.number, strings.TrimSpace(report.FollowUp(c.plan.EndReason)))
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// workflowFile is the running workflow's file name from GITHUB_WORKFLOW_REF
// (owner/repo/.github/workflows/file.yml@ref).
func workflowFile(ref string) string {
	path, _, _ := strings.Cut(ref, "@")
	if i := strings.Index(path, ".github/workflows/"); i >= 0 {
		return path[i+len(".github/workflows/"):]
	}
	return ""
}

// redispatch dispatches this workflow again for the PR (W5): comments and
// pushes made with GITHUB_TOKEN start no workflow. A workflow that cannot
// be dispatched is reported once, and the notice saved.
func (c *prCycle) redispatch(ctx context.Context) {
	file := workflowFile(c.cfg.WorkflowRef)
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

// proveOwner writes the new status comment's own id into its state, the
// proof that review-loop wrote it (SC4): no text posted by another
// workflow can hold the id of the comment it becomes.
func (c *prCycle) proveOwner(ctx context.Context) error {
	if c.st.Owner == nil {
		return nil
	}
	c.st.Owner.CommentID = c.comment.DatabaseID
	sum, err := c.content()
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
	}
	visible := report.StatusComment(c.reportInput()) + "\n" + contentMarker + sum + " -->\n" + claimMarker + c.claim + " -->"
	body, err := state.Encode(visible, c.st)
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
	}
	if err := c.gh.UpdateIssueComment(ctx, c.owner, c.repo, c.comment.DatabaseID, body); err != nil {
		return fmt.Errorf("writing the status comment's proof of origin: %w", err)
	}
	c.comment.Body = body
	return nil
}
