package github_test

import (
	"context"
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/github"
)

// TestRule_IN2_RecentActivityIsOneQuery: the evidence of the repository's
// recent pull requests costs one request, and names who reviewed.
func TestRule_IN2_RecentActivityIsOneQuery(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	e.f.AddUser("cursor", 206951365, true)
	old, err := e.f.CreatePR("o", "r", ghfake.PROptions{Head: "old", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.AddReview("o", "r", old, ghfake.ReviewOptions{Author: "cursor", Body: "Bugbot reviewed", State: "COMMENTED"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.SetCheckRun("o", "r", old, ghfake.CheckRunOptions{Name: "Cursor Bugbot", AppSlug: "cursor", Conclusion: "NEUTRAL"}); err != nil {
		t.Fatal(err)
	}
	before := e.c.Requests().Total
	prs, err := e.c.RecentActivity(ctx, "o", "r")
	if err != nil {
		t.Fatal(err)
	}
	if d := e.c.Requests().Total - before; d != 1 {
		t.Errorf("RecentActivity sent %d requests, want 1", d)
	}
	i := slices.IndexFunc(prs, func(o *github.Observation) bool { return o.Number == old })
	if i < 0 || len(prs[i].Reviews) != 1 || prs[i].Reviews[0].Author.Login != "cursor" || !prs[i].Reviews[0].Author.IsBot ||
		len(prs[i].CheckRuns) != 1 || prs[i].CheckRuns[0].AppSlug != "cursor" {
		t.Errorf("recent PRs: %+v", prs)
	}
	assertContract(t, e.rec)
}

// TestRule_IN2_ObservationSeesEngineConfigFiles: CodeRabbit's and
// Gemini's config on the default branch come with the observation.
func TestRule_IN2_ObservationSeesEngineConfigFiles(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	o, err := e.c.Observe(ctx, "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.EngineConfigFiles) != 0 {
		t.Errorf("config files %v on a repository without any", o.EngineConfigFiles)
	}
	if err := e.f.SetProtected("o", "r", "main", false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.PushCommit("o", "r", "main", map[string]string{".coderabbit.yaml": "reviews: {}\n", ".gemini/config.yaml": "code_review: {}\n"}, "engines"); err != nil {
		t.Fatal(err)
	}
	if o, err = e.c.Observe(ctx, "o", "r", e.pr); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.EngineConfigFiles, []string{".coderabbit.yaml", ".gemini"}) {
		t.Errorf("config files %v, want [.coderabbit.yaml .gemini]", o.EngineConfigFiles)
	}
	assertContract(t, e.rec)
}

// TestDoctorReads: the reads `review-loop doctor` makes, against the
// fake and GitHub's published contracts.
func TestDoctorReads(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	login, bot, err := e.c.Viewer(ctx)
	if err != nil || login != "github-actions" || !bot {
		t.Errorf("viewer %q bot %v err %v, want github-actions, a bot", login, bot, err)
	}
	e.f.SetSecret("o", "r", "ANTHROPIC_API_KEY")
	if names, visible, err := e.c.SecretNames(ctx, "o", "r"); err != nil || visible || names != nil {
		t.Errorf("an Actions token listed secrets: %v %v %v", names, visible, err)
	}
	cfgs, err := e.c.EngineConfigs(ctx, "o", "r")
	if err != nil || len(cfgs) != 0 {
		t.Errorf("engine configs %v %v on a bare repository", cfgs, err)
	}
	assertContract(t, e.rec)
}
