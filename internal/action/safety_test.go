package action

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func writes(f *ghfake.Fake) []ghfake.Request {
	var out []ghfake.Request
	for _, r := range f.Requests() {
		if r.Method == "GET" || r.Operation == "query" {
			continue
		}
		out = append(out, r)
	}
	return out
}

func TestCycle_DryRunWritesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot,bugbot", "dry-run": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if res.PRs[0].Plan.Action != loop.ActionTrigger {
		t.Errorf("dry run plan = %s, want trigger", res.PRs[0].Plan.Action)
	}
	if ws := writes(w.fake); len(ws) != 0 {
		t.Errorf("dry run wrote: %+v", ws)
	}
	if len(w.fake.PR("octo", "app", 1).Comments) != 0 {
		t.Error("dry run created a comment")
	}
}

func TestCycle_BadInputFailsWithoutWriting(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		event   string
		payload string
		inputs  map[string]string
		drop    string
		want    string
	}{
		{name: "an unknown engine lists the known ones", event: "workflow_dispatch", inputs: map[string]string{"engines": "copilot,hal9000"}, want: "known engines"},
		{name: "a non-numeric pr names the input", event: "workflow_dispatch", inputs: map[string]string{"pr": "abc"}, want: `input pr: "abc"`},
		{name: "a negative bound names the input", event: "workflow_dispatch", inputs: map[string]string{"max-idle-minutes": "-3"}, want: "max-idle-minutes"},
		{name: "a missing token is reported", event: "workflow_dispatch", drop: "INPUT_GITHUB-TOKEN", want: "github-token"},
		{name: "a payload that is not JSON names the event", event: "issue_comment", payload: "{not json", want: "issue_comment"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			if tc.drop != "" {
				delete(w.env, tc.drop)
			}
			var err error
			if tc.payload != "" {
				path := filepath.Join(t.TempDir(), "event.json")
				if werr := os.WriteFile(path, []byte(tc.payload), 0o600); werr != nil {
					t.Fatal(werr)
				}
				w.env["GITHUB_EVENT_PATH"] = path
				w.env["GITHUB_EVENT_NAME"] = tc.event
				getenv := func(k string) string { return w.env[k] }
				cfg, cerr := config.Load(getenv)
				if cerr != nil {
					t.Fatal(cerr)
				}
				_, err = Run(context.Background(), Deps{Config: cfg, Getenv: getenv})
			} else {
				_, err = w.cycle(tc.event, dispatchPayload(1), tc.inputs)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one mentioning %q", err, tc.want)
			}
			if ws := writes(w.fake); len(ws) != 0 {
				t.Errorf("a bad input still wrote: %+v", ws)
			}
		})
	}
}

func TestCycle_UnsupportedEventTouchesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	res, err := w.cycle("deployment", map[string]any{"action": "created"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PRs) != 0 || len(w.fake.Requests()) != 0 {
		t.Errorf("an unsupported event made requests: %+v", w.fake.Requests())
	}
	if !strings.Contains(w.out.String(), "::notice") {
		t.Errorf("no notice for an unsupported event:\n%s", w.out.String())
	}
}

func TestCycle_StateFromTheFutureIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	future := state.New()
	body, err := state.Encode("status", future)
	if err != nil {
		t.Fatal(err)
	}
	body = strings.Replace(body, "review-loop:state v1", "review-loop:state v9", 1)
	if _, err := w.fake.AddIssueComment("octo", "app", 1, "github-actions", "NONE", body); err != nil {
		t.Fatal(err)
	}
	_, err = w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("error = %v, want a newer-version refusal", err)
	}
	if ws := writes(w.fake); len(ws) != 0 {
		t.Errorf("wrote despite a future state: %+v", ws)
	}
}

func TestCycle_ForgedStateCommentIsIgnoredAndReported(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	forged := state.New()
	forged.Status = state.StatusDone
	forged.EndReason = string(loop.EndClean)
	body, err := state.Encode("all clean, trust me", forged)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "NONE", body); err != nil {
		t.Fatal(err)
	}
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatal(err)
	}
	if res.PRs[0].Plan.Action != loop.ActionTrigger {
		t.Errorf("plan = %s: the forged 'clean' state was believed", res.PRs[0].Plan.Action)
	}
	if !strings.Contains(w.out.String(), "ignored a review-loop state comment written by @maintainer") {
		t.Errorf("the forged comment was not reported:\n%s", w.out.String())
	}
	n := 0
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		if _, found, _ := state.Decode(c.Body); found {
			n++
		}
	}
	if n != 2 {
		t.Errorf("state comments = %d, want the forged one untouched and our own", n)
	}
}

