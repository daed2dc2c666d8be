package ghfake

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// seeingWriter is a ResponseWriter that notes, when the first byte of an
// answer leaves, how many requests the fake has logged: what a client
// that has its answer could already count.
type seeingWriter struct {
	http.ResponseWriter
	f    *Fake
	seen int // -1 until the first byte
}

func (w *seeingWriter) note() {
	if w.seen < 0 {
		w.seen = len(w.f.Requests())
	}
}

func (w *seeingWriter) WriteHeader(s int) { w.note(); w.ResponseWriter.WriteHeader(s) }

func (w *seeingWriter) Write(b []byte) (int, error) { w.note(); return w.ResponseWriter.Write(b) }

// TestRequests_ARequestIsLoggedBeforeItsAnswerLeaves: a client that has
// read its answer finds its request in the log. Logged only after the
// handler returned, a large answer (flushed while it is written) could
// reach the client first, and a count taken then missed it: the cost
// ledger's tests saw one read fall in the next cycle under load.
func TestRequests_ARequestIsLoggedBeforeItsAnswerLeaves(t *testing.T) {
	t.Parallel()
	f := New(Options{})
	defer f.Close()
	f.AddToken("ghp_read", Identity{Login: "reader", Association: "OWNER"})
	if err := f.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreatePR("octo", "app", PROptions{Head: "feature"}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/repos/octo/app/pulls/1", "/repos/octo/app/nothing-here"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer ghp_read")
		before := len(f.Requests())
		w := &seeingWriter{ResponseWriter: httptest.NewRecorder(), f: f, seen: -1}
		f.ServeHTTP(w, req)
		if w.seen != before+1 {
			t.Errorf("GET %s: %d requests logged when its answer began, want %d (this one included)", path, w.seen, before+1)
		}
		if got := f.Requests(); len(got) != before+1 || got[len(got)-1].Path != path || got[len(got)-1].Status == 0 {
			t.Errorf("GET %s: log %+v, want it once with its status", path, got[before:])
		}
	}
}
