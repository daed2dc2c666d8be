package declarative

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/fakegh"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

var t0 = time.Date(2026, 8, 11, 5, 0, 0, 0, time.UTC)

func builtin(t testing.TB, name string) *Engine {
	t.Helper()
	ds, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Name == name {
			e, err := New(d)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatalf("no built-in %s", name)
	return nil
}

func TestBuiltin_definitionsLoadSorted(t *testing.T) {
	ds, err := Builtin()
	if err != nil || len(ds) != 2 || ds[0].Name != "coderabbit" || ds[1].Name != "gemini" {
		t.Fatalf("%v %v", ds, err)
	}
}

func TestGemini_realSamples(t *testing.T) {
	g := builtin(t, "gemini")
	all := samples.Load(t, "gemini")
	t.Run("01 badges give high and medium, the review body is no finding", func(t *testing.T) {
		bs := samples.Blocks(samples.Get(t, all, "01-").Text)
		want := []loop.Severity{loop.SeverityUnknown, loop.SeverityHigh, loop.SeverityHigh, loop.SeverityMedium}
		if len(bs) < len(want) {
			t.Fatalf("%d blocks", len(bs))
		}
		for i, w := range want {
			if p := g.ParseFinding(bs[i]); p.Severity != w {
				t.Errorf("block %d: %s", i, p.Severity)
			}
		}
		p := g.ParseFinding(bs[2])
		if len(engines.Suggestions(p.Body)) != 1 || !strings.HasPrefix(p.Title, "The code example") {
			t.Errorf("suggestion or title lost: %+v", p)
		}
	})
	t.Run("02 the critical badge (critical.svg) is critical", func(t *testing.T) {
		b := samples.Blocks(samples.Get(t, all, "02-").Text)[0]
		if p := g.ParseFinding(b); p.Severity != loop.SeverityCritical || len(engines.Suggestions(p.Body)) != 1 {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("04 the sunset notice is an error phrase, the help block is not", func(t *testing.T) {
		bs := samples.Blocks(samples.Get(t, all, "04-").Text)
		if g.errorPhrase(bs[0]) != "" || g.errorPhrase(bs[1]) == "" {
			t.Fatalf("help %q sunset %q", g.errorPhrase(bs[0]), g.errorPhrase(bs[1]))
		}
	})
}

func TestCodeRabbit_realSamples(t *testing.T) {
	c := builtin(t, "coderabbit")
	all := samples.Load(t, "coderabbit")
	t.Run("01 the 2026 inline format: header, title, category, id", func(t *testing.T) {
		b := samples.Blocks(samples.Get(t, all, "01-").Text)[0]
		p := c.ParseFinding(b)
		if p.Severity != loop.SeverityHigh || p.Key != "835d73fa5a0864fb5fef24b9" || p.Title != "Make Agent session progress flags race-free." || p.Category != "🩺 Stability & Availability" {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("02 the review body announces two actionable comments; the walkthrough announces none", func(t *testing.T) {
		bs := samples.Blocks(samples.Get(t, all, "02-").Text)
		if _, ok := c.SummaryCount(bs[0]); ok {
			t.Error("walkthrough read as a review summary")
		}
		if n, ok := c.SummaryCount(bs[1]); !ok || n != 2 {
			t.Fatalf("%d %v", n, ok)
		}
	})
	t.Run("03 the paused walkthrough and PR summary are neither errors nor findings", func(t *testing.T) {
		for _, b := range samples.Blocks(samples.Get(t, all, "03-").Text) {
			if c.errorPhrase(b) != "" || c.ParseFinding(b).Severity != loop.SeverityUnknown {
				t.Errorf("misread: %q", b[:60])
			}
		}
	})
	t.Run("04 rate-limit and review-limit notices are quota, the failure an error; the acknowledgement is neither", func(t *testing.T) {
		bs := samples.Blocks(samples.Get(t, all, "04-").Text)
		want := []noticeKind{noticeQuota, noticeQuota, noticeNone, noticeError}
		for i, w := range want {
			if got := c.classify(bs[i], t0).kind; got != w {
				t.Errorf("block %d: notice kind %d, want %d", i, got, w)
			}
		}
	})
	t.Run("the clean wording is recognised but only reported", func(t *testing.T) {
		if !c.CleanPhrase("No actionable comments were generated in the recent review. 🎉") {
			t.Fatal("clean phrase")
		}
	})
}

func TestEverySampleParsesWithoutPanic(t *testing.T) {
	for _, name := range []string{"gemini", "coderabbit"} {
		e := builtin(t, name)
		for _, s := range samples.Load(t, name) {
			if p := e.ParseFinding(s.Text); p.Severity == "" {
				t.Errorf("%s: empty severity", s.Name)
			}
		}
	}
}

func obsAt(head string) *github.Observation {
	return &github.Observation{Owner: "o", Repo: "r", Number: 1, HeadSHA: head, Complete: true}
}

func rabbit() github.Actor {
	return github.Actor{Login: "coderabbitai", DatabaseID: 136622811, IsBot: true}
}

func thread(a github.Actor, id, review int64, sha string, line int, body string) github.Thread {
	return github.Thread{NodeID: "T", Path: "x.go", Line: line, Comments: []github.ReviewComment{{DatabaseID: id, Author: a, ReviewDatabaseID: review, OriginalCommitSHA: sha, Body: body}}}
}

func TestCodeRabbit_signalTransitionsStalenessAndDrift(t *testing.T) {
	c := builtin(t, "coderabbit")
	o := obsAt("sha2")
	if v := c.Observe(o, engines.Env{}); v.Signal != loop.SignalNone || !v.Installed {
		t.Fatalf("%+v", v)
	}
	o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: "CodeRabbit", Status: "IN_PROGRESS", StartedAt: t0}}
	if v := c.Observe(o, engines.Env{}); v.Signal != loop.SignalRunning || !v.Installed {
		t.Fatalf("%+v", v)
	}
	o.CheckRuns[0].Status, o.CheckRuns[0].Title = "COMPLETED", "Review completed"
	o.Reviews = []github.Review{
		{DatabaseID: 1, Author: rabbit(), CommitSHA: "sha1", SubmittedAt: t0.Add(-time.Hour), Body: "**Actionable comments posted: 1**"},
		{DatabaseID: 2, Author: github.Actor{Login: "coderabbitai[bot]", IsBot: true}, CommitSHA: "sha2", SubmittedAt: t0, Body: "**Actionable comments posted: 1**"},
	}
	body := "_⚠️ Potential issue_ | _🟠 Major_\n\n**Fix it.**\n\n<!-- cr-comment:v1:abc123 -->"
	o.Threads = []github.Thread{thread(rabbit(), 10, 1, "sha1", 3, body), thread(rabbit(), 20, 2, "sha2", 5, body)}
	v := c.Observe(o, engines.Env{})
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK || v.LatestReviewID != 2 || len(v.Findings) != 2 || !v.VerdictSetProven {
		t.Fatalf("%+v", v)
	}
	if f := v.Findings[0]; f.ReviewID != 1 || f.ReviewSHA != "sha1" || f.Key != "abc123" || f.Category != "⚠️ Potential issue" {
		t.Fatalf("%+v", f)
	}
	o.Threads[1].Line = 50
	if w := c.Observe(o, engines.Env{}); w.Findings[1].ID != v.Findings[1].ID || w.Findings[1].Line != 50 {
		t.Fatal("line drift changed the id")
	}
}

func TestRule_T8_coderabbitRateLimitIsQuotaNotClean(t *testing.T) {
	c := builtin(t, "coderabbit")
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: "CodeRabbit", Status: "COMPLETED", Conclusion: "SUCCESS", Title: "Review rate limited", CompletedAt: t0}}
	if v := c.Observe(o, engines.Env{}); v.Material != loop.MaterialQuota || v.VerdictSetProven || v.Quota == nil || v.Quota.Wait != 0 || !v.Quota.At.Equal(t0) {
		t.Fatalf("%+v", v)
	}
	o.CheckRuns[0].Title = "Review completed"
	o.IssueComments = []github.IssueComment{{DatabaseID: 7, Author: rabbit(), Body: "> [!WARNING]\n> ## Rate limit exceeded", UpdatedAt: t0}}
	if v := c.Observe(o, engines.Env{}); v.Material != loop.MaterialQuota || v.Quota == nil || !strings.Contains(v.Quota.Text, "Rate limit exceeded") {
		t.Fatalf("%+v", v)
	}
}

func TestGemini_doneIsAReviewOnTheHeadSHA(t *testing.T) {
	g := builtin(t, "gemini")
	gem := github.Actor{Login: "gemini-code-assist", IsBot: true}
	o := obsAt("sha2")
	o.Reviews = []github.Review{{DatabaseID: 1, Author: gem, CommitSHA: "sha1", SubmittedAt: t0}}
	if v := g.Observe(o, engines.Env{}); v.Signal != loop.SignalNone {
		t.Fatalf("older review read as done: %s", v.Signal)
	}
	o.Reviews = append(o.Reviews, github.Review{DatabaseID: 2, Author: gem, CommitSHA: "sha2", SubmittedAt: t0.Add(time.Hour)})
	o.Threads = []github.Thread{thread(gem, 30, 2, "sha2", 1, "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nBug.")}
	v := g.Observe(o, engines.Env{})
	if v.Signal != loop.SignalDone || v.SignalID != 2 || v.Material != loop.MaterialOK || v.Findings[0].Severity != loop.SeverityHigh {
		t.Fatalf("%+v", v)
	}
	o.IssueComments = []github.IssueComment{{DatabaseID: 8, Author: gem, Body: "> [!CAUTION]\n> The consumer version of Gemini Code Assist on GitHub has been sunset. All code review activity has officially ceased.", UpdatedAt: t0.Add(2 * time.Hour)}}
	if v := g.Observe(o, engines.Env{}); v.Material != loop.MaterialErrored {
		t.Fatalf("sunset: %+v", v)
	}
}

func TestUnknownFutureFormatIsUnknownSeverityNeverClean(t *testing.T) {
	c := builtin(t, "coderabbit")
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 4, Name: "CodeRabbit", Status: "COMPLETED"}}
	o.Threads = []github.Thread{thread(rabbit(), 10, 1, "sha1", 3, "<<new format v9>> ¿?")}
	v := c.Observe(o, engines.Env{})
	if len(v.Findings) != 1 || v.Findings[0].Severity != loop.SeverityUnknown {
		t.Fatalf("%+v", v.Findings)
	}
}

func TestTrigger(t *testing.T) {
	pr := engines.PRRef{Owner: "o", Repo: "r", Number: 4}
	t.Run("an engine that ignores bots needs a user token", func(t *testing.T) {
		gh := &fakegh.GitHub{}
		_, err := builtin(t, "coderabbit").Trigger(context.Background(), gh, pr)
		if !errors.Is(err, engines.ErrTriggerUnavailable) || len(gh.Calls) != 0 {
			t.Fatalf("%v", err)
		}
		v := builtin(t, "coderabbit").Observe(obsAt("s"), engines.Env{})
		if v.TriggerAvailable || !strings.Contains(v.TriggerNote, "trigger token") {
			t.Fatalf("%+v", v)
		}
		pr := pr
		pr.UserToken = true
		if id, err := builtin(t, "coderabbit").Trigger(context.Background(), gh, pr); err != nil || id == 0 || gh.Calls[0].Body != "@coderabbitai review" {
			t.Fatalf("%d %v", id, err)
		}
	})
	t.Run("an engine that accepts bots posts with the workflow token", func(t *testing.T) {
		gh := &fakegh.GitHub{}
		e, err := New(Definition{Name: "sonar", Author: AuthorDef{ID: 1}, Trigger: "/sonar review", AcceptsBotTrigger: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Trigger(context.Background(), gh, pr); err != nil || gh.Calls[0].Body != "/sonar review" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a failed post is a typed engine error", func(t *testing.T) {
		gh := &fakegh.GitHub{ErrComment: errors.New("x")}
		pr := pr
		pr.UserToken = true
		_, err := builtin(t, "gemini").Trigger(context.Background(), gh, pr)
		var ee *engines.EngineError
		if !errors.As(err, &ee) || ee.Engine != "gemini" {
			t.Fatalf("%v", err)
		}
	})
}

func TestParseDefinitions(t *testing.T) {
	good := `
other: 1
engines:
  - name: sonar
    author: {logins: [sonarbot]}
    check_run: Sonar
    trigger: /sonar
    severity_markers: [{pattern: 'BLOCKER', severity: critical}]
`
	ds, err := ParseDefinitions([]byte(good))
	if err != nil || len(ds) != 1 || ds[0].CheckRun != "Sonar" {
		t.Fatalf("%v %v", ds, err)
	}
	tests := []struct{ name, yaml, want string }{
		{"a check_run_app without check_run names check_run", "engines:\n  - name: a\n    author: {id: 1}\n  - name: b\n    author: {id: 2}\n    check_run_app: x\n", "engines[1].check_run:"},
		{"an unknown field is named", "engines:\n  - name: a\n    author: {id: 1}\n    chek_run: x\n", "engines[0].chek_run: unknown field"},
		{"a bad regex is named", "engines:\n  - name: a\n    author: {id: 1}\n    id_marker: '('\n", "engines[0].id_marker: invalid regular expression"},
		{"a marker without a group is named", "engines:\n  - name: a\n    author: {id: 1}\n    summary_count: 'x'\n", "engines[0].summary_count:"},
		{"a bad severity is named", "engines:\n  - name: a\n    author: {id: 1}\n    severity_markers: [{pattern: x, severity: huge}]\n", "engines[0].severity_markers[0].severity:"},
		{"a missing author is named", "engines:\n  - name: a\n", "engines[0].author:"},
		{"a bad name is named", "engines:\n  - name: A B\n    author: {id: 1}\n", "engines[0].name:"},
		{"a duplicate name is named", "engines:\n  - name: a\n    author: {id: 1}\n  - name: a\n    author: {id: 1}\n", "engines[1].name:"},
		{"broken YAML is an engines error", "engines: [", "engines:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDefinitions([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func FuzzParseFinding(f *testing.F) {
	f.Add("![critical](https://www.gstatic.com/codereviewagent/critical.svg)\n\nx")
	f.Add("_🩺 Stability_ | _🟠 Major_ | _⚡ Quick win_\n\n**T.**\n<!-- cr-comment:v1:00ff -->")
	f.Add("**Actionable comments posted: 99999999999999999999**")
	g, c := builtin(f, "gemini"), builtin(f, "coderabbit")
	f.Fuzz(func(t *testing.T, body string) {
		for _, e := range []*Engine{g, c} {
			if p := e.ParseFinding(body); p.Severity == "" || p.Body != body {
				t.Fatalf("%+v", p)
			}
			if n, ok := e.SummaryCount(body); ok && n < 0 {
				t.Fatal(n)
			}
		}
	})
}

func FuzzParseDefinitions(f *testing.F) {
	f.Add([]byte("engines:\n  - name: a\n    author: {id: 1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ParseDefinitions(data)
		if err != nil {
			return
		}
		for _, d := range ds {
			if _, err := New(d); err != nil {
				t.Fatalf("validated definition rejected: %v", err)
			}
		}
	})
}

// IN2: "not seen on this PR" keeps a declarative engine out of the default
// set, but named explicitly it is attempted: its view stays installed, so
// the loop triggers it (an engine that reviews at PR open has not posted
// yet when the loop starts) and a miss degrades loudly as HUNG.
func TestRule_IN2_unseenDeclarativeEngineLeavesTheDefaultSetButNamedIsAttempted(t *testing.T) {
	g := builtin(t, "gemini")
	o := obsAt("sha1")
	if ok, why := g.Installed(o, engines.Env{}); ok || why == "" {
		t.Fatalf("installed %v (%q), want it out of the default set", ok, why)
	}
	v := g.Observe(o, engines.Env{HasTriggerToken: true})
	if !v.Installed || !v.TriggerAvailable || v.Signal != loop.SignalNone {
		t.Fatalf("%+v, want an installed view ready to trigger", v)
	}
}

// IN7: a declarative engine's findings are its bot's only, unless the
// definition opts in to a user account.
func TestRule_IN7_DeclarativeUserAuthorsOnlyWhenOptedIn(t *testing.T) {
	doc := func(optIn string) []byte {
		return []byte("engines:\n  - name: inhouse\n    author: {logins: [review-service], id: 4242}\n" + optIn)
	}
	user := github.Actor{Login: "review-service", DatabaseID: 4242}
	obs := &github.Observation{HeadSHA: "sha1",
		Threads: []github.Thread{{NodeID: "T", Path: "x.go", Line: 3, Comments: []github.ReviewComment{{DatabaseID: 10, Author: user, Body: "Bug."}}}}}
	for _, tc := range []struct {
		optIn string
		want  int
	}{{"", 0}, {"    allow_user_author: true\n", 1}} {
		ds, err := ParseDefinitions(doc(tc.optIn))
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(ds[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := len(e.Observe(obs, engines.Env{}).Findings); got != tc.want {
			t.Errorf("allow_user_author %q: %d findings by the user account, want %d", strings.TrimSpace(tc.optIn), got, tc.want)
		}
	}
}
