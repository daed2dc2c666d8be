package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/loop"
)

// WF1 and R1 end to end over the fake GitHub: the fixer declines a
// finding, the decision goes into review-loop's reply (a marker), not
// into the state, and when the engine raises the same finding again in a
// new comment the next cycle reads the decision back from the thread and
// answers with the earlier rationale and link.
func TestRule_R1_AWontFixDecisionIsReadBackFromTheReplyNotTheState(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	script := filepath.Join(t.TempDir(), "fixer.sh")
	body := "#!/bin/sh\n" +
		`id=$(grep -o '"id": *"[^"]*"' "$REVIEW_LOOP_FINDINGS" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')` + "\n" +
		`printf '{"fixed":[],"outdated":[],"disagreed":[{"id":"%s","reply":"Not a bug: calc subtracts on purpose here."}],"error":null}\n' "$id"` + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{"engines": "copilot", "fixer": "command", "fixer-command": script}
	w.suggestionFixCycle(t, inputs, func(*Deps) {})
	var decline string
	var declineID int64
	for _, th := range w.fake.PR("octo", "app", 1).Threads {
		for _, c := range th.Comments[1:] {
			if _, ok := loop.ReadDecline(c.Body); ok {
				decline, declineID = c.Body, c.ID
			}
		}
	}
	if decline == "" {
		t.Fatalf("no reply carries the decision's marker\n%s", w.out.String())
	}
	if st, _ := statusState(t, w.fake); len(st.WontFix) != 0 {
		t.Errorf("the state keeps %d won't-fix rows; the decision lives in the reply", len(st.WontFix))
	}

	// The loop ended (nothing to fix). The engine raises the same finding
	// again in a new comment, and a maintainer restarts the loop.
	w.now = w.now.Add(10 * time.Minute)
	w.copilotReview(t, w.fake.HeadSHA("octo", "app", 1), addSuggestion)
	w.now = w.now.Add(time.Minute)
	cid, _ := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "@review-loop start")
	if _, err := w.cycleDeps("issue_comment", commandPayload(cid, "@review-loop start"), inputs, func(*Deps) {}); err != nil {
		t.Fatalf("start: %v\n%s", err, w.out.String())
	}
	var recalls []string
	for _, th := range w.fake.PR("octo", "app", 1).Threads {
		for _, c := range th.Comments[1:] {
			if _, _, ok := loop.ReadRecall(c.Body); ok {
				recalls = append(recalls, c.Body)
			}
		}
	}
	if len(recalls) != 1 || !strings.Contains(recalls[0], "Not a bug: calc subtracts on purpose here.") ||
		!strings.Contains(recalls[0], "#discussion_r"+itoa(int(declineID))) {
		t.Fatalf("recall replies = %q, want one with the earlier rationale and link\n%s", recalls, w.out.String())
	}
}
