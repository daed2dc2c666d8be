package ghfake

import (
	"net/http"
	"testing"
	"time"
)

// TestConditionalRequests_AnUnchangedAnswerIs304AndCostsNoRateLimit: a
// GET answers with an ETag; the same GET with If-None-Match naming it
// is 304 with no body, logged as NotModified and not charged; after a
// change the answer is 200 with a new ETag (LW1's polls).
func TestConditionalRequests_AnUnchangedAnswerIs304AndCostsNoRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	f := New(Options{Now: func() time.Time { return now }})
	defer f.Close()
	f.AddToken("ghp_poll", Identity{Login: "poller", Association: "OWNER"})
	if err := f.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreatePR("octo", "app", PROptions{Head: "feature"}); err != nil {
		t.Fatal(err)
	}
	get := func(etag string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, f.URL()+"/repos/octo/app/pulls/1", nil)
		req.Header.Set("Authorization", "Bearer ghp_poll")
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	first := get("")
	tag := first.Header.Get("ETag")
	if first.StatusCode != http.StatusOK || tag == "" {
		t.Fatalf("first GET: %d, ETag %q; want 200 with an ETag", first.StatusCode, tag)
	}
	before := f.RateLimit("poller", ResourceCore).Remaining
	if again := get(tag); again.StatusCode != http.StatusNotModified || again.ContentLength > 0 {
		t.Fatalf("unchanged GET with If-None-Match: %d (length %d), want 304 with no body", again.StatusCode, again.ContentLength)
	}
	if after := f.RateLimit("poller", ResourceCore).Remaining; after != before {
		t.Errorf("a 304 cost %d of the rate limit, want none", before-after)
	}
	// The log is written once a handler returns, which may be just after
	// its client has the answer.
	counted, free := f.Counted("poller")
	for i := 0; i < 200 && counted+free < 2; i++ {
		time.Sleep(5 * time.Millisecond)
		counted, free = f.Counted("poller")
	}
	if counted != 1 || free != 1 {
		t.Errorf("Counted = %d counted, %d not modified; want 1 and 1", counted, free)
	}
	if _, err := f.AddIssueComment("octo", "app", 1, "poller", "OWNER", "a new comment"); err != nil {
		t.Fatal(err)
	}
	changed := get(tag)
	if changed.StatusCode != http.StatusOK || changed.Header.Get("ETag") == tag {
		t.Errorf("after a new comment: %d, ETag %q; want 200 with a new ETag", changed.StatusCode, changed.Header.Get("ETag"))
	}
}
