package observe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/state"
)

// reads is a fake GitHub over HTTP with one repository and one PR, and a
// client of it under review-loop's own identity (github-actions).
type reads struct {
	t    *testing.T
	now  time.Time
	fake *ghfake.Fake
	gh   *github.Client
}

// ourWorkflow is the workflow file of review-loop's runs in these tests.
const ourWorkflow = ".github/workflows/review-loop.yml"

func newReads(t *testing.T) *reads {
	t.Helper()
	r := &reads{t: t, now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	r.fake = ghfake.New(ghfake.Options{Now: func() time.Time { return r.now }})
	t.Cleanup(r.fake.Close)
	r.fake.AddToken("ghs_action", ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	r.fake.AddUser("maintainer", 1001, false)
	r.fake.AddUser("mallory", 666, false)
	if err := r.fake.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.fake.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Files: map[string]string{"a.txt": "a\n"}, Author: "maintainer"}); err != nil {
		t.Fatal(err)
	}
	gh, err := github.New(github.Options{Token: "ghs_action", APIURL: r.fake.URL(), GraphQLURL: r.fake.GraphQLURL(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	r.gh = gh
	return r
}

// comment posts body on PR #1 as login, a minute after the last one.
func (r *reads) comment(login, body string) int64 {
	r.t.Helper()
	id, err := r.fake.AddIssueComment("octo", "app", 1, login, "NONE", body)
	if err != nil {
		r.t.Fatal(err)
	}
	r.now = r.now.Add(time.Minute)
	return id
}

// stateComment posts st as login; proved names the comment's own id as
// its owner, the proof review-loop writes once it knows the id (SC4).
func (r *reads) stateComment(login string, st state.State, proved bool, visible string) int64 {
	r.t.Helper()
	id := r.comment(login, "status")
	if proved {
		st.Owner = &state.Owner{RunID: 1, Workflow: ourWorkflow, CommentID: id}
	}
	body, err := state.Encode(visible, st)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.fake.EditIssueComment(id, body); err != nil {
		r.t.Fatal(err)
	}
	return id
}

func (r *reads) observe() *github.Observation {
	r.t.Helper()
	obs, err := r.gh.Observe(context.Background(), "octo", "app", 1)
	if err != nil {
		r.t.Fatal(err)
	}
	return obs
}

// state observes PR #1 and finds its state; the fake's requests are
// then those of State alone.
func (r *reads) state(origin Origin) Loaded {
	r.t.Helper()
	obs := r.observe()
	r.fake.ResetRequests()
	ld, err := State(context.Background(), r.gh, "octo", "app", 1, obs, origin)
	if err != nil {
		r.t.Fatal(err)
	}
	return ld
}

func withStatus(s state.Status) state.State {
	st := state.New()
	st.Status, st.Engines = s, []string{"copilot"}
	return st
}

// runReads counts the reads of single workflow runs.
func runReads(f *ghfake.Fake) int {
	n := 0
	for _, q := range f.Requests() {
		if q.Method == "GET" && strings.Contains(q.Path, "/actions/runs/") {
			n++
		}
	}
	return n
}

// SC4: the state is found by marker AND author: the earliest state comment
// by review-loop's own identity is the state; one by anyone else is
// ignored with a warning, and a later one of our own is reported on the
// status comment too. Both come back as values, nothing is written.
func TestRule_SC4_TheStateIsTheEarliestOfOurOwnAndTheRestAreReported(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	planted := r.stateComment("mallory", withStatus(state.StatusStopped), true, "stopped")
	ours := r.stateComment("github-actions", withStatus(state.StatusActive), true, "active")
	later := r.stateComment("github-actions", withStatus(state.StatusStopped), true, "stopped")
	ld := r.state(Origin{Workflow: ourWorkflow, RunID: 77})
	if ld.Comment == nil || ld.Comment.DatabaseID != ours || ld.State.Status != state.StatusActive || ld.Lost != "" {
		t.Fatalf("adopted comment %v status %q lost %q, want comment %d active", ld.Comment, ld.State.Status, ld.Lost, ours)
	}
	if len(ld.Warnings) != 2 || !strings.Contains(ld.Warnings[0], fmt.Sprintf("@mallory (comment %d)", planted)) ||
		!strings.Contains(ld.Warnings[1], fmt.Sprintf("comment %d also carries a review-loop state; the earliest one, comment %d", later, ours)) {
		t.Errorf("warnings %q, want mallory's comment ignored, then the later one of our own", ld.Warnings)
	}
	if len(ld.Notices) != 1 || ld.Notices[0] != ld.Warnings[1] {
		t.Errorf("notices %q, want only the later state comment of our own (SC4)", ld.Notices)
	}
	if n := len(r.fake.Requests()); n != 0 {
		t.Errorf("%d requests, want none: the proof is in the state", n)
	}
}

// SC4: a state comment under our identity is adopted only on proof that
// review-loop's workflow wrote it: one read of the run it links, which
// must be a run of our workflow going on when it was written. Outside a
// workflow run there is no other workflow to tell apart.
func TestRule_SC4_AStateIsAdoptedOnlyOnProofOfItsRun(t *testing.T) {
	t.Parallel()
	origin := Origin{Workflow: ourWorkflow, RunID: 77}
	link := func(run int64) string { return fmt.Sprintf("[run](https://github.com/octo/app/actions/runs/%d)", run) }

	t.Run("no run named", func(t *testing.T) {
		t.Parallel()
		r := newReads(t)
		id := r.stateComment("github-actions", withStatus(state.StatusStopped), false, "stopped")
		ld := r.state(origin)
		if ld.Comment != nil || ld.State.Status != "" {
			t.Fatalf("adopted comment %d (status %q) that names no run", id, ld.State.Status)
		}
		if len(ld.Notices) != 1 || !strings.Contains(ld.Notices[0], "it names no workflow run of review-loop") {
			t.Errorf("notices %q, want why comment %d is not adopted", ld.Notices, id)
		}
		if got := r.state(Origin{}); got.Comment == nil || got.Comment.DatabaseID != id {
			t.Errorf("outside a workflow run the comment was not adopted: %+v", got.Comment)
		}
	})
	t.Run("a run of another workflow", func(t *testing.T) {
		t.Parallel()
		r := newReads(t)
		run, err := r.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Path: ".github/workflows/echo.yml", Event: "issue_comment", Status: "in_progress", HeadSHA: r.fake.HeadSHA("octo", "app", 1)})
		if err != nil {
			t.Fatal(err)
		}
		r.stateComment("github-actions", withStatus(state.StatusStopped), false, "stopped\n\n"+link(run))
		ld := r.state(origin)
		if ld.Comment != nil || len(ld.Notices) != 1 || !strings.Contains(ld.Notices[0], "not of review-loop's workflow") {
			t.Fatalf("comment %+v notices %q, want it refused as another workflow's", ld.Comment, ld.Notices)
		}
	})
	t.Run("a run of ours going on", func(t *testing.T) {
		t.Parallel()
		r := newReads(t)
		run, err := r.fake.SetWorkflowRun("octo", "app", ghfake.WorkflowRunOptions{Path: ourWorkflow, Event: "workflow_dispatch", Status: "in_progress", HeadSHA: r.fake.HeadSHA("octo", "app", 1)})
		if err != nil {
			t.Fatal(err)
		}
		id := r.stateComment("github-actions", withStatus(state.StatusActive), false, "active\n\n"+link(run))
		ld := r.state(origin)
		if ld.Comment == nil || ld.Comment.DatabaseID != id || ld.State.Owner == nil || ld.State.Owner.CommentID != id || ld.State.Owner.RunID != run {
			t.Fatalf("comment %+v owner %+v, want comment %d adopted with its proof", ld.Comment, ld.State.Owner, id)
		}
		if n := runReads(r.fake); n != 1 {
			t.Errorf("%d reads of workflow runs, want 1", n)
		}
	})
}

// SC3: our own state comment whose state cannot be read is the status
// comment, and the state is lost; so is a state that is not among the
// comments read when not every comment could be read.
func TestRule_SC3_AnUnreadableOrUnreadStateIsLost(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	body, err := state.Encode("status", withStatus(state.StatusStopped))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(body, state.Marker)
	id := r.comment("github-actions", body[:i]+state.Marker+" v1\n{\"status\": \"stopp\n-->")
	ld := r.state(Origin{Workflow: ourWorkflow, RunID: 77})
	if ld.Comment == nil || ld.Comment.DatabaseID != id || !strings.Contains(ld.Lost, fmt.Sprintf("the state in status comment %d cannot be read", id)) {
		t.Fatalf("comment %+v lost %q, want comment %d with its state lost", ld.Comment, ld.Lost, id)
	}
	if ld.State.Status != "" {
		t.Errorf("status %q from an unreadable state", ld.State.Status)
	}

	obs := r.observe()
	obs.IssueComments, obs.IssueCommentsComplete = nil, false
	ld, err = State(context.Background(), r.gh, "octo", "app", 1, obs, Origin{})
	if err != nil {
		t.Fatal(err)
	}
	if ld.Comment != nil || !strings.Contains(ld.Lost, "not every comment of PR #1 could be read (0 read)") {
		t.Errorf("comment %+v lost %q, want the state lost among unread comments", ld.Comment, ld.Lost)
	}
}

// LW1: the two drivers write one status comment under two identities.
// In a workflow run, a state comment by a person who may write to the
// repository (`review-loop watch`'s) is adopted, one permission read; a
// person who may not is ignored as before. Outside a workflow run
// (watch), the Actions bot's comment is adopted when its state names
// its own id, which only review-loop's workflow writes.
func TestRule_LW1_EachDriverAdoptsTheOthersStatusComment(t *testing.T) {
	t.Parallel()
	t.Run("the Action adopts a maintainer's watch comment", func(t *testing.T) {
		t.Parallel()
		r := newReads(t)
		if err := r.fake.SetPermission("octo", "app", "maintainer", "write"); err != nil {
			t.Fatal(err)
		}
		st := withStatus(state.StatusActive)
		st.Owner = &state.Owner{Driver: "watch"}
		id := r.stateComment("maintainer", st, false, "active")
		ld := r.state(Origin{Workflow: ourWorkflow, RunID: 77})
		if ld.Comment == nil || ld.Comment.DatabaseID != id || ld.State.Status != state.StatusActive || len(ld.Warnings) != 0 {
			t.Fatalf("adopted %v status %q warnings %q, want comment %d", ld.Comment, ld.State.Status, ld.Warnings, id)
		}
	})
	t.Run("the Action ignores a hand-written one, with no driver, by a maintainer", func(t *testing.T) {
		t.Parallel()
		r := newReads(t)
		if err := r.fake.SetPermission("octo", "app", "maintainer", "admin"); err != nil {
			t.Fatal(err)
		}
		// A copy of an Action's state, owner and all, but not watch's.
		st := withStatus(state.StatusDone)
		st.Owner = &state.Owner{RunID: 1, Workflow: ourWorkflow}
		r.stateComment("maintainer", st, false, "done")
		ld := r.state(Origin{Workflow: ourWorkflow, RunID: 77})
		if ld.Comment != nil || len(ld.Warnings) != 1 || !strings.Contains(ld.Warnings[0], "@maintainer") {
			t.Fatalf("adopted %v warnings %q, want the comment ignored and reported", ld.Comment, ld.Warnings)
		}
	})
	t.Run("the Action ignores one by a person who may not write", func(t *testing.T) {
		t.Parallel()
		r := newReads(t)
		st := withStatus(state.StatusDone)
		st.Owner = &state.Owner{Driver: "watch"}
		r.stateComment("mallory", st, false, "done")
		ld := r.state(Origin{Workflow: ourWorkflow, RunID: 77})
		if ld.Comment != nil || len(ld.Warnings) != 1 || !strings.Contains(ld.Warnings[0], "@mallory") {
			t.Fatalf("adopted %v warnings %q, want mallory's comment ignored and reported", ld.Comment, ld.Warnings)
		}
	})
	t.Run("watch adopts the Action's proved comment, not an unproved one", func(t *testing.T) {
		t.Parallel()
		r := newReads(t)
		unproved := r.stateComment("github-actions", withStatus(state.StatusDone), false, "done")
		proved := r.stateComment("github-actions", withStatus(state.StatusActive), true, "active")
		obs := r.observe()
		obs.ViewerLogin = "maintainer" // watch runs with the user's token
		ld, err := State(context.Background(), r.gh, "octo", "app", 1, obs, Origin{})
		if err != nil {
			t.Fatal(err)
		}
		if ld.Comment == nil || ld.Comment.DatabaseID != proved || !strings.Contains(strings.Join(ld.Warnings, "\n"), fmt.Sprintf("comment %d", unproved)) {
			t.Fatalf("adopted %v warnings %q, want %d adopted and %d ignored", ld.Comment, ld.Warnings, proved, unproved)
		}
		if !slices.Contains(obs.DriverLogins, "github-actions") {
			t.Errorf("DriverLogins %v: the Action's posts would count as a person's (HY1)", obs.DriverLogins)
		}
	})
}
