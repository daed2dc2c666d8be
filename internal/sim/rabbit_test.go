package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/declarative"
	"github.com/review-loop/review-loop/internal/loop"
)

func builtinEngine(t *testing.T, name string) *declarative.Engine {
	t.Helper()
	defs, err := declarative.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		if d.Name == name {
			e, err := declarative.New(d)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatalf("no built-in %s", name)
	return nil
}

// Gemini ignores `/gemini review` posted by github-actions[bot]
// (googleworkspace/cli#384) and reviews the user's.
func TestGeminiIgnoresABotPostedTrigger(t *testing.T) {
	t.Parallel()
	w, gh, user := newWorld(t, botScenario(t, Gemini, "      - clean: true\n      - clean: true\n"))
	w.Advance(5 * time.Minute)
	reviews := func() int { return len(w.Fake.PR(w.Owner, w.Repo, w.Number).Reviews) }
	if reviews() != 1 {
		t.Fatalf("%d reviews after open", reviews())
	}
	if _, err := gh.CreateIssueComment(context.Background(), w.Owner, w.Repo, w.Number, "/gemini review"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(5 * time.Minute)
	if reviews() != 1 {
		t.Fatalf("Gemini reacted to a bot's trigger: %d reviews", reviews())
	}
	if _, err := user.CreateIssueComment(context.Background(), w.Owner, w.Repo, w.Number, "/gemini review"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(5 * time.Minute)
	if reviews() != 2 {
		t.Fatalf("Gemini ignored a user's trigger: %d reviews", reviews())
	}
}

// CodeRabbit is incremental: an open thread is not posted again by its
// next review, and findings scripted into the body appear once, in the
// body sections the adapter reads, under "Actionable comments posted: 0".
func TestCodeRabbitIsIncrementalAndPostsBodyFindings(t *testing.T) {
	t.Parallel()
	rounds := `      - findings:
          - {id: div, path: calc/calc.go, line: 4, title: Div panics on zero, severity: high, body: "b may be zero.", bad: "return a / b"}
      - findings:
          - {id: max, where: body-outside-diff, path: calc/calc.go, start_line: 8, line: 9, title: Max is swapped, body: "returns the smaller value.", bad: "return a\n"}
          - {id: nit, where: body-nitpick, path: calc/calc.go, line: 3, title: Name the divisor, body: "b could be named.", bad: "func Div"}
`
	w, gh, user := newWorld(t, botScenario(t, CodeRabbit, rounds))
	w.Advance(3 * time.Minute)
	if _, err := user.CreateIssueComment(context.Background(), w.Owner, w.Repo, w.Number, "@coderabbitai review"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(3 * time.Minute)
	pr := w.Fake.PR(w.Owner, w.Repo, w.Number)
	if len(pr.Reviews) != 2 || len(pr.Threads) != 1 {
		t.Fatalf("%d reviews, %d threads; want 2 reviews and the first thread only", len(pr.Reviews), len(pr.Threads))
	}
	body := pr.Reviews[1].Body
	for _, s := range []string{"**Actionable comments posted: 0**", "⚠️ Outside diff range comments (1)", "🧹 Nitpick comments (1)", "> [!CAUTION]"} {
		if !strings.Contains(body, s) {
			t.Errorf("review body lacks %q:\n%s", s, body)
		}
	}
	v := builtinEngine(t, CodeRabbit).Observe(observe(t, w, gh), engines.Env{HasTriggerToken: true})
	var threads, bodies int
	for _, f := range v.Findings {
		if f.ThreadID == "" {
			bodies++
		} else {
			threads++
		}
	}
	if threads != 1 || bodies != 2 || v.Stated == nil || v.Stated.N != 2 || !v.Incremental {
		t.Fatalf("threads %d, body findings %d, stated %+v: %+v", threads, bodies, v.Stated, v.Findings)
	}
}

// The quota, skip and failure rounds post CodeRabbit's real notices, and
// the adapter reads them as quota (with the stated wait), not proven, and
// errored.
func TestCodeRabbitNoticesReadByTheAdapter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		round string
		want  loop.Material
		wait  time.Duration
	}{
		{"      - {quota: true, wait: 17m}\n", loop.MaterialQuota, 17 * time.Minute},
		{"      - {skipped: true}\n", loop.MaterialUnproven, 0},
		{"      - {error: true}\n", loop.MaterialErrored, 0},
	} {
		w, gh, _ := newWorld(t, botScenario(t, CodeRabbit, tt.round))
		w.Advance(3 * time.Minute)
		v := builtinEngine(t, CodeRabbit).Observe(observe(t, w, gh), engines.Env{HasTriggerToken: true})
		if v.Signal != loop.SignalDone || v.Material != tt.want || (tt.wait != 0) != (v.Quota != nil) || v.Quota != nil && v.Quota.Wait != tt.wait {
			t.Errorf("%s: %s %s %q quota %+v", strings.TrimSpace(tt.round), v.Signal, v.Material, v.MaterialNote, v.Quota)
		}
	}
	w, gh, user := newWorld(t, botScenario(t, Gemini, "      - clean: true\n      - {quota: true}\n"))
	w.Advance(3 * time.Minute)
	if _, err := user.CreateIssueComment(context.Background(), w.Owner, w.Repo, w.Number, "/gemini review"); err != nil {
		t.Fatal(err)
	}
	w.ReactToRequests()
	w.Advance(3 * time.Minute)
	if v := builtinEngine(t, Gemini).Observe(observe(t, w, gh), engines.Env{HasTriggerToken: true}); v.Material != loop.MaterialQuota || v.Quota == nil || v.Quota.Wait != 24*time.Hour {
		t.Fatalf("gemini %s %+v", v.Material, v.Quota)
	}
}

// The scenario check quiet_during_quota names a trigger inside a stated
// wait and none outside it.
func TestQuietDuringQuotaNamesTriggersInsideTheWait(t *testing.T) {
	t0 := DefaultStart
	w := &World{quotas: map[string][]quotaWindow{CodeRabbit: {{at: t0, wait: 30 * time.Minute}}, Gemini: {{at: t0}}},
		triggerAt: map[string][]time.Time{CodeRabbit: {t0.Add(-time.Minute), t0.Add(10 * time.Minute), t0.Add(31 * time.Minute)}, Gemini: {t0.Add(59 * time.Minute)}}}
	got := w.quotaTriggers([]string{CodeRabbit, Gemini, Bugbot})
	if len(got) != 3 || !strings.Contains(got[0], "10m0s into the 30m0s") || !strings.Contains(got[1], "59m0s into the 1h0m0s") || !strings.Contains(got[2], "bugbot posted no quota notice") {
		t.Fatalf("%q", got)
	}
}
