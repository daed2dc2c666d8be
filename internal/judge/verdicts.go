package judge

import (
	"context"
	"fmt"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file asks the judge, for one cycle, about every engine whose
// verdict is only prose, and turns its answers into the loop's inputs.

// Verdicts asks j about the prose-only engines among views where the loop
// needs a verdict on head (J1, cached per SHA in st: J4), with each
// engine's verdicts and active inline findings for head as the material.
// A judge item naming the place of an inline finding is left out (the
// finding itself enters triage); the others become findings of the
// engine. A failed judgement gives the engine no verdict and a warning,
// returned for the caller to write; the cycle goes on.
func Verdicts(ctx context.Context, j Judge, st state.State, views []loop.EngineView, head string) (map[string]loop.JudgeResult, []string) {
	out := map[string]loop.JudgeResult{}
	var warnings []string
	for _, v := range views {
		if !loop.NeedsJudge(st, v, head) {
			continue
		}
		m := Material{Engine: v.Engine, HeadSHA: head, VerdictSetProven: v.VerdictSetProven}
		for _, vd := range v.Verdicts {
			if vd.SHA == head {
				m.Verdicts = append(m.Verdicts, vd)
			}
		}
		m.Findings = append(m.Findings, loop.ActiveFindings(v, head)...)
		res, err := Run(ctx, j, m)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("judging %s: %v", v.Engine, err))
		}
		jr := loop.JudgeResult{Verdict: res.Verdict, Reason: res.Reason}
		for i, it := range res.Items {
			if coveredByFinding(it, m.Findings) {
				continue
			}
			jr.Items = append(jr.Items, loop.Finding{
				ID: fmt.Sprintf("%s-judge-%s-%d", v.Engine, head[:min(len(head), 7)], i+1), Engine: v.Engine,
				Title: it.Summary, Body: it.Summary, Path: it.Path, Line: it.Line, Severity: loop.SeverityUnknown,
			})
		}
		out[v.Engine] = jr
	}
	return out, warnings
}

// coveredByFinding reports whether a judge item names the place of an
// inline finding, which triage already holds.
func coveredByFinding(it Item, fs []loop.Finding) bool {
	for _, f := range fs {
		if it.Path != "" && it.Path == f.Path && (it.Line == 0 || it.Line == f.Line || (it.Line >= f.StartLine && it.Line <= f.Line)) {
			return true
		}
	}
	return false
}
