package report

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// S8: an engine left UNPROVEN is named at hand-back and on the status
// comment with the text it posted, clipped and escaped: an engine's text
// can neither ping anyone, nor hide in an HTML comment, nor run long.
func TestRule_S8_StatusAndHandBackQuoteTheUnprovenTextClippedAndEscaped(t *testing.T) {
	t.Parallel()
	text := "<!-- hidden --> @octocat [click](https://evil.example) " + strings.Repeat("very long ", 80)
	v := loop.EngineView{Engine: "gemini", Installed: true, Signal: loop.SignalDone, Material: loop.MaterialOK, Unproven: text}
	note := loop.UnprovenNote(v, "1111111111111111111111111111111111111111")
	st := state.New()
	st.Status, st.EndReason = state.StatusDone, string(loop.EndBound)
	in := Input{State: st, Repo: "o/r", Number: 7, Plan: loop.Plan{Action: loop.ActionHandBack, EndReason: loop.EndBound,
		Engines: []loop.EngineReport{{Engine: "gemini", State: loop.Done, Verdict: loop.VerdictUnproven, Note: note}}}}
	for name, md := range map[string]string{"hand-back": HandBack(in), "status comment": StatusComment(in)} {
		if !strings.Contains(md, "UNPROVEN") || !strings.Contains(md, "gemini") {
			t.Errorf("%s does not name the UNPROVEN engine:\n%s", name, md)
		}
		for _, bad := range []string{"<!-- hidden -->", "@octocat", "[click](", strings.Repeat("very long ", 40)} {
			if strings.Contains(md, bad) {
				t.Errorf("%s carries the engine's text unescaped or unclipped (%q):\n%s", name, bad, md)
			}
		}
		if !strings.Contains(md, "&lt;!-- hidden --&gt;") {
			t.Errorf("%s does not quote the text:\n%s", name, md)
		}
	}
	if s := Summarize(in); s.Verdict != VerdictHung {
		t.Errorf("overall verdict %s, want hung: no finished review within the waiting bound", s.Verdict)
	}
}
