package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/sethvargo/go-githubactions"
)

// This file reports a run: the outputs, the job summary and the JSON
// report (H9), whatever way the run ended.

// prError names the PR an error is about, unless the error names it
// already: each context is named once.
func prError(n int, err error) error {
	if strings.Contains(err.Error(), fmt.Sprintf("#%d:", n)) || strings.Contains(err.Error(), fmt.Sprintf("#%d ", n)) {
		return err
	}
	return fmt.Errorf("PR #%d: %w", n, err)
}

// finishError sets the outputs and writes the job summary of a cycle that
// failed (H9): they report the loop as the saved state has it, and the
// summary says what failed.
func (c *prCycle) finishError(err error) {
	if c.obs == nil {
		c.obs = &github.Observation{}
	}
	c.notices = append(c.notices, "this cycle failed: "+err.Error())
	c.finish()
}

// noLoopOutputs sets every output and writes the job summary of a run
// that acted on no loop: a wake on a PR without one, an event that wakes
// nothing, a sweep that found nothing to cycle. The phase is none, the
// verdict pending, no commits and no findings (H9); nothing is written to
// GitHub.
func noLoopOutputs(gha *githubactions.Action, getenv func(string) string, title, why string) map[string]string {
	out := map[string]string{
		report.OutputVerdict: string(report.VerdictPending), report.OutputReason: "", report.OutputPhase: string(phaseNone),
		report.OutputCommits: "0", report.OutputActiveFindings: "0",
	}
	if getenv("GITHUB_OUTPUT") != "" {
		for _, k := range sortedKeys(out) {
			gha.SetOutput(k, out[k])
		}
	}
	if getenv("GITHUB_STEP_SUMMARY") != "" {
		gha.AddStepSummary("### review-loop — " + title + "\n\n" + report.Escape(why, 2000) + "\n")
	}
	return out
}

// FailOutputs sets every output and writes the job summary for a run that
// failed before it could read a loop (bad inputs, no event): verdict
// errored, reason error, phase error (H9).
func FailOutputs(gha *githubactions.Action, getenv func(string) string, err error) {
	if getenv("GITHUB_OUTPUT") != "" {
		for _, kv := range [][2]string{
			{report.OutputVerdict, string(verdictErrored)}, {report.OutputReason, "error"}, {report.OutputPhase, string(phaseError)},
			{report.OutputCommits, "0"}, {report.OutputActiveFindings, "0"},
		} {
			gha.SetOutput(kv[0], kv[1])
		}
	}
	if getenv("GITHUB_STEP_SUMMARY") != "" {
		gha.AddStepSummary("### ❌ review-loop — the run failed\n\n" + report.Escape(err.Error(), 2000) + "\n")
	}
}

// reportPath is where the JSON report is written for the report-json output.
func reportPath(getenv func(string) string, pr int) string {
	dir := getenv("RUNNER_TEMP")
	if dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, fmt.Sprintf("review-loop-report-%d.json", pr))
}

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

// reportInput gathers what the renderers need.
func (c *prCycle) reportInput() report.Input {
	in := report.Input{
		State: c.st, Plan: c.plan, PRURL: c.obs.URL, ServerURL: c.cfg.ServerURL,
		Repo: c.owner + "/" + c.repo, Number: c.number,
		Bounds: report.Bounds{MaxCommits: c.cfg.MaxCommits, MaxActiveMinutes: c.cfg.MaxActiveMinutes,
			MaxIdleMinutes: c.cfg.MaxIdleMinutes, MaxIterations: c.cfg.MaxIterations},
		CopilotOnly: c.cfg.CopilotOnly, LastCommit: c.obs.HeadSHA, RegressionCommand: c.cfg.RegressionCommand,
		Notices: c.notices, Titles: map[int64]string{},
		RunURL: c.runURL(), Now: c.Now(), RulesURL: RulesURL, Prices: c.repoCfg.Prices,
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

// Outputs of a run that failed before it reached a pull request's loop,
// and of a wake on a pull request that has no loop and may not start one.
const (
	verdictErrored              = report.VerdictErrored
	phaseError     report.Phase = "error"
	phaseNone      report.Phase = "none"
)
