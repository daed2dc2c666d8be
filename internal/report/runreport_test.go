package report

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// TestRule_H9_EveryWayARunEndsSetsEveryOutput: a cycle, a run on no loop
// and a run that failed each set the five outputs and a job summary; the
// outputs agree with the JSON report.
func TestRule_H9_EveryWayARunEndsSetsEveryOutput(t *testing.T) {
	t.Parallel()
	five := []string{OutputVerdict, OutputReason, OutputPhase, OutputCommits, OutputActiveFindings}
	cycle := ForCycle(midLoop(), "")
	noLoop := NoLoop("nothing to do", "the event names | no PR")
	failed := Failed(errors.New("inputs: max-commits must be positive"))
	for name, r := range map[string]RunReport{"cycle": cycle, "no loop": noLoop, "failed": failed} {
		for _, k := range five {
			if _, ok := r.Outputs[k]; !ok {
				t.Errorf("%s: no %s output", name, k)
			}
		}
		if !strings.HasPrefix(r.Summary, "### ") {
			t.Errorf("%s: summary %q has no heading", name, r.Summary)
		}
	}
	var rep JSONReport
	if err := json.Unmarshal(cycle.JSON, &rep); err != nil {
		t.Fatalf("cycle JSON: %v", err)
	}
	if string(rep.Verdict) != cycle.Outputs[OutputVerdict] || string(rep.Phase) != cycle.Outputs[OutputPhase] || cycle.Outputs[OutputPhase] != string(PhaseWait) {
		t.Errorf("JSON %s/%s, outputs %v", rep.Verdict, rep.Phase, cycle.Outputs)
	}
	if cycle.Notice != "" || noLoop.JSON != nil || failed.JSON != nil {
		t.Errorf("a waiting cycle has notice %q; no-loop JSON %q; failed JSON %q", cycle.Notice, noLoop.JSON, failed.JSON)
	}
	if noLoop.Outputs[OutputPhase] != "none" || noLoop.Outputs[OutputVerdict] != "pending" || noLoop.Outputs[OutputCommits] != "0" {
		t.Errorf("no-loop outputs %v", noLoop.Outputs)
	}
	if !strings.Contains(noLoop.Summary, "nothing to do") || !strings.Contains(noLoop.Summary, `names \| no PR`) {
		t.Errorf("no-loop summary %q: want the title and the escaped reason", noLoop.Summary)
	}
	if failed.Outputs[OutputPhase] != "error" || failed.Outputs[OutputVerdict] != "errored" || failed.Outputs[OutputReason] != "error" {
		t.Errorf("failed outputs %v", failed.Outputs)
	}
	if !strings.Contains(failed.Summary, "the run failed") || !strings.Contains(failed.Summary, "max-commits must be positive") {
		t.Errorf("failed summary %q", failed.Summary)
	}
}

// TestRule_H9_ADryRunsPlanFollowsTheSummaryAndAHandBackIsAnnotated: the
// dry run's plan is in the job summary after the report; a hand-back says
// what the maintainer does next.
func TestRule_H9_ADryRunsPlanFollowsTheSummaryAndAHandBackIsAnnotated(t *testing.T) {
	t.Parallel()
	in := cleanHandBack()
	r := ForCycle(in, "#### Dry run\n\nwould hand back\n")
	if !strings.HasPrefix(r.Summary, JobSummary(in)+"\n#### Dry run") {
		t.Errorf("summary does not end with the dry run after the report:\n%s", r.Summary)
	}
	want := "review-loop: PR #7 handed back: " + strings.TrimSpace(FollowUp(loop.EndClean))
	if r.Notice != want {
		t.Errorf("notice %q, want %q", r.Notice, want)
	}
	if r := ForCycle(in, ""); r.Summary != JobSummary(in) {
		t.Error("without a dry run the summary is not the job summary alone")
	}
}

// TestRunURL: a run is linked on the configured server, or not at all
// when its id or repository is unknown.
func TestRunURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		server, owner string
		id            int64
		want          string
	}{
		{"", "o", 9, "https://github.com/o/r/actions/runs/9"},
		{"https://ghe.example/", "o", 9, "https://ghe.example/o/r/actions/runs/9"},
		{"", "", 9, ""},
		{"", "o", 0, ""},
	} {
		if got := RunURL(tc.server, tc.owner, "r", tc.id); got != tc.want {
			t.Errorf("RunURL(%q, %q, %d) = %q, want %q", tc.server, tc.owner, tc.id, got, tc.want)
		}
	}
}

