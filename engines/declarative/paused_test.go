package declarative

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
)

// ST6: CodeRabbit's walkthrough in its "Reviews paused" state (the real
// one, coderabbit/03-…, after auto_pause_after_reviewed_commits) with
// nothing on the head is PAUSED, not pending: the view says so and names
// the one-review command, never resume. Once the engine has something on
// the head (a check run), it is read as usual.
func TestRule_ST6_coderabbitReviewsPausedIsPausedNotPending(t *testing.T) {
	c := builtin(t, "coderabbit")
	walk := block(t, "coderabbit", "03-", 1)
	if !strings.Contains(walk, "## Reviews paused") {
		t.Fatalf("block 1 of 03- is not the paused walkthrough:\n%s", walk)
	}
	o := obsAt("sha2")
	o.IssueComments = []github.IssueComment{{DatabaseID: 5, Author: rabbit(), Body: walk, CreatedAt: t0, UpdatedAt: t0}}
	v := c.Observe(o, engines.Env{HasTriggerToken: true})
	if v.Paused == "" {
		t.Fatalf("view %+v: a paused CodeRabbit is not PAUSED", v)
	}
	if !strings.Contains(v.Paused, "@coderabbitai review") || strings.Contains(v.Paused, "`@coderabbitai resume`") {
		t.Fatalf("paused note %q: want the single-review command and no resume", v.Paused)
	}
	// Its reviews of the head go on as usual once asked: a check run on
	// the head is read, not the pause.
	o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: "CodeRabbit", Status: "IN_PROGRESS", StartedAt: t0}}
	if v := c.Observe(o, engines.Env{HasTriggerToken: true}); v.Paused != "" {
		t.Fatalf("a CodeRabbit reviewing the head was read as paused: %q", v.Paused)
	}
	// A walkthrough without the paused block is not paused.
	o.CheckRuns = nil
	o.IssueComments[0].Body = block(t, "coderabbit", "02-", 0)
	if v := c.Observe(o, engines.Env{HasTriggerToken: true}); v.Paused != "" {
		t.Fatalf("an active walkthrough was read as paused: %q", v.Paused)
	}
}
