package action

import (
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// IN3: the draft is marked ready with the user (trigger) token when there
// is one: a ready_for_review event made with GITHUB_TOKEN starts no
// workflow, so Claude's workflow would never review the ready PR.
func TestRule_IN3_DraftIsMarkedReadyWithTheUserToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		trigger string
		want    string
	}{
		{"with a trigger token, as the user", "ghp_maintainer", "maintainer"},
		{"without one, as the action", "", "github-actions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			n, err := w.fake.CreatePR("octo", "app", ghfake.PROptions{Head: "draft-feature", Draft: true, Author: "maintainer",
				Files: map[string]string{"calc/sub.go": "package calc\n"}})
			if err != nil {
				t.Fatal(err)
			}
			in := map[string]string{"engines": "claude", "trigger-token": tt.trigger}
			if _, err := w.cycle("workflow_dispatch", dispatchPayload(n), in); err != nil {
				t.Fatal(err)
			}
			if w.fake.PR("octo", "app", n).Draft {
				t.Fatal("the PR is still a draft")
			}
			by := ""
			for _, r := range w.fake.Requests() {
				if strings.Contains(r.GraphQL, "markPullRequestReadyForReview") {
					by = r.Login
				}
			}
			if !strings.EqualFold(strings.TrimSuffix(by, "[bot]"), tt.want) {
				t.Errorf("marked ready by %q, want %q", by, tt.want)
			}
		})
	}
}
