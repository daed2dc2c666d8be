package event

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/contract"
)

// webhooksDir finds the recorded webhook payloads (octokit/webhooks
// examples) in the GitHub reference folder (contract.Dir: <dir holding
// go.mod>/../shared/github, or the folder REVIEW_LOOP_GITHUB_DATA names).
// They are read in place, never copied into the repository.
func webhooksDir(t *testing.T) string {
	t.Helper()
	root, _ := contract.Dir()
	dir := filepath.Join(root, "webhooks")
	if _, err := os.Stat(dir); root == "" || err != nil {
		msg := "webhook payload examples not found: they must be at " + dir +
			" (<repository>/../shared/github/webhooks/<event>/<action>.json)"
		if os.Getenv(contract.RequiredEnv) == "required" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

func readPayload(t *testing.T, dir, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// payloadCfg watches the check run, app and workflow that appear in the
// octokit examples, the way the engine registry would watch an engine's.
var payloadCfg = Config{
	WatchedCheckRuns: []string{"Octocoders-linter"},
	WatchedApps:      []string{"octocoders-linter"},
	WatchedWorkflows: []string{"test"},
	SelfWorkflow:     "review-loop",
}

const exampleSHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"

func TestParse_everyRecordedPayload(t *testing.T) {
	t.Parallel()
	dir := webhooksDir(t)
	type want struct {
		kind        Kind
		prs         []int
		sha         string
		owner, repo string
		assoc       string
		reasonHas   string
		errHas      string
		needsLookup bool
	}
	cases := []struct {
		file string
		name string // what the case shows, as a sentence
		cfg  *Config
		want want
	}{
		{"check_run/completed.json", "a watched check run completing wakes the PRs of its head SHA", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "Octocoders-linter"}},
		{"check_run/completed.github-actions.json", "a check run created by GitHub Actions never wakes us", nil,
			want{kind: KindIgnore, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "GitHub Actions"}},
		{"check_run/created.json", "a check run being created is not a completion", nil,
			want{kind: KindIgnore, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "not completed"}},
		{"check_run/rerequested.json", "a rerequested check run is not a completion", nil,
			want{kind: KindIgnore, sha: "d6fde92930d4715a2b49857d24b940956b26d2d3", owner: "github", repo: "hello-world", reasonHas: "rerequested"}},
		{"check_suite/completed.json", "a watched app's check suite completing wakes its PRs", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "octocoders-linter"}},
		{"check_suite/completed.github-actions.json", "a GitHub Actions check suite never wakes us", nil,
			want{kind: KindIgnore, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "GitHub Actions"}},
		{"issue_comment/created.json", "a comment on a plain issue is ignored", nil,
			want{kind: KindIgnore, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER", reasonHas: "not on a pull request"}},
		{"issue_comment/created.with-installation.json", "a comment on a plain issue in an organization is ignored", nil,
			want{kind: KindIgnore, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER", reasonHas: "not on a pull request"}},
		{"issue_comment/edited.json", "an edited comment on a plain issue is ignored", nil,
			want{kind: KindIgnore, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER", reasonHas: "not on a pull request"}},
		{"pull_request/closed.json", "a closed PR ends the loop", nil,
			want{kind: KindPRClosed, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "closed"}},
		{"pull_request/opened.json", "an opened PR waits for a command", nil,
			want{kind: KindIgnore, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "opened"}},
		{"pull_request/opened.with-null-body.json", "an opened PR with no body waits for a command", nil,
			want{kind: KindIgnore, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "opened"}},
		{"pull_request/ready_for_review.json", "a PR marked ready for review is an engine signal", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "ready for review"}},
		{"pull_request/synchronize.json", "a push to the PR branch is a possible outside push", nil,
			want{kind: KindOutsidePush, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World"}},
		{"pull_request_review/dismissed.json", "a dismissed review is an engine signal", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER", reasonHas: "dismissed"}},
		{"pull_request_review/submitted.json", "a submitted review is an engine signal", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER", reasonHas: "submitted"}},
		{"pull_request_review/submitted.with-organization.json", "a submitted review in an organization is an engine signal", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER", reasonHas: "submitted"}},
		{"pull_request_review_comment/created.json", "a new review comment is an engine signal", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER"}},
		{"pull_request_review_comment/created.with-organization.json", "a new review comment in an organization is an engine signal", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", assoc: "OWNER"}},
		{"pull_request_review_thread/resolved.json", "a resolved thread does not wake us", nil,
			want{kind: KindIgnore, owner: "Codertocat", repo: "Hello-World", reasonHas: "does not wake"}},
		{"pull_request_review_thread/unresolved.json", "an unresolved thread does not wake us", nil,
			want{kind: KindIgnore, owner: "Codertocat", repo: "Hello-World", reasonHas: "does not wake"}},
		{"push/payload.json", "a push event does not wake us", nil,
			want{kind: KindIgnore, owner: "Codertocat", repo: "Hello-World", reasonHas: "push"}},
		{"push/with-new-branch.json", "a push creating a branch does not wake us", nil,
			want{kind: KindIgnore, owner: "Codertocat", repo: "Hello-World", reasonHas: "push"}},
		{"workflow_dispatch/payload.json", "a dispatch without a pr input is an error", nil,
			want{errHas: "workflow_dispatch needs input pr"}},
		{"workflow_dispatch/payload.json", "a dispatch without a pr input falls back to the action's pr input",
			&Config{PR: "7"},
			want{kind: KindDispatch, prs: []int{7}, owner: "octo-org", repo: "octo-repo"}},
		{"workflow_run/completed.json", "a watched workflow with no PRs listed asks the caller to look its SHA up", nil,
			want{kind: KindEngineSignal, sha: "3484a3fb816e0859fd6e1cea078d76385ff50625", owner: "octo-org", repo: "octo-repo", reasonHas: `"test"`, needsLookup: true}},
		{"workflow_run/completed.json", "an unwatched workflow is ignored",
			&Config{WatchedWorkflows: []string{"Claude Code Review"}},
			want{kind: KindIgnore, sha: "3484a3fb816e0859fd6e1cea078d76385ff50625", owner: "octo-org", repo: "octo-repo", reasonHas: "not watched"}},
		{"workflow_run/completed.json", "our own workflow never wakes us",
			&Config{WatchedWorkflows: []string{"test"}, SelfWorkflow: "Test"},
			want{kind: KindIgnore, sha: "3484a3fb816e0859fd6e1cea078d76385ff50625", owner: "octo-org", repo: "octo-repo", reasonHas: "own"}},
		{"workflow_run/completed.with-pull-requests.json", "a watched workflow wakes the PRs it lists", nil,
			want{kind: KindEngineSignal, prs: []int{2}, sha: "3484a3fb816e0859fd6e1cea078d76385ff50625", owner: "octo-org", repo: "octo-repo"}},
		{"workflow_run/completed.with-pull-requests.json", "a workflow is watched by its file path too",
			&Config{WatchedWorkflows: []string{".github/workflows/test.yml"}},
			want{kind: KindEngineSignal, prs: []int{2}, sha: "3484a3fb816e0859fd6e1cea078d76385ff50625", owner: "octo-org", repo: "octo-repo"}},
		{"check_run/completed.json", "a check run of an unwatched app is ignored at once",
			&Config{WatchedCheckRuns: []string{"Cursor Bugbot"}, WatchedApps: []string{"cursor"}},
			want{kind: KindIgnore, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "no watched engine"}},
		{"check_run/completed.json", "a check run is watched by its app too",
			&Config{WatchedApps: []string{"Octocoders-Linter"}},
			want{kind: KindEngineSignal, prs: []int{2}, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World"}},
		{"check_suite/completed.json", "a check suite of an unwatched app is ignored at once",
			&Config{WatchedApps: []string{"cursor"}},
			want{kind: KindIgnore, sha: exampleSHA, owner: "Codertocat", repo: "Hello-World", reasonHas: "no watched engine"}},
	}

	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.file] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no payload examples in %s", dir)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		if !covered[filepath.ToSlash(rel)] {
			t.Errorf("payload example %s has no case in this table", rel)
		}
	}

	for _, c := range cases {
		t.Run(c.file+": "+c.name, func(t *testing.T) {
			t.Parallel()
			event := strings.Split(c.file, "/")[0]
			cfg := payloadCfg
			if c.cfg != nil {
				cfg = *c.cfg
			}
			w, err := Parse(event, readPayload(t, dir, c.file), cfg)
			if c.want.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.want.errHas) {
					t.Fatalf("err = %v, want one containing %q", err, c.want.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != c.want.kind {
				t.Errorf("Kind = %s (%s), want %s", w.Kind, w.Reason, c.want.kind)
			}
			if !slices.Equal(w.PRs, c.want.prs) {
				t.Errorf("PRs = %v, want %v", w.PRs, c.want.prs)
			}
			if w.HeadSHA != c.want.sha {
				t.Errorf("HeadSHA = %q, want %q", w.HeadSHA, c.want.sha)
			}
			if w.Owner != c.want.owner || w.Repo != c.want.repo {
				t.Errorf("repository = %s/%s, want %s/%s", w.Owner, w.Repo, c.want.owner, c.want.repo)
			}
			if w.Association != c.want.assoc {
				t.Errorf("Association = %q, want %q", w.Association, c.want.assoc)
			}
			if w.Event != event {
				t.Errorf("Event = %q, want %q", w.Event, event)
			}
			if w.Reason == "" || !strings.Contains(w.Reason, c.want.reasonHas) {
				t.Errorf("Reason = %q, want one containing %q", w.Reason, c.want.reasonHas)
			}
			if w.NeedsLookup() != c.want.needsLookup {
				t.Errorf("NeedsLookup() = %v, want %v", w.NeedsLookup(), c.want.needsLookup)
			}
			if w.Kind != KindIgnore && w.Actor == "" {
				t.Error("Actor is empty")
			}
		})
	}
}

// withPullRequestLink adds issue.pull_request to a recorded issue_comment
// payload and sets the comment body: every octokit issue_comment example is
// on a plain issue, and GitHub marks a PR comment by that field's presence.
func withPullRequestLink(t *testing.T, payload []byte, body string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	issue := m["issue"].(map[string]any)
	issue["pull_request"] = map[string]any{
		"url":      "https://api.github.com/repos/Codertocat/Hello-World/pulls/1",
		"html_url": "https://github.com/Codertocat/Hello-World/pull/1",
	}
	m["comment"].(map[string]any)["body"] = body
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse_recordedCommentOnAPullRequestIsACommand(t *testing.T) {
	t.Parallel()
	dir := webhooksDir(t)
	for _, file := range []string{"issue_comment/created.json", "issue_comment/created.with-installation.json"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			p := withPullRequestLink(t, readPayload(t, dir, file), "@review-loop approve F2 use a map")
			w, err := Parse("issue_comment", p, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != KindCommand || w.Command == nil {
				t.Fatalf("Kind = %s (%s), want command", w.Kind, w.Reason)
			}
			if !slices.Equal(w.PRs, []int{1}) || w.Actor != "Codertocat" || w.Association != "OWNER" {
				t.Errorf("PRs %v actor %q association %q", w.PRs, w.Actor, w.Association)
			}
			if got := *w.Command; got.Kind != CommandApprove || got.FindingID != "F2" || got.Direction != "use a map" {
				t.Errorf("Command = %+v", got)
			}
		})
	}
	t.Run("an edited comment on a pull request is not a command", func(t *testing.T) {
		t.Parallel()
		p := withPullRequestLink(t, readPayload(t, dir, "issue_comment/edited.json"), "@review-loop stop")
		w, err := Parse("issue_comment", p, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if w.Kind != KindIgnore || !strings.Contains(w.Reason, "edited") {
			t.Errorf("Kind = %s, Reason = %q", w.Kind, w.Reason)
		}
	})
}

func TestParse_errorNamesTheEventWhenThePayloadIsNotJSON(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"check_run", "issue_comment", "workflow_dispatch", "deployment"} {
		_, err := Parse(name, []byte("not json {"), Config{})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Parse(%s) err = %v, want one naming the event", name, err)
		}
	}
	_, err := Parse("check_run", []byte(`{"check_run": "oops"}`), Config{})
	var target *json.UnmarshalTypeError
	if err == nil || !strings.Contains(err.Error(), "check_run") || !errors.As(err, &target) {
		t.Errorf("wrong shape: err = %v, want a wrapped decoding error naming check_run", err)
	}
}
