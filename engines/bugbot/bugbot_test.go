package bugbot

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/fakegh"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

var t0 = time.Date(2026, 2, 18, 17, 0, 0, 0, time.UTC)

func cursor() github.Actor { return github.Actor{Login: "cursor", DatabaseID: BotID, IsBot: true} }

func TestParseFinding_realInlineSamples(t *testing.T) {
	all := samples.Load(t, "bugbot")
	tests := []struct {
		prefix    string
		title     string
		severity  loop.Severity
		key       string
		locations []string
	}{
		{"01-", "Level sections sort lexicographically instead of numerically", loop.SeverityHigh, "56cd689a-5095-47ab-af94-3d7fd5ebe108", []string{"People Directory 1/ContentView.swift"}},
		{"02-", "Matched geometry source not hidden during transition", loop.SeverityMedium, "2c481bed-6953-4765-a597-eb6af9368e24", []string{"People Directory 1/ContentView.swift"}},
	}
	for _, tt := range tests {
		t.Run("sample "+tt.prefix+" reads title, severity, bug id and locations", func(t *testing.T) {
			body := samples.Blocks(samples.Get(t, all, tt.prefix).Text)[0]
			p := ParseFinding(body)
			if p.Title != tt.title || p.Severity != tt.severity || p.Key != tt.key || !slices.Equal(p.Locations, tt.locations) {
				t.Fatalf("got %+v", p)
			}
			if !strings.HasPrefix(p.Body, "The `groupedPeople`") && !strings.HasPrefix(p.Body, "`PersonCardView`") {
				t.Fatalf("description not extracted: %q", p.Body)
			}
		})
	}
}

func TestParseFinding_crossFileLocations(t *testing.T) {
	body := "### t\n\n**Low Severity**\n\n<!-- LOCATIONS START\na/x.go#L1-L2\nb/y.go#L3-L4\nLOCATIONS END -->"
	p := ParseFinding(body)
	if !slices.Equal(p.Locations, []string{"a/x.go", "b/y.go"}) {
		t.Fatalf("locations %v", p.Locations)
	}
}

func TestParseSummary_realReviewBodies(t *testing.T) {
	all := samples.Load(t, "bugbot")
	blocks := samples.Blocks(samples.Get(t, all, "04-").Text)
	if len(blocks) != 4 {
		t.Fatalf("expected blocks A-D, got %d", len(blocks))
	}
	want := []Summary{{Known: true, Clean: true}, {Known: true, Clean: true}, {Known: true, Count: 1}, {Known: true, Clean: true}}
	for i, b := range blocks {
		if got := ParseSummary(b); got != want[i] {
			t.Errorf("block %c: got %+v, want %+v", 'A'+i, got, want[i])
		}
	}
	if s := ParseSummary("Cursor Bugbot has reviewed your changes and found 4 potential issues."); s.Count != 4 {
		t.Errorf("count 4: %+v", s)
	}
}

func TestParse_prDescriptionSummaryIsNoVerdict(t *testing.T) {
	all := samples.Load(t, "bugbot")
	for _, b := range samples.Blocks(samples.Get(t, all, "05-").Text) {
		if s := ParseSummary(b); s.Known {
			t.Errorf("PR description block read as a review summary: %+v", s)
		}
		if p := ParseFinding(b); p.Severity != loop.SeverityUnknown || p.Key != "" {
			t.Errorf("PR description block read as a finding: %+v", p)
		}
	}
}