func TestCycle_EditConflictMeansAnotherRunWon(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	_, body := statusState(t, w.fake)
	var id int64
	for _, c := range w.fake.PR("octo", "app", 1).Comments {
		if c.Body == body {
			id = c.ID
		}
	}
	// Another run edits the status comment between our read and our write.
	w.fake.Inject(ghfake.Fault{Match: fmt.Sprintf("GET /repos/octo/app/issues/comments/%d", id), Times: 1, Before: func() {
		_ = w.fake.EditIssueComment(id, body+"\n<!-- review-loop:claim other-run -->")
	}})
	// A Copilot finding makes the next cycle act (fix), so it claims.
	head := w.fake.HeadSHA("octo", "app", 1)
	rid, _ := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "generated 1 comment.", CommitSHA: head})
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
		Body: "Add subtracts.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.PRs[0].Skipped, "another run") {
		t.Errorf("skipped = %q, want the lost-race stop", res.PRs[0].Skipped)
	}
	if res.PRs[0].Pushed != "" || w.fake.HeadSHA("octo", "app", 1) != head {
		t.Errorf("the run that lost the race still pushed")
	}
}

// TestCycle_TwoConcurrentCyclesNeverBothPush runs two cycles for the same
// PR at once, each with its own checkout; exactly one fix commit lands and
// the other cycle stops without error.
func TestCycle_TwoConcurrentCyclesNeverBothPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	rid, _ := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "## Pull request overview\n\ngenerated 1 comment.", CommitSHA: head})
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: rid, Path: "calc/calc.go", Line: 5, CommitSHA: head,
		Body: "Add subtracts.\n\n```suggestion\n\treturn a + b\n```"}); err != nil {
		t.Fatal(err)
	}
	second := t.TempDir()
	run(t, "", "git", "clone", "--quiet", "--branch", "feature", w.fake.CloneURL("octo", "app"), second)
	var wg sync.WaitGroup
	results := make([]Result, 2)
	errs := make([]error, 2)
	for i, ws := range []string{w.workspace, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := map[string]string{}
			for k, v := range w.env {
				env[k] = v
			}
			env["GITHUB_WORKSPACE"] = ws
			env["INPUT_ENGINES"] = "copilot"
			// Two workflow runs, as GitHub starts them: each its own run
			// id, which is what the claim tells them apart by (SC1).
			env["GITHUB_RUN_ID"] = fmt.Sprint(780 + i)
			b, _ := json.Marshal(dispatchPayload(1))
			path := filepath.Join(t.TempDir(), "event.json")
			_ = os.WriteFile(path, b, 0o600)
			env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = "workflow_dispatch", path
			getenv := func(k string) string { return env[k] }
			cfg, err := config.Load(getenv)
			if err != nil {
				errs[i] = err
				return
			}
			results[i], errs[i] = Run(context.Background(), Deps{Config: cfg, Getenv: getenv, Now: func() time.Time { return w.now },
				ClientOptions: github.Options{RetryBackoff: time.Millisecond}})
		}()
	}
	wg.Wait()
	pushes := 0
	for i := range results {
		if len(results[i].PRs) > 0 && results[i].PRs[0].Pushed != "" {
			pushes++
		}
	}
	if pushes != 1 {
		t.Fatalf("%d concurrent cycles pushed, want exactly one (the other stops): %v %v", pushes, errs, results)
	}
	for i := range results {
		if len(results[i].PRs) > 0 && results[i].PRs[0].Pushed != "" {
			if got := w.fake.HeadSHA("octo", "app", 1); got != results[i].PRs[0].Pushed {
				t.Errorf("PR head %s is not the one push %s", got, results[i].PRs[0].Pushed)
			}
		} else if errs[i] != nil {
			t.Errorf("the cycle that did not push failed instead of stopping: %v", errs[i])
		}
	}
}

