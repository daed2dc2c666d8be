package report

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_S4_StatusCommentLinksTheRunAndSaysSinceWhenEachEngineWaits(t *testing.T) {
	t.Parallel()
	in := midLoop()
	es := in.State.EngineStates["copilot"]
	es.WaitSHA, es.WaitSince = head, at(3)
	in.State.EngineStates["copilot"] = es
	in.RunURL = "https://github.com/o/r/actions/runs/42"
	in.Now = at(15).Add(30 * time.Second)
	in.RulesURL = "https://github.com/review-loop/review-loop/blob/main/docs/rules.md"
	got := StatusComment(in)
	for _, want := range []string{
		"[run 42](https://github.com/o/r/actions/runs/42)",
		"updated 2025-03-04 10:15 UTC",
		"copilot waiting since 10:03 UTC",
		"_[W1](https://github.com/review-loop/review-loop/blob/main/docs/rules.md#w1)(d): waiting for copilot (RUNNING)_",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("status comment lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "bugbot waiting") {
		t.Errorf("a DONE engine is shown waiting:\n%s", got)
	}
}

func TestRule_S4_NoRunLinkOrClockKeepsTheCommentAsItWas(t *testing.T) {
	t.Parallel()
	in := midLoop()
	in.State.EngineStates["copilot"] = state.EngineState{Review: state.ReviewRunning, WaitSince: at(3)}
	if got := StatusComment(in); strings.Contains(got, "updated ") || strings.Contains(got, "waiting 1") || strings.Contains(got, "rules.md") {
		t.Errorf("fields left empty still render:\n%s", got)
	}
}
