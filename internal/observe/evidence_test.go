package observe

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/builtin"
	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/state"
)

func names(es []engines.Engine) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	return out
}

// recentReads counts the GraphQL repository queries (the recent PRs).
func recentReads(f *ghfake.Fake) int {
	n := 0
	for _, q := range f.Requests() {
		if q.GraphQL == "repository" && q.Operation == "query" {
			n++
		}
	}
	return n
}

// IN2: with no engine saved or named, the loop's engines are those the
// repository shows: on this PR (no request) or on a recent PR (one
// request, only for engines still without evidence); the rest are named
// in a notice returned, and which were seen is recorded in the state. A
// failed read of the recent PRs is logged and the local evidence stands.
// Named or saved engines are taken as they are.
func TestRule_IN2_TheEnginesAreTheOnesTheRepositoryShows(t *testing.T) {
	t.Parallel()
	r := newReads(t)
	r.fake.AddUser("cursor", 206951365, true)
	r.fake.AddUser("copilot-pull-request-reviewer", 175728472, true)
	if _, err := r.fake.AddReview("octo", "app", 1, ghfake.ReviewOptions{Author: "cursor", Body: "Bugbot looked"}); err != nil {
		t.Fatal(err)
	}
	earlier, err := r.fake.CreatePR("octo", "app", ghfake.PROptions{Head: "earlier", Files: map[string]string{"x.txt": "x\n"}, Author: "maintainer"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.fake.AddReview("octo", "app", earlier, ghfake.ReviewOptions{Author: "copilot-pull-request-reviewer", Body: "Copilot looked"}); err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.Registry(builtin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	obs := r.observe()
	env := EngineEnv(obs, state.New(), false, r.now)
	sel := func(st state.State, named []string) Selection {
		t.Helper()
		r.fake.ResetRequests()
		s, err := SelectEngines(ctx, r.gh, logger, "octo", "app", 1, reg, obs, env, st, named)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	s := sel(state.New(), nil)
	if got := names(s.Engines); !slices.Equal(got, []string{"bugbot", "copilot"}) || !slices.Equal(s.State.Engines, got) {
		t.Errorf("engines %v (state %v), want bugbot (this PR) and copilot (an earlier PR)", got, s.State.Engines)
	}
	if n := recentReads(r.fake); n != 1 {
		t.Errorf("%d reads of the recent PRs, want 1", n)
	}
	if !s.State.Installed["bugbot"] || !s.State.Installed["copilot"] || s.State.Installed["coderabbit"] {
		t.Errorf("installed %v, want bugbot and copilot seen, coderabbit not", s.State.Installed)
	}
	if len(s.Notices) != 1 || !strings.Contains(s.Notices[0], "no sign of ") || !strings.Contains(s.Notices[0], "coderabbit") || strings.Contains(s.Notices[0], "bugbot") {
		t.Errorf("notices %q, want the engines left out named", s.Notices)
	}

	if s := sel(state.New(), []string{"Copilot"}); !slices.Equal(names(s.Engines), []string{"copilot"}) || len(s.Notices) != 0 {
		t.Errorf("named copilot: engines %v notices %q, want copilot alone and no notice", names(s.Engines), s.Notices)
	}
	if s := sel(state.New(), []string{"bugbot"}); !slices.Equal(names(s.Engines), []string{"bugbot"}) || recentReads(r.fake) != 0 {
		t.Errorf("named bugbot, seen on this PR: engines %v after %d reads of the recent PRs, want bugbot and none", names(s.Engines), recentReads(r.fake))
	}
	saved := state.New()
	saved.Engines = []string{"coderabbit"}
	if s := sel(saved, nil); !slices.Equal(names(s.Engines), []string{"coderabbit"}) || len(r.fake.Requests()) != 0 {
		t.Errorf("saved coderabbit: engines %v after %d requests, want coderabbit and none", names(s.Engines), len(r.fake.Requests()))
	}
	saved.Engines = []string{"nosuch"}
	if _, err := SelectEngines(ctx, r.gh, logger, "octo", "app", 1, reg, obs, env, saved, nil); err == nil || !strings.Contains(err.Error(), `state names engine "nosuch"`) {
		t.Errorf("error %v, want the unknown saved engine named", err)
	}
	if _, err := SelectEngines(ctx, r.gh, logger, "octo", "app", 1, reg, obs, env, state.New(), []string{"nosuch"}); err == nil || !strings.HasPrefix(err.Error(), "input engines: ") {
		t.Errorf("error %v, want the `engines` input named", err)
	}

	r.fake.Inject(ghfake.Fault{Match: "graphql:repository", Status: 500, Message: "boom"})
	if s := sel(state.New(), nil); !slices.Equal(names(s.Engines), []string{"bugbot"}) {
		t.Errorf("with the recent PRs unread: engines %v, want bugbot (this PR)", names(s.Engines))
	}
	if !strings.Contains(log.String(), "reading the recent pull requests for engine evidence (IN2)") {
		t.Errorf("the failed read was not logged:\n%s", log.String())
	}
}
