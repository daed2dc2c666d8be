package report

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// S12 (issue item 3): a quota is shown as a quota with its cooldown, the
// engine's words beside it, never as an ERRORED engine. Copilot's quota
// review (copilot/14-…) read by the loop, then rendered.
func TestRule_S12_AQuotaIsShownAsAQuotaWithItsCooldownNeverAsErrored(t *testing.T) {
	t.Parallel()
	head := "1111111111111111111111111111111111111111"
	t0 := time.Date(2026, 11, 30, 14, 4, 0, 0, time.UTC)
	st := state.New()
	st.Status, st.StartedAt, st.LastObservedSHA, st.Engines = state.StatusActive, t0, head, []string{"copilot"}
	st.EngineStates = map[string]state.EngineState{"copilot": {TriggeredSHA: head, TriggeredAt: t0, FirstReviewSeen: true}}
	words := "Copilot was unable to review this pull request because the user who requested the review has reached their quota limit."
	v := loop.EngineView{Engine: "copilot", Installed: true, TriggerAvailable: true, CompletionSignal: true,
		Signal: loop.SignalDone, Material: loop.MaterialQuota, LatestReviewID: 9, LatestSHA: head,
		Quota: &loop.QuotaNotice{At: t0.Add(time.Minute), Text: words}}
	p, next := loop.Decide(st, loop.Observation{Now: t0.Add(2 * time.Minute), PR: 7, HeadSHA: head, PRState: "OPEN",
		Engines: []loop.EngineView{v}}, loop.DefaultConfig())
	in := Input{State: next, Plan: p, Repo: "o/r", Number: 7}
	md := StatusComment(in)
	if !strings.Contains(md, "⏳ **QUOTA** — cooldown until 15:05 UTC") {
		t.Errorf("the status comment does not show the quota with its cooldown:\n%s", md)
	}
	if !strings.Contains(md, "reached their quota limit") {
		t.Errorf("the status comment does not quote the engine's words:\n%s", md)
	}
	for _, bad := range []string{"ERRORED", "errored"} {
		if strings.Contains(md, bad) {
			t.Errorf("the status comment shows the quota as %s:\n%s", bad, md)
		}
	}
}
