package action

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/fixcycle"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/sethvargo/go-githubactions"
)

// This file writes what a run reports (report.RunReport: the outputs,
// the job summary and the JSON report, H9) through the runner, whatever
// way the run ended.

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

// finish sets the outputs and writes the job summary and JSON report.
func (c *prCycle) finish() {
	c.res.State = c.st
	out, err := writeReport(c.gha, c.Getenv, report.ForCycle(c.reportInput(), c.res.DryRun), c.number)
	if err != nil {
		c.Log.Warn("writing the JSON report", "err", err)
	}
	c.res.Outputs = out
}

// FailOutputs sets every output and writes the job summary for a run that
// failed before it could read a loop (bad inputs, no event) (H9).
func FailOutputs(gha *githubactions.Action, getenv func(string) string, err error) {
	_, _ = writeReport(gha, getenv, report.Failed(err), 0)
}

// writeReport writes r through the runner: the JSON report to its file,
// named by the report-json output; each output when GITHUB_OUTPUT is set;
// the job summary when GITHUB_STEP_SUMMARY is; the notice. It returns the
// outputs, and why the JSON report could not be written.
func writeReport(gha *githubactions.Action, getenv func(string) string, r report.RunReport, pr int) (map[string]string, error) {
	out := maps.Clone(r.Outputs)
	var err error
	if r.JSON != nil {
		path := filepath.Join(cmp.Or(getenv("RUNNER_TEMP"), os.TempDir()), fmt.Sprintf("review-loop-report-%d.json", pr))
		if err = os.WriteFile(path, r.JSON, 0o644); err == nil {
			out["report-json"] = path
		}
	}
	if getenv("GITHUB_OUTPUT") != "" {
		for _, k := range slices.Sorted(maps.Keys(out)) {
			gha.SetOutput(k, out[k])
		}
	}
	if getenv("GITHUB_STEP_SUMMARY") != "" {
		gha.AddStepSummary(r.Summary)
	}
	if r.Notice != "" {
		gha.Noticef("%s", r.Notice)
	}
	return out, err
}

// runURL links this workflow run, when the run id is known.
func (c *prCycle) runURL() string {
	return report.RunURL(c.cfg.ServerURL, c.owner, c.repo, c.cfg.RunID)
}

// reportInput gathers what the renderers need.
func (c *prCycle) reportInput() report.Input {
	in := report.Input{
		State: c.st, Plan: c.plan, PRURL: c.obs.URL, ServerURL: c.cfg.ServerURL,
		Repo: c.owner + "/" + c.repo, Number: c.number,
		Bounds: report.Bounds{MaxCommits: c.cfg.MaxCommits, MaxActiveMinutes: c.cfg.MaxActiveMinutes,
			MaxIdleMinutes: c.cfg.MaxIdleMinutes, MaxIterations: c.cfg.MaxIterations},
		CopilotOnly: c.cfg.CopilotOnly, LastCommit: c.obs.HeadSHA, RegressionCommand: c.cfg.RegressionCommand,
		Notices: c.notices, NonBlockingIssues: report.IssuesFiled(c.st),
		RunURL: c.runURL(), Now: c.Now(), RulesURL: report.RulesURL, Prices: c.repoCfg.Prices,
	}
	if c.res.Pushed != "" {
		in.LastCommit = c.res.Pushed
	}
	if n := fixcycle.WantAFixer(c.st.Triage, c.findingBodies(), c.fixerInEffect()); n > 0 && !c.obs.IsFork {
		in.Notices = append(slices.Clone(in.Notices), fixcycle.NoFixerNotice(n))
	}
	if !c.obs.IsFork {
		in.FixerWho = fixerWho(c.fixerInEffect())
	}
	return in.Observed(c.views, c.obs.HeadSHA)
}

// fixerInEffect is the fixer this loop's fixes run with: the fixer input,
// or in the publish job, which runs none, the prepare job's.
func (c *prCycle) fixerInEffect() string {
	if c.prepared != nil && c.prepared.Fixer != "" {
		return c.prepared.Fixer
	}
	return c.cfg.Fixer
}

// findingBodies are the engines' findings' bodies by finding id.
func (c *prCycle) findingBodies() map[string]string {
	out := map[string]string{}
	for _, v := range c.views {
		for _, f := range v.Findings {
			out[f.ID] = f.Body
		}
	}
	return out
}

// fixerWho names the fixer in effect for the approval notice (TR2).
func fixerWho(fixer string) string {
	switch fixer {
	case fix.ProviderClaudeCode, fix.ProviderCodex:
		return "the agent (" + fixer + ")"
	case fix.ProviderCommand:
		return "the fixer command"
	}
	return "review-loop apply its suggestion block"
}
