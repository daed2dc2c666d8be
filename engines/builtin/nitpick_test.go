package builtin

import (
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// TestRule_CV3_CodeRabbitsInlineNitpickIsANitpick: a real CodeRabbit
// inline review comment of nitpick kind ("_:broom: Nitpick (assertive)_",
// testdata/engines/coderabbit/12-…) posted as a thread is read as a
// finding of low severity whose category names it a nitpick, so CV3 cools
// it down like the nitpicks of a review body ("🧹 Nitpick comments").
func TestRule_CV3_CodeRabbitsInlineNitpickIsANitpick(t *testing.T) {
	body := block(t, "coderabbit", "12-", 0)
	if !strings.HasPrefix(body, "_:broom: Nitpick (assertive)_") {
		t.Fatal("sample 12 changed")
	}
	obs := observation()
	obs.Reviews = []github.Review{review("coderabbit", 7, head, "**Actionable comments posted: 1**", 0)}
	obs.Threads = []github.Thread{{NodeID: "PRRT_1", Path: ".github/PULL_REQUEST_TEMPLATE.md", Line: 14, OriginalLine: 14,
		Comments: []github.ReviewComment{{NodeID: "PRRC_1", DatabaseID: 1862001, Author: bots["coderabbit"], Body: body,
			CreatedAt: r3t0, ReviewDatabaseID: 7, CommitSHA: head, OriginalCommitSHA: head}}}}
	v := engine(t, "coderabbit").Observe(obs, engines.Env{HasTriggerToken: true, Now: r3t0.Add(time.Hour)})
	if len(v.Findings) != 1 {
		t.Fatalf("findings = %+v, want the one inline nitpick", v.Findings)
	}
	f := v.Findings[0]
	if f.Severity != loop.SeverityLow || !loop.IsNitpick(f) || f.Title != "TARS Humor Setting 75%: Redundancy detected in our flight path" {
		t.Fatalf("finding: severity %q, category %q (nitpick %v), title %q; want low, a nitpick, the bold title", f.Severity, f.Category, loop.IsNitpick(f), f.Title)
	}
}
