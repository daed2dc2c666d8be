package judge

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// recorder is a judge that answers res (or err) and keeps the material
// it was given.
type recorder struct {
	res  Result
	err  error
	seen []Material
}

func (r *recorder) Judge(_ context.Context, m Material) (Result, error) {
	r.seen = append(r.seen, m)
	return r.res, r.err
}

const head = "0123456789abcdef0123456789abcdef01234567"

// proseView is a prose-only engine DONE on head with readable material.
func proseView(name string) loop.EngineView {
	return loop.EngineView{Engine: name, Prose: true, Installed: true, Signal: loop.SignalDone, Material: loop.MaterialOK,
		Proof: &loop.Proof{Kind: "review", SHA: head}, LatestReviewID: 9,
		Verdicts: []loop.Verdict{{ReviewID: 8, SHA: "old", Body: "earlier"}, {ReviewID: 9, SHA: head, Body: "Looks risky at a.go:3"}},
		Findings: []loop.Finding{{ID: "f1", Engine: name, ReviewID: 9, Path: "a.go", StartLine: 2, Line: 4}},
	}
}

// J1: the judge is asked only about the prose-only engines that need a
// verdict, with the head's verdicts and active findings as material; an
// item at an inline finding's place is left out, the others become the
// engine's findings; J4: a verdict cached for this head and material is
// not asked again; a failed judgement is a warning and no verdict.
func TestRule_J1_TheJudgeIsAskedAboutProseOnlyEnginesAndItsItemsBecomeFindings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	structured := proseView("bugbot")
	structured.Prose = false
	j := &recorder{res: Result{Verdict: loop.JudgeBlocking, Items: []Item{{Summary: "covered", Path: "a.go", Line: 3}, {Summary: "nil map write", Path: "b.go", Line: 7}}}}
	views := []loop.EngineView{structured, proseView("gemini")}
	out, warnings := Verdicts(ctx, j, state.New(), views, head)
	if len(j.seen) != 1 || j.seen[0].Engine != "gemini" || len(j.seen[0].Verdicts) != 1 || j.seen[0].Verdicts[0].ReviewID != 9 || len(j.seen[0].Findings) != 1 {
		t.Fatalf("judge asked %+v, want gemini once with the head's verdict and its finding", j.seen)
	}
	got := out["gemini"]
	if len(out) != 1 || got.Verdict != loop.JudgeBlocking || len(got.Items) != 1 || len(warnings) != 0 {
		t.Fatalf("results %+v warnings %q, want gemini BLOCKING with one item", out, warnings)
	}
	if it := got.Items[0]; it.ID != "gemini-judge-0123456-2" || it.Path != "b.go" || it.Line != 7 || it.Title != "nil map write" || it.Severity != loop.SeverityUnknown {
		t.Errorf("item %+v, want the uncovered item as gemini's finding", it)
	}

	cached := loop.RecordJudge(state.New(), views[1], head, got)
	j.seen = nil
	if out, _ := Verdicts(ctx, j, cached, views, head); len(j.seen) != 0 || len(out) != 0 {
		t.Errorf("asked %d times with the verdict cached (J4), results %+v; want none", len(j.seen), out)
	}

	j.err = errors.New("judge down")
	out, warnings = Verdicts(ctx, j, state.New(), views, head)
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "judging gemini: judge down") || out["gemini"].Verdict != loop.JudgeNone {
		t.Errorf("results %+v warnings %q, want no verdict and a warning naming the engine", out, warnings)
	}
	if out, _ := Verdicts(ctx, nil, state.New(), views, head); out["gemini"].Reason != NoJudgeReason || !slices.Equal([]string{"gemini"}, slices.Collect(maps.Keys(out))) {
		t.Errorf("with no judge: %+v, want gemini with the no-judge reason", out)
	}
}
