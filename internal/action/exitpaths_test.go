package action_test

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

func TestRule_H9_MissingEventPathInsideActionsIsAnError(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.unset = []string{"GITHUB_EVENT_PATH"}
	r := e.run("workflow_dispatch", dispatch("1"), nil)
	if r.code == 0 {
		t.Fatalf("exit 0 without GITHUB_EVENT_PATH inside Actions:\n%s\n%s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "::error::review-loop: GITHUB_EVENT_PATH is not set") {
		t.Errorf("no clear error naming GITHUB_EVENT_PATH:\n%s", r.stdout)
	}
	if r.outputs["verdict"] != "errored" || r.outputs["reason"] != "error" || r.outputs["phase"] == "" {
		t.Errorf("outputs on the error path: %v", r.outputs)
	}
	if !strings.Contains(r.summary, "EVENT\\_PATH is not set") {
		t.Errorf("the job summary does not say what failed:\n%s", r.summary)
	}
}

func TestRule_H9_AFailedObservationNamesEachContextOnceAndSetsOutputs(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.fake.Inject(ghfake.Fault{Match: "graphql:repository", Status: 502, Message: "Bad Gateway"})
	r := e.run("workflow_dispatch", dispatch("1"), map[string]string{"engines": "bugbot"})
	if r.code == 0 {
		t.Fatalf("exit 0 on a failed observation:\n%s", r.stdout)
	}
	var line string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "::error::") {
			line = l
			break
		}
	}
	if line == "" {
		t.Fatalf("no error annotation:\n%s", r.stdout)
	}
	// The PR, and the step that failed; the API operation ("observe") is
	// a context of its own.
	for _, word := range []string{"#1", "observing"} {
		if n := strings.Count(line, word); n != 1 {
			t.Errorf("%q appears %d times in %q, want once", word, n, line)
		}
	}
	if r.outputs["verdict"] == "" || r.outputs["phase"] == "" || r.outputs["commits"] == "" {
		t.Errorf("outputs on the error path: %v", r.outputs)
	}
}

func TestRule_H8_AMistypedCommandIsAnsweredOnThePR(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	cid, err := e.fake.AddIssueComment("octo", "app", 1, "maintainer", "COLLABORATOR", "@review-loop strat")
	if err != nil {
		t.Fatal(err)
	}
	r := e.run("issue_comment", comment("maintainer", "COLLABORATOR", "@review-loop strat", cid), nil)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var reacts []string
	for _, x := range e.fake.Reactions() {
		reacts = append(reacts, x.Content)
	}
	if strings.Join(reacts, ",") != "eyes,confused" {
		t.Errorf("reactions %v, want eyes then confused", reacts)
	}
	var reply string
	for _, c := range e.fake.PR("octo", "app", 1).Comments {
		if c.ID != cid && strings.HasPrefix(c.Body, "@maintainer ") {
			reply = c.Body
		}
	}
	if reply == "" || strings.Contains(reply, "\n") || !strings.Contains(reply, "@review-loop start") || !strings.Contains(reply, "@review-loop approve") {
		t.Errorf("reply %q, want one line listing the valid commands", reply)
	}
	if r.outputs["verdict"] == "" {
		t.Errorf("outputs not set on a refused command: %v", r.outputs)
	}
}

func TestRule_H8_TheReviewLoopLabelStartsALoopAndAnotherWakeDoesNot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	pr := func(action string, extra map[string]any) map[string]any {
		p := map[string]any{"action": action, "number": 1, "repository": repo, "sender": map[string]any{"login": "maintainer", "type": "User"},
			"pull_request": map[string]any{"number": 1, "state": "open", "head": map[string]any{"sha": e.head, "ref": "feature"}}}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	// A push on a PR with no loop (start-on: command, the default): no write.
	e.fake.ResetRequests()
	r := e.run("pull_request", pr("synchronize", nil), map[string]string{"engines": "bugbot"})
	if r.code != 0 || e.writes() != 0 {
		t.Fatalf("a push started a loop: exit %d, %d writes\n%s", r.code, e.writes(), r.stdout)
	}
	// H9: it still sets every output.
	if r.outputs["phase"] != "none" || r.outputs["verdict"] != "pending" || r.outputs["commits"] != "0" {
		t.Errorf("outputs of a wake that started no loop: %v, want phase none, verdict pending, commits 0", r.outputs)
	}
	if !strings.Contains(r.summary, "PR #1: no loop on this PR, and start-on is command") {
		t.Errorf("the job summary does not say why no loop was cycled:\n%s", r.summary)
	}
	// The review-loop label asks for one: the engines are triggered.
	r = e.run("pull_request", pr("labeled", map[string]any{"label": map[string]any{"name": "review-loop"}}), map[string]string{"engines": "bugbot"})
	// (Without a trigger token bugbot is waited for, not triggered.)
	if r.code != 0 || (r.outputs["phase"] != "trigger" && r.outputs["phase"] != "wait") || e.writes() == 0 {
		t.Fatalf("the label did not start a loop: exit %d, outputs %v\n%s\n%s", r.code, r.outputs, r.stdout, r.stderr)
	}
}
