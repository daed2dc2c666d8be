package action

import (
	"fmt"
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

var schedulePayload = map[string]any{"schedule": "*/30 * * * *",
	"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}}}

// busy opens more PRs beside PR #1 (none with a loop) and makes each of
// live a live loop: an active state comment by our identity and the live
// label, as a running loop leaves them.
func (w *world) busy(open int, live ...int) {
	w.t.Helper()
	for i := 2; i <= open; i++ {
		if _, err := w.fake.CreatePR("octo", "app", ghfake.PROptions{Head: fmt.Sprintf("other-%d", i), Author: "maintainer",
			Files: map[string]string{fmt.Sprintf("other/%d.txt", i): "x\n"}}); err != nil {
			w.t.Fatal(err)
		}
	}
	st := state.New()
	st.Status, st.Engines = state.StatusActive, []string{"copilot"}
	for _, n := range live {
		w.addOurState(n, "status", st)
		if err := w.fake.AddLabel("octo", "app", n, LiveLabel); err != nil {
			w.t.Fatal(err)
		}
	}
}

func dispatchedPRs(f *ghfake.Fake) []int {
	var out []int
	for _, d := range f.Dispatches() {
		var n int
		fmt.Sscan(fmt.Sprint(d.Inputs["pr"]), &n)
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// SW2: a sweep with 5 live loops among 30 open PRs dispatches 5 runs, one
// per loop, and reads nothing else: one GraphQL request for the live
// loops, no observation of any PR (with or without a loop).
func TestRule_SW2_SweepDispatchesOneRunPerLiveLoopAndObservesNoPR(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	live := []int{3, 9, 17, 24, 30}
	w.busy(30, live...)
	w.fake.ResetRequests()
	res, err := w.cycle("schedule", schedulePayload, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := dispatchedPRs(w.fake); !slices.Equal(got, live) {
		t.Fatalf("dispatched %v, want one run per live loop %v", got, live)
	}
	for _, d := range w.fake.Dispatches() {
		if d.Workflow != "review-loop.yml" || d.Ref != "main" {
			t.Fatalf("dispatch %+v, want review-loop.yml on main", d)
		}
	}
	reqs := w.fake.Requests()
	if len(reqs) != 1+len(live) {
		t.Fatalf("%d requests, want 1 read and %d dispatches: %+v", len(reqs), len(live), reqs)
	}
	if reqs[0].GraphQL != "rateLimit,repository" {
		t.Fatalf("the sweep's read is %q", reqs[0].GraphQL)
	}
	if len(res.PRs) != len(live) || !res.PRs[0].Dispatched {
		t.Fatalf("results %+v", res.PRs)
	}
}

// SW2: inline, the sweep cycles the live loops in its own job (at most
// sweepBudget) and never observes a PR without a loop.
func TestRule_SW2_InlineSweepCyclesOnlyTheLiveLoops(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	live := []int{4, 30}
	w.busy(30, live...)
	res, err := w.cycle("schedule", schedulePayload, map[string]string{"sweep-fanout": "inline", "engines": "copilot"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range res.PRs {
		got = append(got, p.PR)
	}
	if !slices.Equal(got, live) {
		t.Fatalf("cycled %v, want only the live loops %v", got, live)
	}
}

// SW1: the live label follows the loop. A cycle of a live loop adds it,
// adds it again after a human removed it, and `stop` removes it.
func TestRule_SW1_TheLiveLabelFollowsTheLoop(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot"}
	labelled := func() bool { return slices.Contains(w.fake.PR("octo", "app", 1).Labels, LiveLabel) }
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	if !labelled() {
		t.Fatal("a live loop's PR is not labelled")
	}
	if err := w.fake.RemoveLabel("octo", "app", 1, LiveLabel); err != nil {
		t.Fatal(err)
	}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	if !labelled() {
		t.Fatal("the label a human removed was not added again")
	}
	cid, err := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "@review-loop stop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.cycle("issue_comment", commandPayload(cid, "@review-loop stop"), in); err != nil {
		t.Fatal(err)
	}
	if labelled() {
		t.Fatal("a stopped loop is still labelled live")
	}
}

// SW1 and TB3: the live label alone never starts a loop. Anyone with triage
// permission can add it, so the run the sweep dispatches for a labelled PR
// without a loop (sent by review-loop's own identity) starts none; a
// person's dispatch still does.
func TestRule_SW1_TheLiveLabelAloneStartsNoLoop(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if err := w.fake.AddLabel("octo", "app", 1, LiveLabel); err != nil {
		t.Fatal(err)
	}
	if _, err := w.cycle("schedule", schedulePayload, nil); err != nil {
		t.Fatal(err)
	}
	in := map[string]string{"engines": "copilot"}
	bot := dispatchPayload(1)
	bot["sender"] = map[string]any{"login": "github-actions[bot]", "type": "Bot"}
	res, err := w.cycle("workflow_dispatch", bot, in)
	if err != nil {
		t.Fatal(err)
	}
	if st := res.PRs[0].State.Status; st != "" || len(w.fake.PR("octo", "app", 1).RequestedReviewers) > 0 {
		t.Fatalf("the sweep's dispatch for a labelled PR without a loop started one (status %q)", st)
	}
	res, err = w.cycle("workflow_dispatch", dispatchPayload(1), in)
	if err != nil {
		t.Fatal(err)
	}
	if st := res.PRs[0].State.Status; st != state.StatusActive {
		t.Fatalf("a maintainer's dispatch did not start a loop (status %q)", st)
	}
}