// TestRule_E9_StaleThreadsAreCountedAtHandBackOnly: the titles of every
// observed finding are kept for the findings lines; the stale threads
// still open (a thread of an older review, not resolved) are counted only
// when the cycle hands back.
func TestRule_E9_StaleThreadsAreCountedAtHandBackOnly(t *testing.T) {
	t.Parallel()
	v := loop.EngineView{Engine: "copilot", LatestReviewID: 2, Findings: []loop.Finding{
		{CommentID: 1, ReviewID: 1, ThreadID: "T1", Title: "old"},
		{CommentID: 2, ReviewID: 2, ThreadID: "T2", Title: "new"},
		{CommentID: 3, ReviewID: 1, ThreadID: "T3", Title: "done", Resolved: true},
	}}
	in := cleanHandBack().Observed([]loop.EngineView{v}, head)
	if in.StaleThreads != 1 {
		t.Errorf("stale threads at hand-back %d, want 1", in.StaleThreads)
	}
	if in.Titles[1] != "old" || in.Titles[2] != "new" || in.Titles[3] != "done" || len(in.Titles) != 3 {
		t.Errorf("titles %v", in.Titles)
	}
	if in := midLoop().Observed([]loop.EngineView{v}, head); in.StaleThreads != 0 || in.Titles[2] != "new" {
		t.Errorf("while waiting: %d stale threads, titles %v; want none counted", in.StaleThreads, in.Titles)
	}
}

// TestRule_J5_IssuesFiledForNonBlockingItems: only items with an issue
// are mapped to it.
func TestRule_J5_IssuesFiledForNonBlockingItems(t *testing.T) {
	t.Parallel()
	st := state.State{NonBlocking: []state.Item{{ID: "a"}, {ID: "b", Issue: "https://github.com/o/r/issues/4"}}}
	if got := IssuesFiled(st); len(got) != 1 || got["b"] != "https://github.com/o/r/issues/4" {
		t.Errorf("IssuesFiled = %v", got)
	}
	if got := IssuesFiled(state.State{NonBlocking: []state.Item{{ID: "a"}}}); got != nil {
		t.Errorf("no issue filed: %v, want nil", got)
	}
}

// TestRule_H9_ARunThatCycledNoLoopSaysWhyForEachPR: each pull request
// the run visited is listed with why it was not cycled; a run that
// visited none says no loop needed a cycle.
func TestRule_H9_ARunThatCycledNoLoopSaysWhyForEachPR(t *testing.T) {
	t.Parallel()
	r := NoneCycled([]Skip{{PR: 3, Why: "another run owns the cycle"}, {PR: 4}})
	for _, want := range []string{"no loop cycled", "- PR #3: another run owns the cycle", "- PR #4: not cycled in this job"} {
		if !strings.Contains(r.Summary, want) {
			t.Errorf("summary %q lacks %q", r.Summary, want)
		}
	}
	if r.Outputs[OutputPhase] != string(PhaseNone) {
		t.Errorf("outputs %v, want phase none", r.Outputs)
	}
	if r := NoneCycled(nil); !strings.Contains(r.Summary, "no pull request's loop needed a cycle in this run") {
		t.Errorf("no PR visited: %q", r.Summary)
	}
}

// TestRule_C2_AnIgnoredEventSaysWhyInTheSummaryAndANotice: an event that
// does not concern the loop reports no loop, and says why twice: in the
// job summary and as an annotation.
func TestRule_C2_AnIgnoredEventSaysWhyInTheSummaryAndANotice(t *testing.T) {
	t.Parallel()
	r := Ignored("check run X is no engine's")
	if r.Notice != "review-loop: nothing to do: check run X is no engine's" {
		t.Errorf("notice %q", r.Notice)
	}
	if !strings.Contains(r.Summary, "nothing to do") || !strings.Contains(r.Summary, "check run X is no engine's") || r.Outputs[OutputPhase] != string(PhaseNone) {
		t.Errorf("report %+v", r)
	}
}
