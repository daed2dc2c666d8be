package action

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// cycleDeps delivers one event to Run with Deps adjusted by edit (a
// recording Sleep, a wrapping transport).
func (w *world) cycleDeps(eventName string, payload any, inputs map[string]string, edit func(*Deps)) (Result, error) {
	w.t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(w.t.TempDir(), "event.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		w.t.Fatal(err)
	}
	env := map[string]string{}
	for k, v := range w.env {
		env[k] = v
	}
	for k, v := range inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = eventName, path
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(getenv)
	if err != nil {
		return Result{}, err
	}
	copts := github.Options{RetryBackoff: time.Millisecond, MaxRateLimitWait: time.Second}
	if w.clientOpts != nil {
		copts.MaxPages = w.clientOpts.MaxPages
	}
	d := Deps{
		Config: cfg, Getenv: getenv, Out: &w.out, Now: func() time.Time { return w.now },
		Sleep:         func(context.Context, time.Duration) error { return nil },
		ClientOptions: copts,
	}
	if edit != nil {
		edit(&d)
	}
	return Run(context.Background(), d)
}

// copilotReview posts a Copilot review on head with one inline comment per
// body (on calc/calc.go line 5 unless the body starts with "path:line|")
// and returns the pull_request_review payload GitHub would deliver.
// suggestionFixCycle runs the trigger cycle, then, three minutes later,
// the cycle Copilot's review with addSuggestion wakes; it returns that
// cycle's result.
func (w *world) suggestionFixCycle(t *testing.T, inputs map[string]string, edit func(*Deps)) Result {
	t.Helper()
	if _, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), inputs, edit); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(3 * time.Minute)
	res, err := w.cycleDeps("pull_request_review", w.copilotReview(t, w.fake.HeadSHA("octo", "app", 1), addSuggestion), inputs, edit)
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	return res
}

func (w *world) copilotReview(t *testing.T, head string, bodies ...string) map[string]any {
	t.Helper()
	summary := "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated no comments."
	if len(bodies) > 0 {
		summary = "## Pull request overview\n\nCopilot reviewed 1 out of 1 changed files in this pull request and generated " + itoa(len(bodies)) + " comments."
	}
	rid, err := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: summary, CommitSHA: head})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		path, line := "calc/calc.go", 5
		if at, rest, ok := strings.Cut(b, "|"); ok {
			p, l, _ := strings.Cut(at, ":")
			path, b = p, rest
			line = atoi(l)
		}
		if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: path, Line: line, CommitSHA: head, Body: b}); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]any{
		"action":       "submitted",
		"review":       map[string]any{"id": rid, "user": map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"}, "commit_id": head, "state": "commented"},
		"pull_request": map[string]any{"number": 1, "head": map[string]any{"sha": head, "ref": "feature"}},
		"repository":   map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":       map[string]any{"login": "copilot-pull-request-reviewer[bot]", "type": "Bot"},
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

const addSuggestion = "Add subtracts instead of adding.\n\n```suggestion\n\treturn a + b\n```"

// TestRule_IN1_ThePRComesFromTheEventOrThePRInput: a dispatch without
// `pr` fails naming the input; one with it reaches that PR; a PR that is
// not OPEN stops with the rule's message.
func TestRule_IN1_ThePRComesFromTheEventOrThePRInput(t *testing.T) {
	t.Parallel()
	t.Run("no PR", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		payload := dispatchPayload(1)
		payload["inputs"] = map[string]any{}
		_, err := w.cycle("workflow_dispatch", payload, map[string]string{"engines": "copilot"})
		if err == nil || !strings.Contains(err.Error(), "needs input pr") {
			t.Fatalf("err = %v, want the error naming the pr input", err)
		}
	})
	t.Run("the pr input", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		payload := dispatchPayload(1)
		payload["inputs"] = map[string]any{}
		res, err := w.cycle("workflow_dispatch", payload, map[string]string{"engines": "copilot", "pr": "1"})
		if err != nil || len(res.PRs) != 1 || res.PRs[0].PR != 1 {
			t.Fatalf("err %v res %+v, want PR #1 from the pr input", err, res)
		}
	})
	t.Run("not OPEN", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, nil)
		if err := w.fake.SetPRState("octo", "app", 1, "CLOSED", false); err != nil {
			t.Fatal(err)
		}
		_, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
		if err == nil || !strings.HasSuffix(err.Error(), "PR #1 is not OPEN — current state: CLOSED") {
			t.Fatalf("err = %v, want `PR #1 is not OPEN — current state: CLOSED`", err)
		}
	})
}

