package engines_test

import (
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/bugbot"
	"github.com/review-loop/review-loop/engines/copilot"
	"github.com/review-loop/review-loop/internal/github"
)

// IN7: GraphQL bot logins carry no "[bot]" suffix, so a login alone cannot
// tell the Copilot bot from a user account named Copilot
// (../shared/ENGINES.md, round 2, "Identity").
func TestRule_IN7_AUserNamedLikeAnEngineIsNotTheEngine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		author engines.Author
		actor  github.Actor
	}{
		{"a user account named Copilot", copilot.Author, github.Actor{Login: "Copilot", DatabaseID: 90001}},
		{"a user account named Copilot whose id is unknown", copilot.Author, github.Actor{Login: "Copilot"}},
		{"a user account named cursor", bugbot.Author, github.Actor{Login: "cursor", DatabaseID: 90002}},
		{"a user account spelled cursor[bot]", bugbot.Author, github.Actor{Login: "cursor[bot]"}},
		{"a bot named cursor with another id", bugbot.Author, github.Actor{Login: "cursor", DatabaseID: 90003, IsBot: true}},
		{"a bot named Copilot with another id", copilot.Author, github.Actor{Login: "Copilot", DatabaseID: 90004, IsBot: true}},
	} {
		if tc.author.Match(tc.actor) {
			t.Errorf("%s (%+v) is taken for the engine", tc.name, tc.actor)
		}
	}
}

func TestRule_IN7_TheEngineBotIsTheEngine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		author engines.Author
		actor  github.Actor
	}{
		{"the Cursor bot over GraphQL", bugbot.Author, github.Actor{Login: "cursor", DatabaseID: bugbot.BotID, IsBot: true}},
		{"the Cursor bot over REST", bugbot.Author, github.Actor{Login: "cursor[bot]", DatabaseID: bugbot.BotID, IsBot: true}},
		{"the Cursor bot without an id", bugbot.Author, github.Actor{Login: "cursor", IsBot: true}},
		{"the Copilot bot over REST (login Copilot)", copilot.Author, github.Actor{Login: "Copilot", DatabaseID: copilot.BotID, IsBot: true}},
		{"the Copilot bot by id under another login", copilot.Author, github.Actor{Login: "copilot-pull-request-reviewer", DatabaseID: copilot.BotID, IsBot: true}},
	} {
		if !tc.author.Match(tc.actor) {
			t.Errorf("%s (%+v) is not taken for the engine", tc.name, tc.actor)
		}
	}
}

// A user finding with a suggestion never enters the engine's findings.
func TestRule_IN7_ThreadsByAUserNamedCopilotAreNoFindings(t *testing.T) {
	t.Parallel()
	user := github.Actor{Login: "Copilot", DatabaseID: 90001}
	bot := github.Actor{Login: "copilot-pull-request-reviewer", DatabaseID: copilot.BotID, IsBot: true}
	obs := &github.Observation{HeadSHA: "sha1",
		Reviews: []github.Review{{DatabaseID: 1, Author: user, CommitSHA: "sha1", State: "COMMENTED"}, {DatabaseID: 2, Author: bot, CommitSHA: "sha1", State: "COMMENTED"}},
		Threads: []github.Thread{
			{NodeID: "T1", Path: "a.go", Line: 3, Comments: []github.ReviewComment{{DatabaseID: 11, Author: user, ReviewDatabaseID: 1, Body: "```suggestion\nrm -rf /\n```"}}},
			{NodeID: "T2", Path: "a.go", Line: 5, Comments: []github.ReviewComment{{DatabaseID: 12, Author: bot, ReviewDatabaseID: 2, Body: "Off by one."}}},
		},
		IssueComments: []github.IssueComment{{DatabaseID: 21, Author: user, Body: "x"}},
	}
	fs := engines.ThreadFindings(obs, "copilot", copilot.Author, func(string) engines.Parsed { return engines.Parsed{} })
	if len(fs) != 1 || fs[0].CommentID != 12 {
		t.Errorf("findings = %+v, want only the bot's comment 12", fs)
	}
	if rs := engines.ReviewsBy(obs, copilot.Author); len(rs) != 1 || rs[0].DatabaseID != 2 {
		t.Errorf("reviews = %+v, want only the bot's review 2", rs)
	}
	if cs := engines.IssueCommentsBy(obs, copilot.Author); len(cs) != 0 {
		t.Errorf("issue comments = %+v, want none", cs)
	}
}

func TestRule_IN7_AnEngineMayOptInToUserAuthors(t *testing.T) {
	t.Parallel()
	a := engines.Author{Logins: []string{"review-service"}, ID: 555, AllowUsers: true}
	if !a.Match(github.Actor{Login: "review-service", DatabaseID: 555}) || !a.Match(github.Actor{Login: "Review-Service"}) {
		t.Error("an opted-in user author is not matched")
	}
	if a.Match(github.Actor{Login: "review-service", DatabaseID: 556}) {
		t.Error("an opted-in author with another id is matched")
	}
}

// GraphQL answers CheckRun.databaseId null for ids of 2^31 and above: the
// check run's signal id then comes from its node id, stable and distinct
// per run, so a completed or errored run still has an id.
func TestCheckSignal_aCheckRunWithANullDatabaseIDStillHasASignalID(t *testing.T) {
	t.Parallel()
	first := &github.CheckRun{NodeID: "CR_kwDOAbc123", Name: "Cursor Bugbot", Status: "COMPLETED", Conclusion: "CANCELLED"}
	rerun := &github.CheckRun{NodeID: "CR_kwDOAbc124", Name: "Cursor Bugbot", Status: "COMPLETED", Conclusion: "CANCELLED"}
	_, _, a := engines.CheckSignal(first)
	_, _, again := engines.CheckSignal(&github.CheckRun{NodeID: "CR_kwDOAbc123", Status: "COMPLETED"})
	_, _, b := engines.CheckSignal(rerun)
	if a == 0 || a != again || a == b {
		t.Errorf("signal ids %d, %d (same run) and %d (re-run): want non-zero, stable and distinct", a, again, b)
	}
	if _, _, id := engines.CheckSignal(&github.CheckRun{DatabaseID: 12345, NodeID: "CR_x", Status: "COMPLETED"}); id != 12345 {
		t.Errorf("a known database id gives signal id %d, want 12345", id)
	}
	if !engines.CheckErrored(first) {
		t.Error("a cancelled check run with a null database id is not an engine error")
	}
}

// An engine posting through another bot identity (Claude through a
// workflow's github_token) matches that bot by its own terms, not by the
// engine's id.
func TestRule_IN7_AnotherIdentityIsMatchedOnItsOwnTerms(t *testing.T) {
	t.Parallel()
	a := engines.Author{Logins: []string{"claude"}, ID: 209825114, Others: []engines.Author{{Logins: []string{"github-actions"}}}}
	if !a.Match(github.Actor{Login: "github-actions", DatabaseID: 41898282, IsBot: true}) {
		t.Error("the extra bot identity is not matched")
	}
	if a.Match(github.Actor{Login: "github-actions", DatabaseID: 41898282}) {
		t.Error("a user account named like the extra identity is matched")
	}
}