// TestParse_everySampleWithoutPanicOrClean reads every block of every
// real sample (and each whole file) as a finding and as a summary. Every
// summary is checked against what the block states: a block reads clean
// only where it says Bugbot found no issues, and never while it announces
// potential issues; a block that is no review summary reads as unknown.
func TestParse_everySampleWithoutPanicOrClean(t *testing.T) {
	clean := Summary{Known: true, Clean: true}
	count := func(n int) Summary { return Summary{Known: true, Count: n} }
	// Per sample prefix: the summary of each block, then of the whole file.
	want := map[string][]Summary{
		"01-": {{}, {}},
		"02-": {{}, {}},
		"04-": {clean, clean, count(1), clean, count(1)},
		"05-": {{}, {}, {}, {}},
		"06-": {{}, {}},
		// A: the check-run progress text is no review summary (S2); B
		// states 2 potential issues; E is the documented "found no
		// issues" wording.
		"08-": {{}, count(2), {}, clean, count(2)},
		"09-": {{}, count(2), count(2)},
		"10-": {count(1), {}, count(1)},
		// A: a stale body; B: found 1 (the total of 2 is S6's, read by
		// Classify); C: the "using default effort" wording, found 1.
		"11-": {{}, count(1), count(1), count(1)},
	}
	all := samples.Load(t, "bugbot")
	for _, s := range all {
		exp, ok := want[s.Name[:3]]
		if !ok {
			t.Errorf("%s: a new sample; state what each of its blocks announces", s.Name)
			continue
		}
		blocks := append(samples.Blocks(s.Text), s.Text)
		if len(blocks) != len(exp) {
			t.Errorf("%s: %d blocks, want %d", s.Name, len(blocks), len(exp))
			continue
		}
		for i, b := range blocks {
			p := ParseFinding(b)
			if p.Severity == "" {
				t.Errorf("%s block %d: empty severity", s.Name, i)
			}
			got := ParseSummary(b)
			if got != exp[i] {
				t.Errorf("%s block %d: summary %+v, want %+v", s.Name, i, got, exp[i])
			}
		}
	}
	if len(all) != len(want) {
		t.Errorf("%d samples, want %d", len(all), len(want))
	}
}

func obsAt(head string) *github.Observation {
	return &github.Observation{Owner: "o", Repo: "r", Number: 1, HeadSHA: head, State: "OPEN", Complete: true}
}

func check(status, conclusion string) github.CheckRun {
	return github.CheckRun{DatabaseID: 77, Name: CheckRunName, AppSlug: "cursor", Status: status, Conclusion: conclusion, StartedAt: t0}
}

func finding(commentID, reviewID int64, sha string, line int) github.Thread {
	return github.Thread{NodeID: "T" + sha, Path: "a.go", Line: line, OriginalLine: line, Comments: []github.ReviewComment{{
		DatabaseID: commentID, Author: cursor(), ReviewDatabaseID: reviewID, CommitSHA: sha, OriginalCommitSHA: sha,
		Body: "### Bug\n\n**High Severity**\n\n<!-- BUGBOT_BUG_ID: k1 -->",
	}}}
}

func TestObserve_signalTransitionsFromNoneToRunningToDone(t *testing.T) {
	b := New()
	o := obsAt("sha1")
	if v := b.Observe(o, engines.Env{}); v.Signal != loop.SignalNone || v.Material != loop.MaterialPending {
		t.Fatalf("no check run: %s %s", v.Signal, v.Material)
	}
	o.CheckRuns = []github.CheckRun{check("QUEUED", "")}
	if v := b.Observe(o, engines.Env{}); v.Signal != loop.SignalRunning {
		t.Fatalf("queued: %s", v.Signal)
	}
	o.CheckRuns = []github.CheckRun{check("IN_PROGRESS", "")}
	if v := b.Observe(o, engines.Env{}); v.Signal != loop.SignalRunning || v.SignalID != 77 || !v.SignalStartedAt.Equal(t0) {
		t.Fatalf("in progress: %+v", v)
	}
	o.CheckRuns = []github.CheckRun{check("COMPLETED", "SUCCESS")}
	// Only a Bugbot review of the head proves the completed run reviewed
	// it (S7; TestObserve_S7_* covers the check without one).
	o.Reviews = []github.Review{{DatabaseID: 10, Author: cursor(), CommitSHA: "sha1", Body: "✅ Bugbot reviewed your changes and found no new issues!", SubmittedAt: t0}}
	v := b.Observe(o, engines.Env{})
	if v.Signal != loop.SignalDone || v.Material != loop.MaterialOK || !v.VerdictSetProven {
		t.Fatalf("completed: %+v", v)
	}
}

