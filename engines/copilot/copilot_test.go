package copilot

import (
	"context"
	"encoding/json"
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

var t0 = time.Date(2026, 5, 15, 5, 0, 0, 0, time.UTC)

func TestParse_realSamples(t *testing.T) {
	all := samples.Load(t, "copilot")
	t.Run("01 the v2 overview with no findings is read as v2 with zero comments", func(t *testing.T) {
		var rev struct {
			Body     string `json:"body"`
			CommitID string `json:"commit_id"`
			User     struct {
				Login string `json:"login"`
				ID    int64  `json:"id"`
				Type  string `json:"type"`
			} `json:"user"`
		}
		if err := json.Unmarshal([]byte(samples.Get(t, all, "01-").Text), &rev); err != nil {
			t.Fatal(err)
		}
		o := ParseOverview(rev.Body)
		if o.Kind != KindV2 || o.Comments != 0 || o.LowConfidence != 0 {
			t.Fatalf("%+v", o)
		}
		if !Author.Match(github.Actor{Login: rev.User.Login, DatabaseID: rev.User.ID, IsBot: rev.User.Type == "Bot"}) {
			t.Fatal("REST reviewer identity not matched")
		}
	})
	t.Run("03 an inline comment keeps its suggestion block in the body", func(t *testing.T) {
		var c struct {
			Body string `json:"body"`
			User struct {
				Login string `json:"login"`
				ID    int64  `json:"id"`
				Type  string `json:"type"`
			} `json:"user"`
		}
		if err := json.Unmarshal([]byte(samples.Get(t, all, "03-").Text), &c); err != nil {
			t.Fatal(err)
		}
		p := ParseComment(c.Body)
		sug := engines.Suggestions(p.Body)
		if len(sug) != 1 || !strings.Contains(sug[0], "this.BASE_GLYPH_SIZE") || p.Severity != loop.SeverityUnknown {
			t.Fatalf("%+v %q", p, sug)
		}
		if !strings.HasPrefix(p.Title, "The glyph size calculation") {
			t.Fatalf("title %q", p.Title)
		}
		if !Author.Match(github.Actor{Login: c.User.Login, DatabaseID: c.User.ID, IsBot: c.User.Type == "Bot"}) || !Author.Match(github.Actor{Login: "Copilot", IsBot: true}) {
			t.Fatal("comment identity not matched")
		}
	})
	t.Run("04 the classic overview announces five comments", func(t *testing.T) {
		b := samples.Blocks(samples.Get(t, all, "04-").Text)
		o := ParseOverview(b[len(b)-1])
		if o.Kind != KindClassic || o.Comments != 5 {
			t.Fatalf("%+v", o)
		}
	})
	t.Run("05 suppressed low-confidence findings are counted, in both reviews", func(t *testing.T) {
		for i, b := range samples.Blocks(samples.Get(t, all, "05-").Text) {
			o := ParseOverview(b)
			if o.LowConfidence != 10 || o.Kind != KindClassic {
				t.Errorf("block %d: %+v", i, o)
			}
		}
	})
	t.Run("06 public inline bodies have no severity and keep suggestions", func(t *testing.T) {
		blocks := samples.Blocks(samples.Get(t, all, "06-").Text)
		if len(blocks) != 3 {
			t.Fatalf("%d blocks", len(blocks))
		}
		for i, b := range blocks {
			p := ParseComment(b)
			if p.Severity != loop.SeverityUnknown || p.Title == "" {
				t.Errorf("block %d: %+v", i, p)
			}
			if got := len(engines.Suggestions(p.Body)); i < 2 && got != 1 {
				t.Errorf("block %d: %d suggestions", i, got)
			}
		}
	})
	t.Run("07 error bodies are errors and the partial-suite warning is a note", func(t *testing.T) {
		b := samples.Blocks(samples.Get(t, all, "07-").Text)
		if ParseOverview(b[0]).Kind != KindError || ParseOverview(b[1]).Kind != KindError {
			t.Fatalf("errors not recognised: %+v %+v", ParseOverview(b[0]), ParseOverview(b[1]))
		}
		if o := ParseOverview(b[2]); o.Kind == KindError || o.Note == "" {
			t.Fatalf("partial: %+v", o)
		}
	})
	t.Run("every sample parses without a panic", func(t *testing.T) {
		for _, s := range all {
			_ = ParseOverview(s.Text)
			_ = ParseComment(s.Text)
		}
	})
}

func reviewer() github.Actor {
	return github.Actor{Login: ReviewerLogin, DatabaseID: BotID, IsBot: true}
}

func obsAt(head string) *github.Observation {
	return &github.Observation{Owner: "o", Repo: "r", Number: 1, HeadSHA: head, Complete: true}
}

func thread(commentID, reviewID int64, sha string, line int) github.Thread {
	return github.Thread{NodeID: "T", Path: "a.go", Line: line, Comments: []github.ReviewComment{{
		DatabaseID: commentID, Author: github.Actor{Login: "Copilot", IsBot: true}, ReviewDatabaseID: reviewID, OriginalCommitSHA: sha,
		Body: "Magic number.\n```suggestion\nconst x = 1\n```",
	}}}
}

func TestObserve_signalTransitionsFromNoneToRunningToDone(t *testing.T) {
	c := New()
	o := obsAt("sha1")
	if v := c.Observe(o, engines.Env{}); v.Signal != loop.SignalNone {
		t.Fatalf("none: %s", v.Signal)
	}
	o.RequestedReviewers = []string{ReviewerLogin}
	if v := c.Observe(o, engines.Env{}); v.Signal != loop.SignalRunning {
		t.Fatalf("requested: %s", v.Signal)
	}
	o.RequestedReviewers = nil
	o.CheckRuns = []github.CheckRun{{DatabaseID: 9, Name: CheckRunName, Status: "IN_PROGRESS", StartedAt: t0}}
	if v := c.Observe(o, engines.Env{}); v.Signal != loop.SignalRunning || v.SignalID != 9 {
		t.Fatalf("check in progress: %+v", v)
	}
	o.CheckRuns[0].Status, o.CheckRuns[0].Conclusion = "COMPLETED", "SUCCESS"
	o.Reviews = []github.Review{{DatabaseID: 50, Author: reviewer(), CommitSHA: "sha1", SubmittedAt: t0, Body: "Copilot reviewed 1 out of 1 changed files in this pull request and generated no comments."}}
	v := c.Observe(o, engines.Env{})
	if v.Signal != loop.SignalDone || v.SignalID != 50 || v.Material != loop.MaterialOK || !v.VerdictSetProven {
		t.Fatalf("done: %+v", v)
	}
}

func TestObserve_aReviewOnAnOlderSHAIsNotDone(t *testing.T) {
	o := obsAt("sha2")
	o.Reviews = []github.Review{{DatabaseID: 50, Author: reviewer(), CommitSHA: "sha1", SubmittedAt: t0}}
	if v := New().Observe(o, engines.Env{}); v.Signal != loop.SignalNone || v.LatestReviewID != 50 {
		t.Fatalf("%+v", v)
	}
}

func TestObserve_stalenessInputsAcrossTwoReviewsAndTwoSHAs(t *testing.T) {
	o := obsAt("sha2")
	o.Reviews = []github.Review{
		{DatabaseID: 50, Author: reviewer(), CommitSHA: "sha1", SubmittedAt: t0},
		{DatabaseID: 60, Author: github.Actor{Login: "copilot-pull-request-reviewer[bot]", IsBot: true}, CommitSHA: "sha2", SubmittedAt: t0.Add(time.Hour)},
	}
	o.Threads = []github.Thread{thread(500, 50, "sha1", 3), thread(600, 60, "sha2", 4)}
	v := New().Observe(o, engines.Env{})
	if v.LatestReviewID != 60 || v.LatestSHA != "sha2" || len(v.Findings) != 2 {
		t.Fatalf("%+v", v)
	}
	if f := v.Findings[0]; f.ID != "copilot-500" || f.ReviewID != 50 || f.ReviewSHA != "sha1" {
		t.Fatalf("%+v", f)
	}
	if f := v.Findings[1]; f.ID != "copilot-600" || f.ReviewID != 60 || f.ReviewSHA != "sha2" || !strings.Contains(f.Body, "```suggestion") {
		t.Fatalf("%+v", f)
	}
}

func TestObserve_lineDriftKeepsTheFindingID(t *testing.T) {
	o := obsAt("sha1")
	o.Threads = []github.Thread{thread(500, 50, "sha1", 3)}
	a := New().Observe(o, engines.Env{}).Findings[0]
	o.Threads = []github.Thread{thread(500, 50, "sha1", 0)}
	o.Threads[0].OriginalLine, o.Threads[0].IsOutdated = 3, true
	b := New().Observe(o, engines.Env{}).Findings[0]
	if a.ID != b.ID || b.Line != 0 || b.OriginalLine != 3 {
		t.Fatalf("%+v %+v", a, b)
	}
}

func TestObserve_lowConfidenceFindingsAreCountedNotThreads(t *testing.T) {
	o := obsAt("sha1")
	o.Reviews = []github.Review{{DatabaseID: 50, Author: reviewer(), CommitSHA: "sha1", SubmittedAt: t0,
		Body: "## Pull request overview\n\nCopilot reviewed 3 out of 4 changed files in this pull request and generated 0 comments.\n\n<details>\n<summary>Comments suppressed due to low confidence (2)</summary>\n\n**a.go:1**\n* x\n</details>"}}
	v := New().Observe(o, engines.Env{})
	if v.LowConfidence != 2 || len(v.Findings) != 0 {
		t.Fatalf("%d %d", v.LowConfidence, len(v.Findings))
	}
}

func TestObserve_errorBodiesAreErroredNotClean(t *testing.T) {
	for _, body := range []string{
		"Copilot encountered an error and was unable to review this pull request. You can try again by re-requesting a review.",
		"Copilot wasn't able to review any files in this pull request.",
	} {
		o := obsAt("sha1")
		o.Reviews = []github.Review{{DatabaseID: 50, Author: reviewer(), CommitSHA: "sha1", SubmittedAt: t0, Body: body}}
		if v := New().Observe(o, engines.Env{}); v.Signal != loop.SignalDone || v.Material != loop.MaterialErrored {
			t.Errorf("%q: %s %s", body, v.Signal, v.Material)
		}
	}
}

func TestObserve_failedCheckWithoutAReviewIsErrored(t *testing.T) {
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 9, Name: CheckRunName, Status: "COMPLETED", Conclusion: "FAILURE"}}
	if v := New().Observe(o, engines.Env{}); v.Material != loop.MaterialErrored {
		t.Fatalf("%+v", v)
	}
}