// TestRule_IN5_CopilotOnlyDefaults: copilot-only mode reads
// max-iterations 5, wait-initial 180 s, poll-interval 30 s and
// poll-timeout 600 s by default, and each can be set.
func TestRule_IN5_CopilotOnlyDefaults(t *testing.T) {
	t.Parallel()
	base := map[string]string{"INPUT_GITHUB-TOKEN": actionToken, "INPUT_COPILOT-ONLY": "true", "INPUT_ENGINES": "copilot", "GITHUB_REPOSITORY": "octo/app"}
	load := func(extra map[string]string) config.Config {
		t.Helper()
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		c, err := config.Load(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := load(nil)
	if !c.CopilotOnly || c.MaxIterations != 5 || c.WaitInitial != 180*time.Second || c.PollInterval != 30*time.Second || c.PollTimeout != 600*time.Second {
		t.Errorf("defaults: copilot-only %v max-iterations %d wait-initial %s poll-interval %s poll-timeout %s",
			c.CopilotOnly, c.MaxIterations, c.WaitInitial, c.PollInterval, c.PollTimeout)
	}
	lc, err := config.Loop(c)
	if err != nil {
		t.Fatal(err)
	}
	if !lc.CopilotOnly || lc.MaxIterations != 5 || lc.WaitInitial != 180*time.Second || lc.PollInterval != 30*time.Second || lc.PollTimeout != 600*time.Second {
		t.Errorf("the loop does not get them: %+v", lc)
	}
	c = load(map[string]string{"INPUT_MAX-ITERATIONS": "2", "INPUT_WAIT-INITIAL": "60", "INPUT_POLL-INTERVAL": "10", "INPUT_POLL-TIMEOUT": "90"})
	if c.MaxIterations != 2 || c.WaitInitial != time.Minute || c.PollInterval != 10*time.Second || c.PollTimeout != 90*time.Second {
		t.Errorf("set: max-iterations %d wait-initial %s poll-interval %s poll-timeout %s", c.MaxIterations, c.WaitInitial, c.PollInterval, c.PollTimeout)
	}
}

// TestRule_B4_OnlyTargetedTestsRunAndTheRegressionCommandIsSuggested: the
// fix cycle runs test-command for the fixed file only; the
// regression-command never runs and is suggested in the hand-back.
func TestRule_B4_OnlyTargetedTestsRunAndTheRegressionCommandIsSuggested(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	dir := t.TempDir()
	testLog, canary := filepath.Join(dir, "tests.log"), filepath.Join(dir, "regression-ran")
	in := map[string]string{
		"engines":            "copilot",
		"test-command":       "sh -c 'echo \"$@\" >> " + testLog + "' test {files}",
		"regression-command": "touch " + canary,
	}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(3 * time.Minute)
	res, err := w.cycle("pull_request_review", w.copilotReview(t, w.fake.HeadSHA("octo", "app", 1), addSuggestion), in)
	if err != nil || res.PRs[0].Pushed == "" {
		t.Fatalf("err %v pushed %q\n%s", err, res.PRs[0].Pushed, w.out.String())
	}
	w.now = w.now.Add(3 * time.Minute)
	res, err = w.cycle("pull_request_review", w.copilotReview(t, res.PRs[0].Pushed), in)
	if err != nil {
		t.Fatal(err)
	}
	if p := res.PRs[0].Plan; p.Action != loop.ActionHandBack || p.EndReason != loop.EndClean {
		t.Fatalf("plan %s/%s (%s), want a clean hand-back", p.Action, p.EndReason, p.Why)
	}
	b, err := os.ReadFile(testLog)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != "./calc/calc.go" {
		t.Errorf("test-command runs: %q, want one, for ./calc/calc.go", got)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Errorf("the regression-command ran inside the loop")
	}
	_, body := statusState(t, w.fake)
	if !strings.Contains(body, "touch "+canary) {
		t.Errorf("the hand-back does not suggest the regression command:\n%s", body)
	}
}

// TestRule_E2_Tier3FindingsAreListedNeverFixed: a Copilot suggestion on a
// workflow file is Tier 3: not applied, no commit, and listed with its
// reason in the hand-back.
func TestRule_E2_Tier3FindingsAreListedNeverFixed(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"calc/calc.go":             "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
		".github/workflows/ci.yml": "name: CI\non: push\njobs: {}\n",
	}
	w := newWorld(t, files)
	in := map[string]string{"engines": "copilot"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	w.now = w.now.Add(3 * time.Minute)
	res, err := w.cycle("pull_request_review", w.copilotReview(t, head, ".github/workflows/ci.yml:2|Run on pull requests too.\n\n```suggestion\non: [push, pull_request]\n```"), in)
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if res.PRs[0].Pushed != "" || w.fake.HeadSHA("octo", "app", 1) != head {
		t.Fatalf("a Tier 3 finding was fixed and pushed")
	}
	if got := run(t, w.workspace, "git", "status", "--porcelain"); got != "" {
		t.Errorf("the checkout was edited: %s", got)
	}
	st, body := statusState(t, w.fake)
	tier3 := false
	for _, r := range st.Triage {
		if r.Tier == 3 && strings.Contains(r.Justification, ".github/workflows/") {
			tier3 = true
		}
	}
	if !tier3 {
		t.Errorf("no Tier 3 row with its reason in the triage table: %+v", st.Triage)
	}
	if !strings.Contains(body, ".github/workflows/") || !strings.Contains(body, "Tier 3") {
		t.Errorf("the status comment does not list the escalation:\n%s", body)
	}
}

// TestRule_E7_RepliesArePostedOneAfterAnother: three Copilot suggestions
// on one line: the first is applied, the two others are then outdated and
// each gets a reply; the transport never sees two replies in flight.
func TestRule_E7_RepliesArePostedOneAfterAnother(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	var inFlight, maxInFlight, replies atomic.Int32
	edit := func(d *Deps) {
		d.ClientOptions.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/replies") {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
				}
				replies.Add(1)
				time.Sleep(30 * time.Millisecond) // room for a parallel reply to overlap
			}
			return http.DefaultTransport.RoundTrip(r)
		})}
	}
	w.now = w.now.Add(3 * time.Minute)
	review := w.copilotReview(t, w.fake.HeadSHA("octo", "app", 1), addSuggestion,
		"Add must add.\n\n```suggestion\n\treturn b + a\n```", "Use the sum.\n\n```suggestion\n\treturn a + b // sum\n```")
	res, err := w.cycleDeps("pull_request_review", review, in, edit)
	if err != nil || res.PRs[0].Pushed == "" {
		t.Fatalf("err %v pushed %q\n%s", err, res.PRs[0].Pushed, w.out.String())
	}
	if n := replies.Load(); n != 2 {
		t.Fatalf("%d replies posted, want 2 (the two outdated suggestions)", n)
	}
	if m := maxInFlight.Load(); m != 1 {
		t.Errorf("%d replies in flight at once, want 1 (E7)", m)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRule_T6_AFailedTriggerIsRetriedAfter30Seconds: the retry waits
// through the injected sleeper, exactly 30 s, once; the wait is excluded
// from active work.
func TestRule_T6_AFailedTriggerIsRetriedAfter30Seconds(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/pulls/1/copilot-code-review", Status: 502, Times: 1})
	w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/pulls/1/requested_reviewers", Status: 502, Times: 1})
	var slept []time.Duration
	_, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}, func(d *Deps) {
		d.Sleep = func(_ context.Context, dur time.Duration) error {
			slept = append(slept, dur)
			w.now = w.now.Add(dur)
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != 30*time.Second {
		t.Fatalf("slept %v, want one 30s wait before the retry (T6)", slept)
	}
	st, _ := statusState(t, w.fake)
	if st.ActiveSeconds >= 30 {
		t.Errorf("active work %ds counts the retry wait (B2)", st.ActiveSeconds)
	}
	triggered := false
	for _, ev := range st.Events {
		triggered = triggered || ev.Name == state.EventRetrigger && ev.Engine == "copilot"
	}
	if !triggered {
		t.Errorf("the retry did not trigger copilot: %+v", st.Events)
	}
}

// TestRule_W5_AWorkflowThatCannotBeDispatchedIsReportedOnce: GitHub
// refuses the re-dispatch (no workflow_dispatch trigger, or no
// `actions: write`): the first cycle reports it once as a set-up error,
// the loop goes on (it fixes and pushes in the next cycle, woken by the
// engine's event) and the second refusal is not reported again.
func TestRule_W5_AWorkflowThatCannotBeDispatchedIsReportedOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/actions/workflows/review-loop.yml/dispatches", Status: 403, Message: "Resource not accessible by integration"})
	in := map[string]string{"engines": "copilot"}
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.PRs[0].Dispatched || len(w.fake.Dispatches()) != 0 {
		t.Fatalf("dispatched despite the refusal")
	}
	warned := func() int { return strings.Count(w.out.String(), "could not re-dispatch review-loop.yml") }
	if n := warned(); n != 1 {
		t.Fatalf("%d set-up warnings after the first cycle, want 1:\n%s", n, w.out.String())
	}
	if !strings.Contains(w.out.String(), "::warning") || !strings.Contains(w.out.String(), "workflow_dispatch") {
		t.Errorf("the warning does not say how to set the workflow up:\n%s", w.out.String())
	}
	w.now = w.now.Add(3 * time.Minute)
	res, err = w.cycle("pull_request_review", w.copilotReview(t, w.fake.HeadSHA("octo", "app", 1), addSuggestion), in)
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if res.PRs[0].Pushed == "" {
		t.Fatalf("the loop did not go on after the dispatch refusal: %+v", res.PRs[0].Plan)
	}
	if n := warned(); n != 1 {
		t.Errorf("%d set-up warnings after two refused dispatches, want 1", n)
	}
	st, _ := statusState(t, w.fake)
	if st.Status != state.StatusActive {
		t.Errorf("status %s, want the loop still active (events and the sweep carry it)", st.Status)
	}
}

// TestWaitInJob_wakesOnANewReviewAndActsInTheSameRun: with wait-seconds
// the run re-observes every poll-interval through the injected sleeper;
// the review that arrives during the second sleep is fixed and pushed in
// the same run, and the minute waited is not active work (B2).
func TestWaitInJob_wakesOnANewReviewAndActsInTheSameRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot", "wait-seconds": "120", "poll-interval": "30"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	var slept []time.Duration
	res, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), in, func(d *Deps) {
		d.Sleep = func(_ context.Context, dur time.Duration) error {
			slept = append(slept, dur)
			w.now = w.now.Add(dur)
			if len(slept) == 2 {
				w.copilotReview(t, head, addSuggestion)
			}
			return nil
		}
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.out.String())
	}
	if len(slept) != 2 || slept[0] != 30*time.Second || slept[1] != 30*time.Second {
		t.Errorf("slept %v, want two poll-intervals of 30s", slept)
	}
	if res.PRs[0].Pushed == "" || res.PRs[0].Plan.Action != loop.ActionFix {
		t.Fatalf("the review found during the wait was not fixed in the same run: plan %s (%s)", res.PRs[0].Plan.Action, res.PRs[0].Plan.Why)
	}
	st, _ := statusState(t, w.fake)
	if st.ActiveSeconds >= 60 {
		t.Errorf("active work %ds includes the 60s waited (B2)", st.ActiveSeconds)
	}
}

