package observe

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// The reads of the PR's history and tree against the fake GitHub over
// HTTP: what they return, and what each costs in requests.

const readToken = "ghs_observe"

var quiet = slog.New(slog.DiscardHandler)

// fakePR is a fake with repository octo/app and PR #1 from branch feature
// (calc.go on it), and a client against it.
func fakePR(t *testing.T) (*ghfake.Fake, *github.Client) {
	t.Helper()
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	f.AddToken(readToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	if err := f.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetProtected("octo", "app", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Files: map[string]string{"calc.go": "a\nb\nc\n"}}); err != nil {
		t.Fatal(err)
	}
	c, err := github.New(github.Options{Token: readToken, APIURL: f.URL(), GraphQLURL: f.GraphQLURL(), HTTPClient: http.DefaultClient,
		Timeout: 30 * time.Second, MaxRetries: 1, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func push(t *testing.T, f *ghfake.Fake, files map[string]string, msg string) string {
	t.Helper()
	sha, err := f.PushCommit("octo", "app", "feature", files, msg)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// compares counts the compare requests the fake served.
func compares(f *ghfake.Fake) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Method == "GET" && strings.HasPrefix(r.Path, "/repos/octo/app/compare/") {
			n++
		}
	}
	return n
}

// afterLoopFix is the state after the loop pushed fix commit fix (made on
// parent, rewriting calc.go line 2) and saw it as the head.
func afterLoopFix(parent, fix string) state.State {
	st := loop.RecordFixCommit(state.State{}, fix, parent,
		[]state.ChangedFile{{Path: "calc.go", Ranges: []state.LineRange{{Start: 2, End: 2}}}}, nil, time.Unix(0, 0))
	st = loop.RecordPendingPush(st, fix)
	st = loop.RecordPush(st, fix)
	st.LastObservedSHA = fix
	return st
}

func TestRule_CV4_AHandMadeUndoOfTheLoopsFixIsReadWithOneMoreCompare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		later        map[string]string
		wantUndone   bool
		wantCompares int
	}{
		{"calc.go put back as before the fix", map[string]string{"calc.go": "a\nb\nc\n"}, true, 2},
		{"calc.go changed again, not back", map[string]string{"calc.go": "a\nB2\nc\n"}, false, 2},
		{"only another file", map[string]string{"README.md": "hi\n"}, false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, gh := fakePR(t)
			parent := f.HeadSHA("octo", "app", 1)
			fix := push(t, f, map[string]string{"calc.go": "a\nB\nc\n"}, "review-loop: fix")
			head := push(t, f, c.later, "a person's commit")
			f.ResetRequests()
			p := PushHistory(context.Background(), gh, "octo", "app", afterLoopFix(parent, fix), head, quiet)
			if p == nil || p.Base != fix || p.Head != head || p.Status != "ahead" || len(p.Commits) != 1 || p.Commits[0].SHA != head {
				t.Fatalf("push history %+v, want the one commit since %s", p, fix)
			}
			if got := slices.Equal(p.Undone, []string{fix}); got != c.wantUndone {
				t.Errorf("undone %v, want the fix commit undone: %v", p.Undone, c.wantUndone)
			}
			if n := compares(f); n != c.wantCompares {
				t.Errorf("%d compare requests, want %d", n, c.wantCompares)
			}
		})
	}
}

func TestRule_CV4_NoPushSinceTheLastLookCostsNoRequest(t *testing.T) {
	t.Parallel()
	f, gh := fakePR(t)
	parent := f.HeadSHA("octo", "app", 1)
	fix := push(t, f, map[string]string{"calc.go": "a\nB\nc\n"}, "review-loop: fix")
	f.ResetRequests()
	if p := PushHistory(context.Background(), gh, "octo", "app", afterLoopFix(parent, fix), fix, quiet); p != nil {
		t.Fatalf("the head is the loop's own push: %+v, want nothing read", p)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d requests, want none", n)
	}
}

