package ghfake

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// This file serves conditional requests as GitHub's REST API does: every
// successful GET answers with an ETag of its body, and a GET whose
// If-None-Match names the current ETag is answered 304 Not Modified with
// no body. A 304 to an authorized request does not count against the
// primary rate limit ("Use conditional requests if appropriate",
// docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api),
// so it is logged with NotModified set and its charge is given back.

// bufferedResponse holds a REST answer until its ETag is known.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }
func (b *bufferedResponse) WriteHeader(s int) {
	if b.status == 0 {
		b.status = s
	}
}
func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// etagOf is a weak validator of a response body, in GitHub's form.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `W/"` + hex.EncodeToString(sum[:16]) + `"`
}

// serveConditional serves a REST GET with an ETag, or 304 when the
// client's If-None-Match names it; it reports whether it answered 304.
func (f *Fake) serveConditional(w http.ResponseWriter, r *http.Request, id Identity, resource string) bool {
	buf := &bufferedResponse{header: http.Header{}}
	f.serveREST(buf, r, id)
	if buf.status == 0 {
		buf.status = http.StatusOK
	}
	h := w.Header()
	for k, v := range buf.header {
		h[k] = v
	}
	if buf.status == http.StatusOK {
		tag := etagOf(buf.body.Bytes())
		h.Set("ETag", tag)
		if matchesETag(r.Header.Get("If-None-Match"), tag) {
			f.refund(w, id.Login, resource)
			h.Del("Content-Type")
			h.Del("Content-Length")
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	w.WriteHeader(buf.status)
	_, _ = w.Write(buf.body.Bytes())
	return false
}

// matchesETag reports whether an If-None-Match header names tag (weak
// comparison, as for GET).
func matchesETag(header, tag string) bool {
	if header == "" {
		return false
	}
	bare := strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == bare {
			return true
		}
	}
	return false
}

// refund gives back the charge of a request answered 304 and rewrites the
// rate-limit headers to match.
func (f *Fake) refund(w http.ResponseWriter, login, resource string) {
	f.mu.Lock()
	win := f.windowLocked(login, resource)
	if win.used > 0 {
		win.used--
	}
	rl := RateLimit{Limit: win.limit, Remaining: win.limit - win.used, Reset: win.reset}
	f.mu.Unlock()
	h := w.Header()
	h.Set("X-RateLimit-Remaining", strconv.Itoa(rl.Remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(rl.Limit-rl.Remaining))
}

// Counted is the number of requests logged so far that GitHub counts
// against a rate limit: every request but the 304s to conditional ones
// and GET /rate_limit. login "" counts every identity's.
func (f *Fake) Counted(login string) (counted, notModified int) {
	for _, q := range f.Requests() {
		if login != "" && !strings.EqualFold(strings.TrimSuffix(q.Login, "[bot]"), strings.TrimSuffix(login, "[bot]")) {
			continue
		}
		switch {
		case q.NotModified:
			notModified++
		case q.Path == "/rate_limit":
		default:
			counted++
		}
	}
	return counted, notModified
}