// TestWaitInJob_endsAtItsBudgetWhenNothingChanges: wait-seconds 90 with
// poll-interval 30 sleeps three times, re-observing each time, then ends
// the run still waiting; without wait-seconds it does not sleep at all.
func TestWaitInJob_endsAtItsBudgetWhenNothingChanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		wait  string
		sleep int
	}{{"90", 3}, {"0", 0}} {
		t.Run("wait-seconds "+tc.wait, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			in := map[string]string{"engines": "copilot", "wait-seconds": tc.wait, "poll-interval": "30"}
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
				t.Fatal(err)
			}
			w.fake.ResetRequests()
			slept := 0
			res, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), in, func(d *Deps) {
				d.Sleep = func(_ context.Context, dur time.Duration) error {
					slept++
					w.now = w.now.Add(dur)
					return nil
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if slept != tc.sleep {
				t.Errorf("slept %d times, want %d", slept, tc.sleep)
			}
			if res.PRs[0].Plan.Action != loop.ActionWait || res.PRs[0].Pushed != "" {
				t.Errorf("plan %s pushed %q, want a wait", res.PRs[0].Plan.Action, res.PRs[0].Pushed)
			}
			// Each wake re-reads the PR: one observation per sleep more.
			observed := 0
			for _, r := range w.fake.Requests() {
				if r.Operation == "query" && strings.Contains(r.Path, "graphql") {
					observed++
				}
			}
			if tc.sleep > 0 && observed <= tc.sleep {
				t.Errorf("%d GraphQL reads for %d wakes, want a re-observation per wake", observed, tc.sleep)
			}
		})
	}
}

// TestWaitInJob_aSleepCancelledEndsTheRunWithItsError: the job being
// cancelled during the wait surfaces as the run's error, nothing acted.
func TestWaitInJob_aSleepCancelledEndsTheRunWithItsError(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	in := map[string]string{"engines": "copilot", "wait-seconds": "60", "poll-interval": "30"}
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), in); err != nil {
		t.Fatal(err)
	}
	_, err := w.cycleDeps("workflow_dispatch", dispatchPayload(1), in, func(d *Deps) {
		d.Sleep = func(context.Context, time.Duration) error { return context.Canceled }
	})
	if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
}