func TestRule_CV6_TheDiffCharactersAreNotAskedOverGitHubsDiffLimits(t *testing.T) {
	t.Parallel()
	f, gh := fakePR(t)
	g := &git.Runner{Dir: t.TempDir()} // no checkout: GitHub is asked
	obs := &github.Observation{HeadSHA: f.HeadSHA("octo", "app", 1), ChangedFiles: 1, Additions: 3}
	f.ResetRequests()
	if n := ChangedChars(context.Background(), gh, g, "octo", "app", 1, obs, quiet); n <= 0 {
		t.Fatalf("counted %d characters, want the diff's", n)
	}
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d requests within GitHub's limits, want the one diff", n)
	}
	for _, over := range []*github.Observation{
		{HeadSHA: obs.HeadSHA, ChangedFiles: githubDiffMaxFiles + 1, Additions: 3},
		{HeadSHA: obs.HeadSHA, ChangedFiles: 1, Additions: githubDiffMaxLines, Deletions: 1},
	} {
		f.ResetRequests()
		if n := ChangedChars(context.Background(), gh, g, "octo", "app", 1, over, quiet); n != 0 {
			t.Errorf("%d files, %d lines: counted %d, want unknown (0)", over.ChangedFiles, over.Additions+over.Deletions, n)
		}
		if n := len(f.Requests()); n != 0 {
			t.Errorf("%d files, %d lines: %d requests for a diff GitHub refuses, want none", over.ChangedFiles, over.Additions+over.Deletions, n)
		}
	}
}

func TestRule_CV5_OnlyAnEngineFixersRunningCheckCounts(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	runs := []github.CheckRun{
		{Name: "Cursor Bugbot Autofix", AppSlug: "cursor", Status: "IN_PROGRESS", StartedAt: started},
		{Name: "Cursor Bugbot", AppSlug: "cursor", Status: "IN_PROGRESS"},
		{Name: "autofix", AppSlug: "github-actions", Status: "IN_PROGRESS"},
	}
	got := FixersRunning(runs)
	if len(got) != 1 || got[0].Fixer != "Bugbot Autofix" || !got[0].StartedAt.Equal(started) {
		t.Fatalf("fixers running %v, want Bugbot Autofix since %v", got, started)
	}
	runs[0].Status = "COMPLETED"
	if got := FixersRunning(runs); len(got) != 0 {
		t.Errorf("a completed fixer's check counts as running: %v", got)
	}
}

func TestRule_CV6_GeneratedPatternsAreTheOnesMarkedLinguistGenerated(t *testing.T) {
	t.Parallel()
	attrs := strings.Join([]string{
		"# comment linguist-generated",
		"dist/** linguist-generated",
		"*.pb.go linguist-generated=true -diff",
		"vendor/** -linguist-generated",
		"gen/** linguist-generated=false",
		"docs/** linguist-documentation",
		"lonely",
		"",
	}, "\n")
	if got, want := GeneratedPatterns(attrs), []string{"dist/**", "*.pb.go"}; !slices.Equal(got, want) {
		t.Fatalf("patterns %q, want %q", got, want)
	}
	if got := Generated(""); got != nil {
		t.Errorf("no checkout: %q, want none", got)
	}
	if got := Generated(t.TempDir()); got != nil {
		t.Errorf("no .gitattributes: %q, want none", got)
	}
}

func FuzzGeneratedPatterns(f *testing.F) {
	f.Add("dist/** linguist-generated\n*.pb.go linguist-generated=true\n")
	f.Add("# x linguist-generated\n\tvendor/**   -linguist-generated \r\n")
	f.Fuzz(func(t *testing.T, attrs string) {
		for _, p := range GeneratedPatterns(attrs) {
			if p == "" || strings.HasPrefix(p, "#") || strings.ContainsAny(p, " \t\n") {
				t.Fatalf("pattern %q from %q", p, attrs)
			}
		}
	})
}

// CV7: when the commits pushed since the last look cannot be read, the
// reading says so, naming what failed, instead of saying nothing (which
// the loop used to take as "nothing to see" and fix anyway).
func TestRule_CV7_AFailedCompareIsReportedUnread(t *testing.T) {
	t.Parallel()
	f, gh := fakePR(t)
	parent := f.HeadSHA("octo", "app", 1)
	fix := push(t, f, map[string]string{"calc.go": "a\nB\nc\n"}, "review-loop: fix")
	head := push(t, f, map[string]string{"README.md": "hi\n"}, "a person's commit")
	f.Inject(ghfake.Fault{Match: "GET /repos/octo/app/compare/" + fix + "..." + head, Status: 502, Message: "Bad Gateway"})
	p := PushHistory(context.Background(), gh, "octo", "app", afterLoopFix(parent, fix), head, quiet)
	if p == nil || p.Head != head || p.Base != fix || !strings.Contains(p.Unread, "Bad Gateway") {
		t.Fatalf("push history %+v, want it unread for %s with the compare's error", p, head)
	}
}
