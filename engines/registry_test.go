package engines_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

type stub struct {
	name      string
	installed bool
}

func (s stub) Name() string                       { return s.name }
func (s stub) Capabilities() engines.Capabilities { return engines.Capabilities{} }
func (s stub) TriggerBody() string                { return "" }
func (s stub) Observe(*github.Observation, engines.Env) loop.EngineView {
	return loop.EngineView{Engine: s.name}
}
func (s stub) Trigger(context.Context, engines.GitHub, engines.PRRef) (int64, error) { return 0, nil }

type installer struct{ stub }

func (i installer) Installed(*github.Observation, engines.Env) (bool, string) {
	return i.installed, "no workflow uses it"
}

func TestRegistry_namesAreSortedAndLookupIgnoresCase(t *testing.T) {
	r := engines.NewRegistry(stub{name: "copilot"}, stub{name: "bugbot"})
	if got := r.Names(); !slices.Equal(got, []string{"bugbot", "copilot"}) {
		t.Fatalf("names %v", got)
	}
	if _, ok := r.Lookup(" BugBot "); !ok {
		t.Fatal("lookup failed")
	}
}

func TestRegistry_parseNamesRejectsUnknownNamesListingTheKnownOnes(t *testing.T) {
	r := engines.NewRegistry(stub{name: "copilot"}, stub{name: "bugbot"})
	got, err := r.ParseNames("copilot, bugbot,copilot")
	if err != nil || !slices.Equal(got, []string{"bugbot", "copilot"}) {
		t.Fatalf("got %v %v", got, err)
	}
	_, err = r.ParseNames("bugbot,sonar")
	if err == nil || !strings.Contains(err.Error(), "sonar") || !strings.Contains(err.Error(), "known engines: bugbot, copilot") {
		t.Fatalf("err %v", err)
	}
	if _, err := r.ParseNames(" , "); err == nil {
		t.Fatal("empty list accepted")
	}
}

func TestRule_IN2_notInstalledEngineDropsOutOfTheDefaultSetWithANotice(t *testing.T) {
	r := engines.NewRegistry(stub{name: "bugbot"}, installer{stub{name: "claude", installed: false}}, installer{stub{name: "x", installed: true}})
	names, notices := r.Default(nil, engines.Env{})
	if !slices.Equal(names, []string{"bugbot", "x"}) {
		t.Fatalf("names %v", names)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "claude") || !strings.Contains(notices[0], "no workflow uses it") || !strings.Contains(notices[0], "not installed") {
		t.Fatalf("notices %v", notices)
	}
	// Named explicitly it is still attempted.
	if got, err := r.ParseNames("claude"); err != nil || got[0] != "claude" {
		t.Fatalf("explicit: %v %v", got, err)
	}
}

func TestSuggestions(t *testing.T) {
	body := "prose\n```suggestion\n  a := 1\n```\nmore\n````suggestion\nb\n```\nc\n````\n```go\nnot\n```"
	got := engines.Suggestions(body)
	if !slices.Equal(got, []string{"  a := 1", "b\n```\nc"}) {
		t.Fatalf("%q", got)
	}
}

func TestAuthor_matchesGraphQLAndRESTLoginsAndID(t *testing.T) {
	a := engines.Author{Logins: []string{"cursor"}, ID: 5}
	for _, actor := range []github.Actor{{Login: "cursor", IsBot: true}, {Login: "Cursor[bot]", IsBot: true}, {Login: "x", DatabaseID: 5, IsBot: true}} {
		if !a.Match(actor) {
			t.Errorf("%+v not matched", actor)
		}
	}
	if a.Match(github.Actor{Login: "cursor-fan"}) || a.Match(github.Actor{}) {
		t.Error("false match")
	}
}

func FuzzSuggestions(f *testing.F) {
	f.Add("```suggestion\nx\n```")
	f.Add("~~~~suggestion\n")
	f.Fuzz(func(t *testing.T, body string) {
		for _, s := range engines.Suggestions(body) {
			if len(s) > len(body) {
				t.Fatal("suggestion longer than body")
			}
		}
	})
}
