package event

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// commentPayload builds a minimal issue_comment payload by hand.
func commentPayload(t *testing.T, onPR bool, login, userType, assoc, body string) []byte {
	t.Helper()
	issue := map[string]any{"number": 12}
	if onPR {
		issue["pull_request"] = map[string]any{"url": "https://api.github.com/repos/o/r/pulls/12"}
	}
	user := map[string]any{"login": login, "type": userType}
	b, err := json.Marshal(map[string]any{
		"action":     "created",
		"issue":      issue,
		"comment":    map[string]any{"id": 99, "body": body, "user": user, "author_association": assoc},
		"repository": map[string]any{"name": "r", "owner": map[string]any{"login": "o"}},
		"sender":     user,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse_issueComment(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		onPR      bool
		login     string
		userType  string
		assoc     string
		body      string
		cfg       Config
		kind      Kind
		command   CommandKind
		reasonHas string
	}{
		{name: "an owner's command on a PR is a command", onPR: true, login: "mona", userType: "User", assoc: "OWNER",
			body: "@review-loop start", kind: KindCommand, command: CommandStart},
		{name: "a member's command is accepted whatever the case of the association", onPR: true, login: "mona", userType: "User", assoc: "member",
			body: "@review-loop status", kind: KindCommand, command: CommandStatus},
		{name: "a stranger's command is ignored with the reason", onPR: true, login: "stranger", userType: "User", assoc: "NONE",
			body: "@review-loop stop", kind: KindIgnore,
			reasonHas: "comment by @stranger (association NONE) is not allowed to command review-loop"},
		{name: "a contributor's command is ignored by default", onPR: true, login: "pat", userType: "User", assoc: "CONTRIBUTOR",
			body: "@review-loop stop", kind: KindIgnore, reasonHas: "association CONTRIBUTOR"},
		{name: "a contributor's command is accepted when contributors are allowed", onPR: true, login: "pat", userType: "User", assoc: "CONTRIBUTOR",
			body: "@review-loop stop", cfg: Config{AllowedAssociations: []string{"contributor"}}, kind: KindCommand, command: CommandStop},
		{name: "a bot's comment is never a command", onPR: true, login: "github-actions[bot]", userType: "Bot", assoc: "NONE",
			body: "@review-loop start", kind: KindIgnore, reasonHas: "bot"},
		{name: "an engine bot's comment is never a command even with an allowed association", onPR: true, login: "cursor[bot]", userType: "Bot", assoc: "MEMBER",
			body: "@review-loop reset", kind: KindIgnore, reasonHas: "bot"},
		{name: "a login ending in [bot] is a bot whatever its type says", onPR: true, login: "claude[bot]", userType: "User", assoc: "OWNER",
			body: "@review-loop reset", kind: KindIgnore, reasonHas: "bot"},
		{name: "review-loop's own user identity is never a command", onPR: true, login: "loop-user", userType: "User", assoc: "OWNER",
			body: "@review-loop reset", cfg: Config{SelfLogins: []string{"Loop-User"}}, kind: KindIgnore, reasonHas: "review-loop itself"},
		{name: "a command on a plain issue is ignored", onPR: false, login: "mona", userType: "User", assoc: "OWNER",
			body: "@review-loop start", kind: KindIgnore, reasonHas: "not on a pull request"},
		{name: "a quoted command is not a command", onPR: true, login: "mona", userType: "User", assoc: "OWNER",
			body: "> @review-loop stop\n\nI disagree", kind: KindIgnore, reasonHas: "has no @review-loop command"},
		{name: "a command in a code block is not a command", onPR: true, login: "mona", userType: "User", assoc: "OWNER",
			body: "Try:\n```\n@review-loop stop\n```", kind: KindIgnore, reasonHas: "no @review-loop command"},
		{name: "a mention in running text is not a command", onPR: true, login: "mona", userType: "User", assoc: "OWNER",
			body: "maybe ask @review-loop stop later", kind: KindIgnore, reasonHas: "no @review-loop command"},
		{name: "a custom trigger phrase is honoured", onPR: true, login: "mona", userType: "User", assoc: "OWNER",
			body: "/loop skip F1", cfg: Config{TriggerPhrase: "/loop"}, kind: KindCommand, command: CommandSkip},
		{name: "the default phrase is no command when another phrase is configured", onPR: true, login: "mona", userType: "User", assoc: "OWNER",
			body: "@review-loop stop", cfg: Config{TriggerPhrase: "/loop"}, kind: KindIgnore, reasonHas: "no /loop command"},
		{name: "an unknown sub-command from an allowed author is a command of kind unknown", onPR: true, login: "mona", userType: "User", assoc: "OWNER",
			body: "@review-loop merge", kind: KindCommand, command: CommandUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w, err := Parse("issue_comment", commentPayload(t, c.onPR, c.login, c.userType, c.assoc, c.body), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != c.kind {
				t.Fatalf("Kind = %s (%s), want %s", w.Kind, w.Reason, c.kind)
			}
			if !strings.Contains(w.Reason, c.reasonHas) {
				t.Errorf("Reason = %q, want one containing %q", w.Reason, c.reasonHas)
			}
			if c.kind == KindCommand {
				if w.Command == nil || w.Command.Kind != c.command {
					t.Fatalf("Command = %+v, want kind %s", w.Command, c.command)
				}
				if !slices.Equal(w.PRs, []int{12}) || w.Owner != "o" || w.Repo != "r" || w.Actor != c.login {
					t.Errorf("PRs %v repo %s/%s actor %q", w.PRs, w.Owner, w.Repo, w.Actor)
				}
			} else if w.Command != nil {
				t.Errorf("an ignored comment carries Command %+v", w.Command)
			}
		})
	}
}

func dispatchPayload(t *testing.T, inputs any) []byte {
	t.Helper()
	m := map[string]any{
		"ref":        "refs/heads/main",
		"workflow":   ".github/workflows/review-loop.yml",
		"repository": map[string]any{"name": "r", "owner": map[string]any{"login": "o"}},
		"sender":     map[string]any{"login": "mona", "type": "User"},
	}
	if inputs != nil {
		m["inputs"] = inputs
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse_workflowDispatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		inputs  any
		cfg     Config
		prs     []int
		engines []string
		errIs   string
	}{
		{name: "the pr input names the PR", inputs: map[string]any{"pr": "42"}, prs: []int{42}},
		{name: "a PR number may be written with a hash and spaces", inputs: map[string]any{"pr": " #42 "}, prs: []int{42}},
		{name: "a numeric input is accepted", inputs: map[string]any{"pr": 42}, prs: []int{42}},
		{name: "the engines input is split on commas and spaces", inputs: map[string]any{"pr": "5", "engines": "Bugbot, copilot claude"},
			prs: []int{5}, engines: []string{"bugbot", "copilot", "claude"}},
		{name: "the payload's input wins over the action's pr input", inputs: map[string]any{"pr": "5"}, cfg: Config{PR: "6"}, prs: []int{5}},
		{name: "a missing input falls back to the action's pr input", inputs: map[string]any{}, cfg: Config{PR: "6"}, prs: []int{6}},
		{name: "no inputs at all and no pr input is a clear error", inputs: nil, errIs: "workflow_dispatch needs input pr: the number of the pull request to run the loop on"},
		{name: "a non-numeric pr is a clear error", inputs: map[string]any{"pr": "abc"}, errIs: `input pr: "abc" is not a pull request number`},
		{name: "a zero pr is an error", inputs: map[string]any{"pr": "0"}, errIs: `input pr: "0" is not a pull request number`},
		{name: "a negative pr is an error", inputs: map[string]any{"pr": "-3"}, errIs: `input pr: "-3" is not a pull request number`},
		{name: "a fractional pr is an error", inputs: map[string]any{"pr": 1.5}, errIs: `input pr: "1.5" is not a pull request number`},
		{name: "inputs that are not an object are an error", inputs: []string{"pr"}, errIs: "decoding workflow_dispatch inputs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w, err := Parse("workflow_dispatch", dispatchPayload(t, c.inputs), c.cfg)
			if c.errIs != "" {
				if err == nil || !strings.Contains(err.Error(), c.errIs) {
					t.Fatalf("err = %v, want %q", err, c.errIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != KindDispatch || !slices.Equal(w.PRs, c.prs) || !slices.Equal(w.Engines, c.engines) {
				t.Errorf("got kind %s PRs %v engines %v, want dispatch %v %v", w.Kind, w.PRs, w.Engines, c.prs, c.engines)
			}
			if w.Actor != "mona" || w.Owner != "o" || w.Repo != "r" {
				t.Errorf("actor %q repo %s/%s", w.Actor, w.Owner, w.Repo)
			}
		})
	}
}

func TestParse_scheduleIsASweep(t *testing.T) {
	t.Parallel()
	w, err := Parse("schedule", []byte(`{"schedule":"*/30 * * * *","repository":{"name":"r","owner":{"login":"o"}}}`), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != KindSweep || len(w.PRs) != 0 || w.NeedsLookup() || w.Owner != "o" || !strings.Contains(w.Reason, "*/30") {
		t.Errorf("got %+v", w)
	}
}

func TestParse_anyOtherEventIsIgnoredWithANotice(t *testing.T) {
	t.Parallel()
	w, err := Parse("deployment_status", []byte(`{"action":"created","repository":{"name":"r","owner":{"login":"o"}}}`), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != KindIgnore || w.Reason != "event deployment_status does not wake review-loop" || w.Owner != "o" {
		t.Errorf("got %+v", w)
	}
	// An unusual shape of a valid JSON payload still ignores cleanly.
	if w, err := Parse("fork", []byte(`[]`), Config{}); err != nil || w.Kind != KindIgnore {
		t.Errorf("Parse(fork, []) = %+v, %v", w, err)
	}
}

func TestParse_checkRunWithoutPullRequestsNamesItsSHA(t *testing.T) {
	t.Parallel()
	p := []byte(`{"action":"completed","check_run":{"name":"Cursor Bugbot","head_sha":"abc123","conclusion":"neutral",
		"app":{"slug":"cursor"},"pull_requests":[]},"repository":{"name":"r","owner":{"login":"o"}},"sender":{"login":"cursor[bot]"}}`)
	w, err := Parse("check_run", p, Config{WatchedApps: []string{"cursor"}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != KindEngineSignal || w.HeadSHA != "abc123" || !w.NeedsLookup() || w.Source != "Cursor Bugbot" {
		t.Errorf("got %+v", w)
	}
}

func TestParse_checkRunOnSeveralPullRequestsNamesThemAll(t *testing.T) {
	t.Parallel()
	p := []byte(`{"action":"completed","check_run":{"name":"Cursor Bugbot","head_sha":"abc123","app":{"slug":"cursor"},
		"pull_requests":[{"number":3},{"number":8},{"number":3}]},"repository":{"name":"r","owner":{"login":"o"}}}`)
	w, err := Parse("check_run", p, Config{WatchedCheckRuns: []string{"cursor bugbot"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.PRs, []int{3, 8}) || w.NeedsLookup() {
		t.Errorf("PRs = %v", w.PRs)
	}
}

func TestParse_checkRunWithNoWatchedEnginesIsIgnored(t *testing.T) {
	t.Parallel()
	p := []byte(`{"action":"completed","check_run":{"name":"Cursor Bugbot","head_sha":"abc123","app":{"slug":"cursor"}}}`)
	w, err := Parse("check_run", p, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != KindIgnore || w.NeedsLookup() {
		t.Errorf("got %+v", w)
	}
}

func TestParse_mergedPullRequestSaysMerged(t *testing.T) {
	t.Parallel()
	p := []byte(`{"action":"closed","number":4,"pull_request":{"number":4,"merged":true,"head":{"sha":"abc","ref":"feature"}}}`)
	w, err := Parse("pull_request", p, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != KindPRClosed || w.HeadRef != "feature" || !strings.Contains(w.Reason, "merged") {
		t.Errorf("got %+v", w)
	}
}
