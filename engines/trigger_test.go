package engines_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/review-loop/review-loop/engines"
	"github.com/review-loop/review-loop/internal/loop"
)

// T5: a comment trigger the engine ignores from bots (Bugbot, the Claude
// workflow) is posted with the user token when one was given; every other
// trigger is the loop's own.
func TestRule_T5_whichIdentityPostsTheTrigger(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		caps  engines.Capabilities
		token bool
		want  bool
	}{
		{"a comment trigger ignored from bots, with a user token", engines.Capabilities{Trigger: engines.TriggerComment}, true, true},
		{"a comment trigger ignored from bots, without a user token", engines.Capabilities{Trigger: engines.TriggerComment}, false, false},
		{"a comment trigger accepted from bots", engines.Capabilities{Trigger: engines.TriggerComment, AcceptsBotTrigger: true}, true, false},
		{"a reviewer request", engines.Capabilities{Trigger: engines.TriggerReviewer}, true, false},
		{"push only", engines.Capabilities{Trigger: engines.TriggerPushOnly}, true, false},
	} {
		if got := engines.TriggerAsUser(tc.caps, tc.token); got != tc.want {
			t.Errorf("%s: as user %v, want %v", tc.name, got, tc.want)
		}
	}
}

// T6, T8: what a trigger's answer means. A failure is retried once and is
// an engine error after the retry (T6); a quota refusal is never retried
// and is no error: the engine cools down (T8); an engine that cannot be
// triggered is relied on to review the push by itself.
func TestRule_T6_T8_whatATriggersAnswerMeans(t *testing.T) {
	t.Parallel()
	req := loop.TriggerRequest{Engine: "copilot", SHA: "abc"}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	quota := fmt.Errorf("requesting a review: %w", &engines.QuotaError{Engine: "copilot", Wait: 22 * time.Minute, Text: "quota exceeded"})
	failed := errors.New("HTTP 502")
	for _, tc := range []struct {
		name    string
		id      int64
		err     error
		retried bool
		want    loop.TriggerResult
		retry   bool
	}{
		{"sent", 42, nil, false, loop.TriggerResult{Engine: "copilot", SHA: "abc", SignalID: 42}, false},
		{"sent on the retry", 43, nil, true, loop.TriggerResult{Engine: "copilot", SHA: "abc", SignalID: 43}, false},
		{"a failure", 0, failed, false, loop.TriggerResult{Engine: "copilot", SHA: "abc", Err: "HTTP 502"}, true},
		{"a failure after the retry", 0, failed, true, loop.TriggerResult{Engine: "copilot", SHA: "abc", Err: "HTTP 502"}, false},
		{"a quota refusal", 0, quota, false, loop.TriggerResult{Engine: "copilot", SHA: "abc", Quota: &loop.QuotaNotice{At: now, Wait: 22 * time.Minute, Text: "quota exceeded"}}, false},
		{"a quota refusal on the retry", 0, quota, true, loop.TriggerResult{Engine: "copilot", SHA: "abc", Quota: &loop.QuotaNotice{At: now, Wait: 22 * time.Minute, Text: "quota exceeded"}}, false},
		{"no trigger possible", 0, engines.ErrTriggerUnavailable, false, loop.TriggerResult{Engine: "copilot", SHA: "abc", Unavailable: true}, false},
		{"no trigger possible on the retry", 0, engines.ErrTriggerUnavailable, true, loop.TriggerResult{Engine: "copilot", SHA: "abc", Err: engines.ErrTriggerUnavailable.Error()}, false},
	} {
		got, retry := engines.TriggerOutcome(req, tc.id, tc.err, now, tc.retried)
		if retry != tc.retry {
			t.Errorf("%s: retry %v, want %v", tc.name, retry, tc.retry)
		}
		if got.Quota != nil && tc.want.Quota != nil && *got.Quota == *tc.want.Quota {
			got.Quota = tc.want.Quota
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
