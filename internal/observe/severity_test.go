package observe

import (
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// EQ3: a repository's config adds severity words to an engine's mapping
// (engine_severity_markers, the shape of engines/defs/): read on the
// root comment of each of the engine's threads after its adapter, they
// win over the definition's words; a finding they do not mark keeps the
// definition's severity; another engine's findings are not read.
func TestRule_EQ3_ARepositoryAddsSeverityWordsToAnEngine(t *testing.T) {
	t.Parallel()
	ms, err := engines.ParseSeverityMarkers([]byte(`engine_severity_markers:
  bugbot:
    - pattern: '\*\*Blocker\*\*'
      severity: critical
      category: blocker
    - pattern: '\[style\]'
      severity: low
  copilot:
    - pattern: 'High Severity'
      severity: low
`))
	if err != nil {
		t.Fatal(err)
	}
	const head = "1111111111111111111111111111111111111111"
	o := bugbotOn(head, head, "Cursor Bugbot has reviewed your changes and found 3 potential issues.")
	cursor := github.Actor{Login: "cursor", DatabaseID: bugbot.BotID, IsBot: true}
	for i, body := range []string{
		"### A new word\n\n**Blocker**\n\n<!-- BUGBOT_BUG_ID: k1 -->",
		"### Known words\n\n**High Severity**\n\n<!-- BUGBOT_BUG_ID: k2 -->",
		"### Both\n\n**High Severity** [style]\n\n<!-- BUGBOT_BUG_ID: k3 -->",
	} {
		o.Threads = append(o.Threads, github.Thread{NodeID: "T" + string(rune('1'+i)), Path: "a.go", Line: 3,
			Comments: []github.ReviewComment{{DatabaseID: int64(100 + i), Author: cursor, Body: body, ReviewDatabaseID: 9, CommitSHA: head}}})
	}
	bb := []engines.Engine{bugbot.New()}
	sev := func(env engines.Env) map[string]loop.Finding {
		out := map[string]loop.Finding{}
		for _, f := range Views(nil, bb, o, env)[0].Findings {
			out[f.Key] = f
		}
		return out
	}
	// Without the repository's words: the definition's.
	if got := sev(engines.Env{}); got["k1"].Severity != loop.SeverityUnknown || got["k2"].Severity != loop.SeverityHigh || got["k3"].Severity != loop.SeverityHigh {
		t.Fatalf("the definition's severities: %+v", got)
	}
	got := sev(engines.Env{Severities: ms})
	for key, want := range map[string]loop.Severity{"k1": loop.SeverityCritical, "k2": loop.SeverityHigh, "k3": loop.SeverityLow} {
		if got[key].Severity != want {
			t.Errorf("%s: severity %q, want %q", key, got[key].Severity, want)
		}
	}
	if got["k1"].Category != "blocker" {
		t.Errorf("k1: category %q, want the marker's", got["k1"].Category)
	}
}
