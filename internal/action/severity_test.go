package action

import (
	"testing"
	"time"
)

// TestRule_EQ3_ARepositorysSeverityWordsReachTheFloor: the severity
// words a repository's config adds to an engine (engine_severity_markers)
// reach the clean-at floor. A Copilot suggestion tagged "[style]" states
// no severity Copilot's definition knows: medium, so under clean-at:
// medium it is fixed and pushed; with the config mapping "[style]" to
// low, it is below the floor: listed, not fixed, nothing pushed.
func TestRule_EQ3_ARepositorysSeverityWordsReachTheFloor(t *testing.T) {
	t.Parallel()
	for _, words := range []bool{false, true} {
		files := map[string]string{"calc/calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"}
		if words {
			files[".github/review-loop.yml"] = "engine_severity_markers:\n  copilot:\n    - pattern: '\\[style\\]'\n      severity: low\n"
		}
		w := newWorld(t, files)
		in := map[string]string{"engines": "copilot", "clean-at": "medium"}
		if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
			t.Fatalf("%v\n%s", err, w.out.String())
		}
		head := w.fake.HeadSHA("octo", "app", 1)
		w.now = w.now.Add(3 * time.Minute)
		res, err := w.cycle("pull_request_review", w.copilotReview(t, head, "[style] "+addSuggestion), in)
		if err != nil {
			t.Fatalf("%v\n%s", err, w.out.String())
		}
		if pushed := res.PRs[0].Pushed != ""; pushed == words {
			t.Errorf("with the config's severity words %v: pushed %v (the [style] finding should be fixed only without them)\n%s", words, pushed, w.out.String())
		}
	}
}
