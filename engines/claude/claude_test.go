package claude

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/fakegh"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func TestParse_realSamples(t *testing.T) {
	all := samples.Load(t, "claude")
	t.Run("01 the final tracking comment is finished and substantive", func(t *testing.T) {
		b := samples.Blocks(samples.Get(t, all, "01-").Text)[0]
		if c := ParseComment(b); c.State != StateFinished || !c.Substantive {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("02 both flattened review comments are finished verdicts", func(t *testing.T) {
		bs := samples.Blocks(samples.Get(t, all, "02-").Text)
		if len(bs) != 2 {
			t.Fatalf("%d blocks", len(bs))
		}
		for _, b := range bs {
			if c := ParseComment(b); c.State != StateFinished || !c.Substantive || c.CleanPhrase {
				t.Fatalf("%+v", c)
			}
		}
	})
	t.Run("03 the action's templates: working, finished and error", func(t *testing.T) {
		bs := samples.Blocks(samples.Get(t, all, "03-").Text)
		want := []State{StateWorking, StateFinished}
		for i, w := range want {
			if c := ParseComment(bs[i]); c.State != w {
				t.Errorf("block %d: %+v", i, c)
			}
		}
		text := samples.Get(t, all, "03-").Text
		i := strings.Index(text, "**Claude encountered an error")
		if i < 0 || ParseComment(text[i:]).State != StateErrored {
			t.Fatal("error template not recognised")
		}
	})
	t.Run("04 the plugin's clean wording is noticed but is never a verdict by itself", func(t *testing.T) {
		n := 0
		for _, b := range samples.Blocks(samples.Get(t, all, "04-").Text) {
			if c := ParseComment(b); c.CleanPhrase {
				n++
				if c.State != StateOther {
					t.Errorf("%+v", c)
				}
			}
		}
		if n < 2 {
			t.Fatalf("clean phrase seen %d times", n)
		}
	})
	t.Run("05 the managed check summary count and the documented severity line", func(t *testing.T) {
		s := samples.Get(t, all, "05-")
		bs := samples.Blocks(s.Text)
		if n, ok := ParseManagedSummary(bs[0]); !ok || n != 4 {
			t.Fatalf("count %d %v", n, ok)
		}
		js := regexp.MustCompile(`\{"normal": \d+, "nit": \d+, "pre_existing": \d+\}`).FindString(s.Text)
		sev, ok := ParseSeverityLine("Found 22 candidates\n<!-- bughunter-severity: " + js + " -->")
		if !ok || sev != (Severity{Normal: 2, Nit: 1}) {
			t.Fatalf("%+v %v from %q", sev, ok, js)
		}
		if _, ok := ParseSeverityLine(s.Text); ok {
			t.Fatal("the sample shows no marker line, only its documented shape")
		}
	})
	t.Run("every sample parses without a panic", func(t *testing.T) {
		for _, s := range all {
			_ = ParseComment(s.Text)
			if p := ParseFinding(s.Text); p.Severity == "" {
				t.Errorf("%s: empty severity", s.Name)
			}
		}
	})
}

func claudeActor() github.Actor { return github.Actor{Login: "claude", DatabaseID: BotID, IsBot: true} }

func job(status, conclusion string) github.CheckRun {
	return github.CheckRun{DatabaseID: 5, Name: DefaultJobName, AppSlug: "github-actions", Status: status, Conclusion: conclusion, StartedAt: t0}
}

func obsAt(head string) *github.Observation {
	return &github.Observation{Owner: "o", Repo: "r", Number: 1, HeadSHA: head, Complete: true}
}

var workflow = engines.WorkflowFile{Path: ".github/workflows/claude-code-review.yml", Content: "uses: anthropics/claude-code-action@v1\nprompt: /code-review:code-review --comment"}

func inline(id, review int64, sha string, at time.Time, line int) github.Thread {
	return github.Thread{NodeID: "T", Path: "a.go", Line: line, Comments: []github.ReviewComment{{
		DatabaseID: id, Author: claudeActor(), ReviewDatabaseID: review, OriginalCommitSHA: sha, CreatedAt: at, Body: "Off by one.\n```suggestion\ni < n\n```",
	}}}
}

func TestObserve_signalTransitionsFromNoneToRunningToDone(t *testing.T) {
	c := New(Options{})
	o := obsAt("sha1")
	env := engines.Env{WorkflowFiles: []engines.WorkflowFile{workflow}}
	if v := c.Observe(o, env); v.Signal != loop.SignalNone || v.Material != loop.MaterialPending {
		t.Fatalf("%+v", v)
	}
	o.CheckRuns = []github.CheckRun{job("IN_PROGRESS", "")}
	if v := c.Observe(o, env); v.Signal != loop.SignalRunning || v.VerdictSetProven {
		t.Fatalf("%+v", v)
	}
	o.CheckRuns = []github.CheckRun{job("COMPLETED", "SUCCESS")}
	o.IssueComments = []github.IssueComment{{DatabaseID: 9, Author: claudeActor(), Body: "## Code review\n\nNo issues found. Checked for bugs and CLAUDE.md compliance.", CreatedAt: t0.Add(time.Minute), UpdatedAt: t0.Add(time.Minute)}}
	v := c.Observe(o, env)
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK || !v.VerdictSetProven || !v.Prose || !v.MultiVerdict || !v.WithholdUntilFirstReview {
		t.Fatalf("%+v", v)
	}
	if len(v.Verdicts) != 1 || v.Verdicts[0].SHA != "sha1" || !v.Verdicts[0].Substantive {
		t.Fatalf("verdicts %+v", v.Verdicts)
	}
}

func TestObserve_anyClaudeNamedActionsCheckAndTheConfiguredJobCount(t *testing.T) {
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 1, Name: "review", AppSlug: "github-actions", Status: "IN_PROGRESS"}}
	if v := New(Options{JobName: "review"}).Observe(o, engines.Env{}); v.Signal != loop.SignalRunning {
		t.Fatal("configured job name not matched")
	}
	o.CheckRuns = []github.CheckRun{{DatabaseID: 1, Name: "Claude / review", AppSlug: "github-actions", Status: "IN_PROGRESS"}, {DatabaseID: 2, Name: "build", AppSlug: "github-actions", Status: "COMPLETED"}}
	if v := New(Options{}).Observe(o, engines.Env{}); v.Signal != loop.SignalRunning || v.SignalID != 1 {
		t.Fatalf("%+v", v)
	}
}