func TestCycle_ReadOnlyTokenDegradesToTheJobSummary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	summary := filepath.Join(t.TempDir(), "summary")
	if err := os.WriteFile(summary, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.env["GITHUB_STEP_SUMMARY"] = summary
	w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/issues/1/comments", Status: 403, Message: "Resource not accessible by integration"})
	res, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"})
	if err != nil {
		t.Fatalf("a read-only token failed the run: %v", err)
	}
	if !strings.Contains(w.out.String(), "::warning::review-loop: this token cannot write") {
		t.Errorf("no clear notice:\n%s", w.out.String())
	}
	for _, r := range w.fake.Requests() {
		if strings.Contains(r.Path, "copilot-code-review") || strings.Contains(r.Path, "requested_reviewers") || strings.Contains(r.Path, "dispatches") {
			t.Errorf("a report-only run still acted: %s %s", r.Method, r.Path)
		}
	}
	b, _ := os.ReadFile(summary)
	if !strings.Contains(string(b), "copilot") {
		t.Errorf("the job summary lacks the report:\n%s", b)
	}
	if res.PRs[0].Outputs["phase"] == "" {
		t.Errorf("outputs not set: %v", res.PRs[0].Outputs)
	}
}

func TestRule_T6_FailedTriggerIsRetriedOnceThenAnEngineError(t *testing.T) {
	t.Parallel()
	for _, failures := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d failure(s)", failures), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/pulls/1/copilot-code-review", Status: 502, Times: failures})
			w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/pulls/1/requested_reviewers", Status: 502, Times: failures})
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
				t.Fatal(err)
			}
			st, _ := statusState(t, w.fake)
			var failed, triggered bool
			for _, ev := range st.Events {
				failed = failed || ev.Name == state.EventRetriggerFailed
				triggered = triggered || ev.Name == state.EventRetrigger
			}
			if failures == 1 && (failed || !triggered) {
				t.Errorf("one failure: want the retry to succeed; events %+v", st.Events)
			}
			if failures == 2 && !failed {
				t.Errorf("two failures: want retrigger-failed; events %+v", st.Events)
			}
		})
	}
}

func TestRule_E9_ResolveStaleResolvesThreadsWhoseFindingIsGone(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	if _, err := w.cycle("workflow_dispatch", dispatchPayload(1), map[string]string{"engines": "copilot"}); err != nil {
		t.Fatal(err)
	}
	head := w.fake.HeadSHA("octo", "app", 1)
	old, _ := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "generated 1 comment.", CommitSHA: head})
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: old, Path: "calc/calc.go", Line: 5, CommitSHA: head, Body: "an old remark"}); err != nil {
		t.Fatal(err)
	}
	latest, _ := w.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "generated 1 comment.", CommitSHA: head})
	if _, _, err := w.fake.AddReviewComment("octo", "app", 1, ghfake.CommentOptions{Author: "Copilot", ReviewID: latest, Path: "calc/calc.go", Line: 4, CommitSHA: head, Body: "a current remark"}); err != nil {
		t.Fatal(err)
	}
	cid, _ := w.fake.AddIssueComment("octo", "app", 1, "maintainer", "OWNER", "@review-loop resolve-stale")
	payload := map[string]any{
		"action":     "created",
		"issue":      map[string]any{"number": 1, "pull_request": map[string]any{"url": "x"}},
		"comment":    map[string]any{"id": cid, "body": "@review-loop resolve-stale", "author_association": "OWNER", "user": map[string]any{"login": "maintainer", "type": "User"}},
		"repository": map[string]any{"name": "app", "full_name": "octo/app", "owner": map[string]any{"login": "octo"}},
		"sender":     map[string]any{"login": "maintainer", "type": "User"},
	}
	if _, err := w.cycle("issue_comment", payload, nil); err != nil {
		t.Fatal(err)
	}
	var resolved, open []string
	for _, th := range w.fake.PR("octo", "app", 1).Threads {
		body := th.Comments[0].Body
		if th.Resolved {
			resolved = append(resolved, body)
		} else {
			open = append(open, body)
		}
	}
	if len(resolved) != 1 || resolved[0] != "an old remark" || len(open) != 1 {
		t.Errorf("resolved %q, open %q: want only the stale thread resolved", resolved, open)
	}
}
