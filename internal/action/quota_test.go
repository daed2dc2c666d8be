package action

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/loop"
)

// cycleSleeping is cycle with a Sleep that counts what the run slept.
func (w *world) cycleSleeping(eventName string, payload any, inputs map[string]string, slept *time.Duration) (Result, error) {
	w.t.Helper()
	return w.cycleDeps(eventName, payload, inputs, func(d *Deps) {
		d.Sleep = func(_ context.Context, d time.Duration) error {
			*slept += d
			w.now = w.now.Add(d)
			return nil
		}
	})
}

// T8 through the real trigger path: GitHub refuses the Copilot review
// request with 429; the loop records a cooldown (no T6 retry, no engine
// error), does not sleep in the job toward a wake an hour away, and says
// when the next wake is planned.
func TestRule_T8_CopilotQuotaRefusalCoolsDown(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.fake.Inject(ghfake.Fault{Match: "POST /repos/octo/app/pulls/1/copilot-code-review", Status: 429,
		Message: "Copilot code review quota exceeded for this billing period"})
	in := map[string]string{"engines": "copilot", "wait-seconds": "600", "poll-interval": "30"}
	var slept time.Duration
	if _, err := w.cycleSleeping("workflow_dispatch", dispatchPayload(1), in, &slept); err != nil {
		t.Fatal(err)
	}
	start := w.now.Add(-slept)
	st, _ := statusState(t, w.fake)
	es := st.EngineStates["copilot"]
	if !es.QuotaUntil.Equal(start.Add(time.Hour)) || !strings.Contains(es.QuotaNote, "quota exceeded") || es.ConsecutiveErrors != 0 || es.Mark != "" {
		t.Fatalf("copilot state after a 429: %+v", es)
	}
	requests, fallbacks := 0, 0
	for _, r := range w.fake.Requests() {
		if strings.Contains(r.Path, "copilot-code-review") {
			requests++
		}
		if strings.Contains(r.Path, "requested_reviewers") {
			fallbacks++
		}
	}
	if requests != 1 || fallbacks != 0 {
		t.Fatalf("%d copilot requests, %d fallbacks: a quota refusal is neither retried nor worked around", requests, fallbacks)
	}

	w.now = w.now.Add(5 * time.Minute)
	slept = 0
	res, err := w.cycleSleeping("workflow_dispatch", dispatchPayload(1), in, &slept)
	if err != nil {
		t.Fatal(err)
	}
	p := res.PRs[0].Plan
	if p.Action != loop.ActionWait || !p.WakeAt.Equal(es.QuotaUntil) || len(p.Triggers) != 0 {
		t.Fatalf("during the cooldown: %s wake %v triggers %v (%s)", p.Action, p.WakeAt, p.Triggers, p.Why)
	}
	if slept != 0 {
		t.Fatalf("slept %s in the job toward a wake an hour away", slept)
	}
	_, body := statusState(t, w.fake)
	if !strings.Contains(body, "next wake planned at "+es.QuotaUntil.UTC().Format(time.RFC3339)) || !strings.Contains(body, "quota: review request refused (429)") {
		t.Fatalf("status comment does not name the quota and the next wake:\n%s", body)
	}
}