type statusErr = github.APIError

func TestTrigger(t *testing.T) {
	pr := engines.PRRef{Owner: "o", Repo: "r", Number: 3}
	tests := []struct {
		name        string
		errCopilot  error
		errReviewer error
		wantCalls   []string
		wantErr     bool
	}{
		{"the dedicated route is used first", nil, nil, []string{"RequestCopilotReview"}, false},
		{"an already pending review (409) is not an error", &statusErr{Status: 409}, nil, []string{"RequestCopilotReview"}, false},
		{"a missing route (404) falls back to requested reviewers", &statusErr{Status: 404}, nil, []string{"RequestCopilotReview", "RequestReviewers"}, false},
		{"a refused route (422) falls back to requested reviewers", &statusErr{Status: 422}, nil, []string{"RequestCopilotReview", "RequestReviewers"}, false},
		{"a failing fallback is a typed error", &statusErr{Status: 404}, &statusErr{Status: 422, Message: "not a collaborator"}, []string{"RequestCopilotReview", "RequestReviewers"}, true},
		{"a server error is a typed error without fallback", &statusErr{Status: 500}, nil, []string{"RequestCopilotReview"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := &fakegh.GitHub{ErrCopilot: tt.errCopilot, ErrReviewers: tt.errReviewer}
			id, err := New().Trigger(context.Background(), gh, pr)
			var ee *engines.EngineError
			if tt.wantErr != (err != nil) || (err != nil && (!errors.As(err, &ee) || ee.Engine != Name)) || id != 0 {
				t.Fatalf("id %d err %v", id, err)
			}
			var got []string
			for _, c := range gh.Calls {
				got = append(got, c.Method)
				if c.Method == "RequestReviewers" && (len(c.Logins) != 1 || c.Logins[0] != ReviewerRESTLogin) {
					t.Errorf("logins %v", c.Logins)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.wantCalls, ",") {
				t.Fatalf("calls %v", got)
			}
		})
	}
}

func FuzzParseOverview(f *testing.F) {
	f.Add("<!-- ccr-overview-v2 -->\n**Findings:** 3")
	f.Add("Comments suppressed due to low confidence (99999999999999999999)")
	f.Add("## Pull request overview\ngenerated 5 comments")
	f.Fuzz(func(t *testing.T, body string) {
		o := ParseOverview(body)
		if o.Comments < -1 || o.LowConfidence < 0 {
			t.Fatalf("%+v", o)
		}
		p := ParseComment(body)
		if p.Severity == "" || p.Body != body {
			t.Fatalf("%+v", p)
		}
	})
}

// Copilot's check run is matched by its workflow when GitHub names it,
// whatever the job's name, and a repository's own job named "Agent" is not
// Copilot's; without a workflow path, the names decide.
func TestIsCopilotCheck_ByWorkflowWhenKnownElseByName(t *testing.T) {
	for _, tc := range []struct {
		name, app, path string
		want            bool
	}{
		{"copilot-pull-request-reviewer", "github-actions", "dynamic/copilot-pull-request-reviewer/copilot-pull-request-reviewer", true},
		{"Agent", "github-actions", "dynamic/copilot-pull-request-reviewer", true},
		{"Agent", "github-actions", ".github/workflows/agents.yml", false},
		{CheckRunName, "github-actions", ".github/workflows/review.yml", false},
		{"Agent", "github-actions", "dynamic/copilot-pull-request-reviewer-fork/x", false},
		{"Agent", "someapp", "dynamic/copilot-pull-request-reviewer/x", false},
		{"Agent", "github-actions", "", true},
		{"Agent", "someapp", "", false},
		{CheckRunName, "", "", true},
		{"build", "github-actions", "", false},
	} {
		cr := github.CheckRun{Name: tc.name, AppSlug: tc.app, WorkflowPath: tc.path}
		if got := isCopilotCheck(cr); got != tc.want {
			t.Errorf("check %q of %q in workflow %q: Copilot's = %v, want %v", tc.name, tc.app, tc.path, got, tc.want)
		}
	}
}

func TestObserve_aFailedJobOfTheRepositorysOwnWorkflowIsNotCopilots(t *testing.T) {
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{{DatabaseID: 9, Name: JobCheckName, AppSlug: "github-actions", WorkflowPath: ".github/workflows/agents.yml", Status: "COMPLETED", Conclusion: "FAILURE"}}
	if v := New().Observe(o, engines.Env{}); v.Material == loop.MaterialErrored || v.Signal == loop.SignalDone {
		t.Fatalf("the repository's own job made Copilot %s/%s: %+v", v.Signal, v.Material, v)
	}
}