func TestObserve_stalenessInputsAcrossTwoRunsAndTwoSHAs(t *testing.T) {
	o := obsAt("sha2")
	o.CheckRuns = []github.CheckRun{job("COMPLETED", "SUCCESS")}
	o.Reviews = []github.Review{
		{DatabaseID: 10, Author: claudeActor(), CommitSHA: "sha1", SubmittedAt: t0.Add(-time.Hour)},
		{DatabaseID: 20, Author: claudeActor(), CommitSHA: "sha2", SubmittedAt: t0.Add(time.Minute)},
	}
	o.Threads = []github.Thread{inline(100, 10, "sha1", t0.Add(-time.Hour), 3), inline(200, 20, "sha2", t0.Add(time.Minute), 4)}
	v := New(Options{}).Observe(o, engines.Env{})
	if v.Material != loop.MaterialOK || v.LatestReviewID != 20 || len(v.Findings) != 2 {
		t.Fatalf("%+v", v)
	}
	if v.Findings[0].ReviewSHA != "sha1" || v.Findings[1].ReviewSHA != "sha2" || v.Findings[1].ID != "claude-200" {
		t.Fatalf("%+v", v.Findings)
	}
}

func TestObserve_lineDriftKeepsTheFindingID(t *testing.T) {
	o := obsAt("sha1")
	o.Threads = []github.Thread{inline(100, 10, "sha1", t0, 3)}
	a := New(Options{}).Observe(o, engines.Env{}).Findings[0]
	o.Threads = []github.Thread{inline(100, 10, "sha1", t0, 30)}
	b := New(Options{}).Observe(o, engines.Env{}).Findings[0]
	if a.ID != b.ID || b.Line != 30 {
		t.Fatalf("%+v %+v", a, b)
	}
}

func TestObserve_traps(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(*github.Observation, *engines.Env)
		material loop.Material
		note     string
	}{
		{"a completed run that posted nothing is SILENT and names the missing --comment", func(o *github.Observation, e *engines.Env) {
			e.WorkflowFiles = []engines.WorkflowFile{{Path: ".github/workflows/claude-code-review.yml", Content: "uses: anthropics/claude-code-action@v1\nprompt: /code-review:code-review"}}
		}, loop.MaterialSilent, "lacks --comment"},
		{"a completed run after Claude already commented is NOOP", func(o *github.Observation, e *engines.Env) {
			o.IssueComments = []github.IssueComment{{DatabaseID: 3, Author: claudeActor(), Body: "## Code review\n\nFound 1 issue", CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-time.Hour)}}
		}, loop.MaterialNoop, "already commented"},
		{"the workflow-validation skip is NOOP", func(o *github.Observation, e *engines.Env) {
			o.CheckRuns[0].Summary = "Action skipped: " + ValidationSkipMarker
		}, loop.MaterialNoop, ValidationSkipMarker},
		{"a PR that edits the Claude workflow is NOOP", func(o *github.Observation, e *engines.Env) {
			e.ChangedFiles = []string{workflow.Path}
		}, loop.MaterialNoop, "edits the Claude workflow"},
		{"a draft PR is DRAFT", func(o *github.Observation, e *engines.Env) { o.IsDraft = true }, loop.MaterialDraft, "draft"},
		{"an error tracking comment is ERRORED", func(o *github.Observation, e *engines.Env) {
			o.IssueComments = []github.IssueComment{{DatabaseID: 3, Author: claudeActor(), Body: "**Claude encountered an error after 1m** —— [View job](u)", CreatedAt: t0.Add(time.Minute), UpdatedAt: t0.Add(time.Minute)}}
		}, loop.MaterialErrored, "error"},
		{"a failed job is ERRORED", func(o *github.Observation, e *engines.Env) { o.CheckRuns[0].Conclusion = "FAILURE" }, loop.MaterialErrored, "failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := obsAt("sha1")
			o.CheckRuns = []github.CheckRun{job("COMPLETED", "SUCCESS")}
			env := engines.Env{WorkflowFiles: []engines.WorkflowFile{workflow}}
			tt.edit(o, &env)
			v := New(Options{}).Observe(o, env)
			if v.Material != tt.material || !strings.Contains(v.MaterialNote, tt.note) || v.VerdictSetProven {
				t.Fatalf("material %s note %q proven %v", v.Material, v.MaterialNote, v.VerdictSetProven)
			}
		})
	}
}

