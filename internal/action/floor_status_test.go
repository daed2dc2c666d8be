package action

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
)

// TestRule_EQ3_TheStatusCommandAppliesTheRepositorysFloor: the status
// command judges engines with the floor the loop applies, read from the
// repository's config file (clean_at). A PR whose only open finding is a
// low Copilot suggestion is CLEAN under clean_at: medium — in the status
// report as in the loop's own hand-back — with the finding listed below
// the floor; under clean_at: any the same finding is active and blocks.
func TestRule_EQ3_TheStatusCommandAppliesTheRepositorysFloor(t *testing.T) {
	t.Parallel()
	for _, floor := range []string{"medium", "any"} {
		files := map[string]string{
			"calc/calc.go":            "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
			".github/review-loop.yml": "clean_at: " + floor + "\nengine_severity_markers:\n  copilot:\n    - pattern: '\\[style\\]'\n      severity: low\n",
		}
		w := newWorld(t, files)
		in := map[string]string{"engines": "copilot"}
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
			t.Fatalf("%v\n%s", err, w.out.String())
		}
		head := w.fake.HeadSHA("octo", "app", 1)
		w.now = w.now.Add(3 * time.Minute)
		review := w.copilotReview(t, head, "[style] "+addSuggestion)

		cid, err := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "@review-loop status")
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.cycle("issue_comment", commandPayload(cid, "@review-loop status"), in)
		if err != nil {
			t.Fatalf("%v\n%s", err, w.out.String())
		}
		var r *loop.EngineReport
		for i := range res.PRs[0].Plan.Engines {
			if res.PRs[0].Plan.Engines[i].Engine == "copilot" {
				r = &res.PRs[0].Plan.Engines[i]
			}
		}
		if r == nil {
			t.Fatalf("clean_at %s: no copilot line in the status plan: %+v", floor, res.PRs[0].Plan)
		}
		if floor == "any" {
			if r.Verdict == loop.VerdictClean || len(r.Active) != 1 || len(r.BelowFloor) != 0 {
				t.Errorf("clean_at any: status copilot = %+v, want its low finding active and not clean", *r)
			}
			continue
		}
		if r.Verdict != loop.VerdictClean || len(r.Active) != 0 || len(r.BelowFloor) != 1 {
			t.Errorf("clean_at medium: status copilot = %+v, want CLEAN with the low finding below the floor", *r)
		}
		if cs := stateComments(w.fake); len(cs) != 1 || !strings.Contains(cs[0].Body, "below the severity floor, listed for you, not blocking") {
			t.Errorf("clean_at medium: the status comment does not list the finding below the floor:\n%v", cs)
		}
		res, err = w.cycle("pull_request_review", review, in)
		if err != nil {
			t.Fatalf("%v\n%s", err, w.out.String())
		}
		if p := res.PRs[0].Plan; p.EndReason != loop.EndClean || res.PRs[0].Pushed != "" ||
			!slices.ContainsFunc(p.Engines, func(e loop.EngineReport) bool { return e.Engine == "copilot" && e.Verdict == loop.VerdictClean }) {
			t.Errorf("clean_at medium: the loop's cycle = %s %s (pushed %q), want the CLEAN hand-back status showed", p.Action, p.EndReason, res.PRs[0].Pushed)
		}
	}
}
