package github_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// S8: the observation reads whether each review is hidden (minimized), as
// Bugbot hides its own earlier reviews on rerun (ENGINES.md round 3).
func TestRule_S8_ObserveReadsWhetherAReviewIsHidden(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	e.f.AddUser("cursor", 206951365, true)
	hidden, err := e.f.AddReview("o", "r", e.pr, ghfake.ReviewOptions{Author: "cursor", Body: "✅ Bugbot reviewed your changes and found no new issues!"})
	if err != nil {
		t.Fatal(err)
	}
	shown, err := e.f.AddReview("o", "r", e.pr, ghfake.ReviewOptions{Author: "cursor", Body: "✅ Bugbot reviewed your changes and found no new issues!"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.f.MinimizeReview("o", "r", e.pr, hidden, "OUTDATED"); err != nil {
		t.Fatal(err)
	}
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]bool{}
	for _, r := range o.Reviews {
		got[r.DatabaseID] = r.IsMinimized
	}
	if len(got) != 2 || !got[hidden] || got[shown] {
		t.Errorf("isMinimized read as %v; want review %d hidden and %d shown", got, hidden, shown)
	}
}

// The fake hides a review through GitHub's own minimizeComment mutation, as
// an engine does (checked against GitHub's schema by the fake's subset).
func TestRule_S8_MinimizeCommentHidesAReview(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	e.f.AddUser("cursor", 206951365, true)
	id, err := e.f.AddReview("o", "r", e.pr, ghfake.ReviewOptions{Author: "cursor", Body: "✅ Bugbot reviewed your changes and found no new issues!"})
	if err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf(`{"query":"mutation { minimizeComment(input: {subjectId: \"PRR_%d\", classifier: OUTDATED}) { minimizedComment { isMinimized minimizedReason } } }"}`, id)
	req, _ := http.NewRequest("POST", e.f.GraphQLURL(), strings.NewReader(q))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"isMinimized":true`) || !strings.Contains(string(b), `"minimizedReason":"outdated"`) {
		t.Fatalf("minimizeComment answered %d %s", resp.StatusCode, b)
	}
	o, err := e.c.Observe(context.Background(), "o", "r", e.pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Reviews) != 1 || !o.Reviews[0].IsMinimized {
		t.Errorf("after minimizeComment the review reads %+v, want hidden", o.Reviews)
	}
	// A stranger (no role, not the author) may not hide it.
	e.f.AddToken("stranger-token", ghfake.Identity{Login: "stranger", ID: 99})
	req, _ = http.NewRequest("POST", e.f.GraphQLURL(), strings.NewReader(q))
	req.Header.Set("Authorization", "Bearer stranger-token")
	resp3, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp3.Body.Close()
	if b, _ := io.ReadAll(resp3.Body); !strings.Contains(string(b), "Resource not accessible") {
		t.Errorf("a stranger minimized the review: %s", b)
	}
	bad := strings.Replace(q, "OUTDATED", "NOT_A_CLASSIFIER", 1)
	req, _ = http.NewRequest("POST", e.f.GraphQLURL(), strings.NewReader(bad))
	req.Header.Set("Authorization", "Bearer "+token)
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	if b, _ := io.ReadAll(resp2.Body); !strings.Contains(string(b), `"errors"`) {
		t.Errorf("an unknown classifier was accepted: %s", b)
	}
}