func TestObserve_conclusionIsNeverTheVerdict(t *testing.T) {
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{check("COMPLETED", "SUCCESS")}
	o.Reviews = []github.Review{{DatabaseID: 10, Author: cursor(), CommitSHA: "sha1", Body: "Cursor Bugbot has reviewed your changes and found 1 potential issue.", SubmittedAt: t0}}
	o.Threads = []github.Thread{finding(100, 10, "sha1", 5)}
	v := New().Observe(o, engines.Env{})
	if len(v.Findings) != 1 || v.Material != loop.MaterialOK {
		t.Fatalf("a success conclusion hid a finding: %+v", v)
	}
}

func TestObserve_stalenessInputsAcrossTwoReviewsAndTwoSHAs(t *testing.T) {
	o := obsAt("sha2")
	o.CheckRuns = []github.CheckRun{check("COMPLETED", "NEUTRAL")}
	o.Reviews = []github.Review{
		{DatabaseID: 10, Author: cursor(), CommitSHA: "sha1", SubmittedAt: t0, Body: "found 1 potential issue"},
		{DatabaseID: 20, Author: cursor(), CommitSHA: "sha2", SubmittedAt: t0.Add(time.Hour), Body: "found 1 potential issue"},
		{DatabaseID: 30, Author: github.Actor{Login: "alice"}, CommitSHA: "sha2", SubmittedAt: t0.Add(2 * time.Hour)},
	}
	o.Threads = []github.Thread{finding(100, 10, "sha1", 5), finding(200, 20, "sha2", 9)}
	v := New().Observe(o, engines.Env{})
	if v.LatestReviewID != 20 || v.LatestSHA != "sha2" || len(v.Reviews) != 2 {
		t.Fatalf("latest %d@%s reviews %v", v.LatestReviewID, v.LatestSHA, v.Reviews)
	}
	got := map[string]string{}
	for _, f := range v.Findings {
		got[f.ID] = f.ReviewSHA
		if f.Key != "k1" {
			t.Errorf("key %q", f.Key)
		}
	}
	if got["bugbot-100"] != "sha1" || got["bugbot-200"] != "sha2" || len(got) != 2 {
		t.Fatalf("findings %v", got)
	}
	if v.Findings[0].ReviewID != 10 || v.Findings[1].ReviewID != 20 {
		t.Fatalf("review ids %d %d", v.Findings[0].ReviewID, v.Findings[1].ReviewID)
	}
}

func TestObserve_lineDriftKeepsTheFindingID(t *testing.T) {
	o := obsAt("sha1")
	o.Threads = []github.Thread{finding(100, 10, "sha1", 5)}
	before := New().Observe(o, engines.Env{}).Findings[0]
	o.Threads = []github.Thread{finding(100, 10, "sha1", 42)}
	o.Threads[0].IsOutdated = true
	after := New().Observe(o, engines.Env{}).Findings[0]
	if before.ID != after.ID || after.Line != 42 || !after.Outdated {
		t.Fatalf("before %+v after %+v", before, after)
	}
}

func TestObserve_resolvedThreadsAndOtherAuthorsAreNotFindings(t *testing.T) {
	o := obsAt("sha1")
	th := finding(100, 10, "sha1", 5)
	th.IsResolved = true
	other := finding(101, 10, "sha1", 5)
	other.Comments[0].Author = github.Actor{Login: "alice"}
	o.Threads = []github.Thread{th, other}
	if v := New().Observe(o, engines.Env{}); len(v.Findings) != 0 {
		t.Fatalf("findings %+v", v.Findings)
	}
}

func TestObserve_restLoginAlsoMatches(t *testing.T) {
	o := obsAt("sha1")
	th := finding(100, 10, "sha1", 5)
	th.Comments[0].Author = github.Actor{Login: "cursor[bot]", IsBot: true}
	o.Threads = []github.Thread{th}
	if v := New().Observe(o, engines.Env{}); len(v.Findings) != 1 {
		t.Fatal("cursor[bot] not matched")
	}
}