func TestObserve_managedApp(t *testing.T) {
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 8, Name: ManagedCheckName, AppSlug: "claude", Status: "COMPLETED", Conclusion: "NEUTRAL", StartedAt: t0,
		Summary: "Completed in 32m — Code review found 1 potential issue", Text: "Found 3 candidates, confirmed 1.\n<!-- bughunter-severity: {\"normal\":1,\"nit\":0,\"pre_existing\":0} -->"}}
	v := New(Options{}).Observe(o, engines.Env{WorkflowFiles: []engines.WorkflowFile{}})
	if !v.Installed || v.Signal != loop.SignalDone || v.Material != loop.MaterialOK {
		t.Fatalf("%+v", v)
	}
	if v.VerdictSetProven || !strings.Contains(v.MaterialNote, "severity line") {
		t.Fatalf("a counted finding with no inline comment must not prove the set: %+v", v)
	}
	o.Threads = []github.Thread{inline(100, 10, "sha1", t0.Add(time.Minute), 3)}
	v = New(Options{}).Observe(o, engines.Env{})
	if !v.VerdictSetProven || len(v.Verdicts) != 1 || v.Verdicts[0].ReviewID != 8 {
		t.Fatalf("%+v", v)
	}
}

func TestRule_IN2_notInstalledWhenNoWorkflowUsesTheAction(t *testing.T) {
	c := New(Options{})
	env := engines.Env{WorkflowFiles: []engines.WorkflowFile{{Path: ".github/workflows/ci.yml", Content: "uses: actions/checkout@v4"}}}
	v := c.Observe(obsAt("sha1"), env)
	if v.Installed || !strings.Contains(v.NotInstalled, ActionRef) {
		t.Fatalf("%+v", v)
	}
	names, notices := engines.NewRegistry(c).Default(obsAt("sha1"), env)
	if len(names) != 0 || len(notices) != 1 {
		t.Fatalf("%v %v", names, notices)
	}
	if ok, _ := c.Installed(obsAt("sha1"), engines.Env{}); !ok {
		t.Fatal("unknown workflow files must not drop the engine")
	}
}

func TestTrigger(t *testing.T) {
	pr := engines.PRRef{Owner: "o", Repo: "r", Number: 2}
	t.Run("with only GITHUB_TOKEN it is unavailable, posts nothing and the view says why", func(t *testing.T) {
		gh := &fakegh.GitHub{}
		_, err := New(Options{}).Trigger(context.Background(), gh, pr)
		if !errors.Is(err, engines.ErrTriggerUnavailable) || len(gh.Calls) != 0 {
			t.Fatalf("%v %v", err, gh.Calls)
		}
		if v := New(Options{}).Observe(obsAt("s"), engines.Env{}); v.TriggerAvailable || !strings.Contains(v.TriggerNote, "push-triggered") {
			t.Fatalf("%+v", v)
		}
	})
	t.Run("with a user token it posts @claude review once", func(t *testing.T) {
		gh := &fakegh.GitHub{}
		pr := pr
		pr.UserToken = true
		id, err := New(Options{}).Trigger(context.Background(), gh, pr)
		if err != nil || id == 0 || gh.Calls[0].Body != "@claude review once" {
			t.Fatalf("%d %v %+v", id, err, gh.Calls)
		}
	})
	t.Run("a failed post is a typed engine error", func(t *testing.T) {
		gh := &fakegh.GitHub{ErrComment: errors.New("502")}
		pr := pr
		pr.UserToken = true
		_, err := New(Options{}).Trigger(context.Background(), gh, pr)
		var ee *engines.EngineError
		if !errors.As(err, &ee) || ee.Engine != Name {
			t.Fatalf("%v", err)
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add("<!-- bughunter-severity: {\"normal\":1,\"nit\":2,\"pre_existing\":3} -->")
	f.Add("<!-- bughunter-severity: {\"normal\":-1} -->")
	f.Add("🔴 Important\n```suggestion\nx\n```")
	f.Add("**Claude finished @a's task** ---")
	f.Fuzz(func(t *testing.T, body string) {
		if s, ok := ParseSeverityLine(body); ok && s.Total() < 0 {
			t.Fatalf("%+v", s)
		}
		_ = ParseComment(body)
		_, _ = ParseManagedSummary(body)
		if p := ParseFinding(body); p.Severity == "" || p.Body != body {
			t.Fatalf("%+v", p)
		}
	})
}
