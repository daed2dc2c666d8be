package copilot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/engines/internal/fakegh"
	"github.com/review-loop/review-loop/engines/internal/samples"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func TestCapabilities_ST1_CopilotRepostsEveryFinding(t *testing.T) {
	if New().Capabilities().Incremental {
		t.Fatal("Copilot re-posts every still-present finding: latest review wins (ST1), not incremental")
	}
}

// S6 on the real overview bodies: K counts inline comments; suppressed
// low-confidence ones are not thread findings; v2's "Previously missed"
// findings are real and live only in the body.
func TestObserve_S6_statedCountFromRealOverviews(t *testing.T) {
	all := samples.Load(t, "copilot")
	tests := []struct {
		prefix string
		n      int
		source string
	}{
		{"04-", 5, "5 inline comment(s) generated"},
		{"08-", 1, "1 previously missed in the body"},
		{"09-", 0, "0 inline comment(s) generated"},
		{"10-", 8, "8 inline comment(s) generated"},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			body := overviewBlock(t, samples.Get(t, all, tt.prefix).Text)
			o := obsAt("sha1")
			o.Reviews = []github.Review{{DatabaseID: 50, Author: reviewer(), CommitSHA: "sha1", SubmittedAt: t0, Body: body}}
			v := New().Observe(o, engines.Env{})
			if v.Stated == nil || v.Stated.N != tt.n || !strings.Contains(v.Stated.Source, tt.source) {
				t.Fatalf("stated %+v, want %d (%s)", v.Stated, tt.n, tt.source)
			}
			if ok, _ := loop.IsClean(state.State{}, v, "sha1"); ok && tt.n > 0 {
				t.Fatalf("%d stated, 0 threads read, yet clean", tt.n)
			}
		})
	}
}

func TestObserve_S6_errorBodyStatesNothing(t *testing.T) {
	o := obsAt("sha1")
	o.Reviews = []github.Review{{DatabaseID: 50, Author: reviewer(), CommitSHA: "sha1", SubmittedAt: t0,
		Body: "Copilot encountered an error and was unable to review this pull request. You can try again by re-requesting a review."}}
	if v := New().Observe(o, engines.Env{}); v.Stated != nil || v.Material != loop.MaterialErrored {
		t.Fatalf("stated %+v material %s", v.Stated, v.Material)
	}
}

func TestTrigger_T8_quotaRefusalIsAQuotaNotAnError(t *testing.T) {
	pr := engines.PRRef{Owner: "o", Repo: "r", Number: 3}
	tests := []struct {
		name  string
		err   error
		quota bool
		wait  time.Duration
	}{
		{"429 is a quota", &statusErr{Status: 429, Message: "Copilot code review quota exceeded for this billing period"}, true, 0},
		{"429 with Retry-After keeps the wait", &statusErr{Status: 429, RetryAfter: 22 * time.Minute}, true, 22 * time.Minute},
		{"422 naming a quota is a quota", &statusErr{Status: 422, Message: "You have exceeded your premium request allowance"}, true, 0},
		{"422 for another reason falls back", &statusErr{Status: 422, Message: "Reviews may only be requested from collaborators"}, false, 0},
		{"500 is an error", &statusErr{Status: 500}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := &fakegh.GitHub{ErrCopilot: tt.err}
			_, err := New().Trigger(context.Background(), gh, pr)
			var q *engines.QuotaError
			if errors.As(err, &q) != tt.quota {
				t.Fatalf("err %v, quota %v", err, tt.quota)
			}
			if tt.quota {
				if q.Wait != tt.wait || q.Engine != Name || q.Text == "" {
					t.Fatalf("quota %+v", q)
				}
				if len(gh.Calls) != 1 {
					t.Fatalf("a quota refusal fell back to requested_reviewers: %v", gh.Calls)
				}
			}
		})
	}
}

func FuzzParseOverviewCounts(f *testing.F) {
	for _, s := range samples.Load(f, "copilot") {
		for _, b := range samples.Blocks(s.Text) {
			f.Add(b)
		}
	}
	f.Add("<details><summary><strong>Previously missed (99999999999999)</strong></summary>")
	f.Fuzz(func(t *testing.T, body string) {
		o := ParseOverview(body)
		if o.PreviouslyMissed < 0 || o.Comments < -1 {
			t.Fatalf("%+v", o)
		}
	})
}

// overviewBlock is a sample's first block that is a review overview.
func overviewBlock(t *testing.T, text string) string {
	t.Helper()
	for _, b := range samples.Blocks(text) {
		if l := strings.ToLower(b); strings.Contains(l, "overview") || strings.Contains(l, "generated") {
			return b
		}
	}
	t.Fatal("no overview block")
	return ""
}