func TestObserve_cancelledCheckIsErroredNotClean(t *testing.T) {
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{check("COMPLETED", "CANCELLED")}
	v := New().Observe(o, engines.Env{})
	if v.Material != loop.MaterialErrored || !strings.Contains(v.MaterialNote, "cancelled") {
		t.Fatalf("%s %q", v.Material, v.MaterialNote)
	}
}

func TestObserve_announcedCountAboveThreadsReadIsNoted(t *testing.T) {
	o := obsAt("sha1")
	o.CheckRuns = []github.CheckRun{check("COMPLETED", "NEUTRAL")}
	o.Reviews = []github.Review{{DatabaseID: 10, Author: cursor(), CommitSHA: "sha1", SubmittedAt: t0, Body: "Cursor Bugbot has reviewed your changes and found 2 potential issues."}}
	o.Threads = []github.Thread{finding(100, 10, "sha1", 5)}
	v := New().Observe(o, engines.Env{})
	if !strings.Contains(v.MaterialNote, "announces 2") {
		t.Fatalf("note %q", v.MaterialNote)
	}
}

func TestObserve_triggerAvailabilityFollowsTheUserToken(t *testing.T) {
	o := obsAt("sha1")
	v := New().Observe(o, engines.Env{})
	if v.TriggerAvailable || !strings.Contains(v.TriggerNote, "automatic review") {
		t.Fatalf("without token: %v %q", v.TriggerAvailable, v.TriggerNote)
	}
	v = New().Observe(o, engines.Env{HasTriggerToken: true})
	if !v.TriggerAvailable || v.TriggerNote != "" {
		t.Fatalf("with token: %v %q", v.TriggerAvailable, v.TriggerNote)
	}
}

func TestTrigger(t *testing.T) {
	pr := engines.PRRef{Owner: "o", Repo: "r", Number: 7}
	t.Run("without a user token it is unavailable and posts nothing", func(t *testing.T) {
		gh := &fakegh.GitHub{}
		_, err := New().Trigger(context.Background(), gh, pr)
		var ee *engines.EngineError
		if !errors.Is(err, engines.ErrTriggerUnavailable) || !errors.As(err, &ee) || ee.Engine != Name {
			t.Fatalf("err %v", err)
		}
		if len(gh.Calls) != 0 {
			t.Fatalf("calls %+v", gh.Calls)
		}
	})
	t.Run("with a user token it posts bugbot run and returns the comment id", func(t *testing.T) {
		gh := &fakegh.GitHub{}
		pr := pr
		pr.UserToken = true
		id, err := New().Trigger(context.Background(), gh, pr)
		if err != nil || id == 0 || len(gh.Calls) != 1 || gh.Calls[0].Body != "bugbot run" || gh.Calls[0].Number != 7 {
			t.Fatalf("id %d err %v calls %+v", id, err, gh.Calls)
		}
	})
	t.Run("a failed post is a typed engine error", func(t *testing.T) {
		boom := errors.New("boom")
		gh := &fakegh.GitHub{ErrComment: boom}
		pr := pr
		pr.UserToken = true
		_, err := New().Trigger(context.Background(), gh, pr)
		var ee *engines.EngineError
		if !errors.As(err, &ee) || ee.Op != "trigger" || !errors.Is(err, boom) {
			t.Fatalf("err %v", err)
		}
	})
}

func FuzzParseFinding(f *testing.F) {
	f.Add("### t\n\n**High Severity**\n\n<!-- DESCRIPTION START -->d<!-- DESCRIPTION END -->\n<!-- BUGBOT_BUG_ID: x -->\n<!-- LOCATIONS START\na#L1-L2\nLOCATIONS END -->")
	f.Add("<!-- LOCATIONS START\n#L\n")
	f.Add("Cursor Bugbot has reviewed your changes and found 99999999999999999999 potential issues.")
	f.Fuzz(func(t *testing.T, body string) {
		p := ParseFinding(body)
		switch p.Severity {
		case loop.SeverityCritical, loop.SeverityHigh, loop.SeverityMedium, loop.SeverityLow, loop.SeverityUnknown:
		default:
			t.Fatalf("severity %q", p.Severity)
		}
		_ = ParseSummary(body)
	})
}
