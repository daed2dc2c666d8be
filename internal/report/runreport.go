package report

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file is what a run reports through the Actions runner, whatever
// way it ended (H9): every output, the job summary, the JSON report and
// at hand-back an annotation; and the parts of a cycle's Input that are
// derived from what it observed.

// Phases of a run that reached no loop: one that failed before it could
// read one (PhaseError), and a wake that acted on none (PhaseNone).
const (
	PhaseError Phase = "error"
	PhaseNone  Phase = "none"
)

// RunReport is what one run reports through the runner (H9). The shell
// writes it: Outputs to GITHUB_OUTPUT, Summary to GITHUB_STEP_SUMMARY,
// JSON to the file the `report-json` output names, Notice as an
// annotation.
type RunReport struct {
	Outputs map[string]string
	Summary string
	// JSON is the JSON report; nil when there is none (no loop, or it
	// could not be rendered).
	JSON []byte
	// Notice is the annotation of a hand-back; "" otherwise.
	Notice string
}

// ForCycle is the report of a cycle that reached a pull request's loop:
// the outputs, the job summary followed by a dry run's plan (dryRun, ""
// otherwise), the JSON report, and at hand-back what the maintainer
// does next.
func ForCycle(in Input, dryRun string) RunReport {
	r := RunReport{Outputs: Outputs(in), Summary: JobSummary(in)}
	if dryRun != "" {
		r.Summary += "\n" + dryRun
	}
	if b, err := JSON(in); err == nil {
		r.JSON = b
	}
	if in.Plan.Action == loop.ActionHandBack {
		r.Notice = fmt.Sprintf("review-loop: PR #%d handed back: %s", in.Number, strings.TrimSpace(FollowUp(in.Plan.EndReason)))
	}
	return r
}

// NoLoop is the report of a run that acted on no loop: a wake on a PR
// without one, an event that wakes nothing, a sweep that found nothing to
// cycle. The phase is none, the verdict pending, no commits and no
// findings; why says what happened.
func NoLoop(title, why string) RunReport {
	return RunReport{
		Outputs: map[string]string{OutputVerdict: string(VerdictPending), OutputReason: "", OutputPhase: string(PhaseNone),
			OutputCommits: "0", OutputActiveFindings: "0"},
		Summary: "### review-loop — " + title + "\n\n" + Escape(why, 2000) + "\n",
	}
}

// Ignored is the report of a run woken by an event that does not
// concern the loop: no loop, and why, in the summary and an annotation.
func Ignored(why string) RunReport {
	r := NoLoop("nothing to do", why)
	r.Notice = "review-loop: nothing to do: " + why
	return r
}

// Skip is a pull request a run visited without cycling its loop, and
// why ("" when the cycle did not say).
type Skip struct {
	PR  int
	Why string
}

// NoneCycled is the report of a run that cycled no loop: each pull
// request it visited, and why it did not cycle it.
func NoneCycled(visited []Skip) RunReport {
	if len(visited) == 0 {
		return NoLoop("no loop cycled", "no pull request's loop needed a cycle in this run")
	}
	// One line per PR: the PR's own number stays a link; why is text.
	lines := make([]string, 0, len(visited))
	for _, s := range visited {
		lines = append(lines, fmt.Sprintf("- PR #%d: %s", s.PR, Escape(cmp.Or(s.Why, "not cycled in this job"), 500)))
	}
	r := NoLoop("no loop cycled", "")
	r.Summary = "### review-loop — no loop cycled\n\n" + strings.Join(lines, "\n") + "\n"
	return r
}

// Failed is the report of a run that failed before it could read a loop
// (bad inputs, no event): verdict errored, reason error, phase error.
func Failed(err error) RunReport {
	return RunReport{
		Outputs: map[string]string{OutputVerdict: string(VerdictErrored), OutputReason: "error", OutputPhase: string(PhaseError),
			OutputCommits: "0", OutputActiveFindings: "0"},
		Summary: "### ❌ review-loop — the run failed\n\n" + Escape(err.Error(), 2000) + "\n",
	}
}

// RunURL links a workflow run of repository owner/repo on server
// (GITHUB_SERVER_URL, default https://github.com); "" when the run id or
// the owner is unknown.
func RunURL(server, owner, repo string, runID int64) string {
	if runID == 0 || owner == "" {
		return ""
	}
	server = strings.TrimSuffix(server, "/")
	if server == "" {
		server = "https://github.com"
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", server, owner, repo, runID)
}

// Observed returns in with what the engines showed this cycle on head:
// the title of each finding (for the active findings lines) and, at
// hand-back, the stale threads still open (E9).
func (in Input) Observed(views []loop.EngineView, head string) Input {
	in.Titles, in.StaleThreads = map[int64]string{}, 0
	for _, v := range views {
		for _, f := range v.Findings {
			in.Titles[f.CommentID] = f.Title
		}
		if in.Plan.Action == loop.ActionHandBack {
			in.StaleThreads += len(loop.StaleFindings(v, head))
		}
	}
	return in
}

// IssuesFiled maps each non-blocking item with an issue filed for it (J5)
// to the issue's URL; nil when there is none.
func IssuesFiled(st state.State) map[string]string {
	var out map[string]string
	for _, it := range st.NonBlocking {
		if it.Issue != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[it.ID] = it.Issue
		}
	}
	return out
}
