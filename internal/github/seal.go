package github

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/review-loop/review-loop/internal/secret"
)

// This file is the one place every request to GitHub passes before it
// leaves (TB14): its URL and body are checked against every secret the
// run holds (secret.Set) — the body's bytes, and each text in it as it
// reads once rendered as markdown — and a request that holds one is not
// sent. It is
// the client's outermost layer, so no call — a comment, a reply, a check
// run, an issue, a label, a dispatch, a GraphQL mutation, or a kind of
// write added later — can go round it. The Authorization header, added
// below this layer, is the one place a token belongs.

// sealTransport refuses a request that holds a secret.
type sealTransport struct {
	base    http.RoundTripper
	secrets *secret.Set
	c       *Client
}

func (t sealTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	input := t.secrets.FindString(r.URL.Path + "?" + r.URL.RawQuery)
	if input == "" && r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		input = t.secrets.FindJSON(b)
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	if input == "" {
		return t.base.RoundTrip(r)
	}
	name := r.Method + " " + r.URL.Path
	if c := callOf(r); c.op != "" {
		name = "graphql " + c.op
	}
	e := &secret.Error{Input: input, Write: name}
	t.c.refuse(e)
	return nil, e
}

// sealed keeps the writes the seal refused, for the executor to hand
// back (TakeRefused).
type sealed struct {
	mu      sync.Mutex
	refused []*secret.Error
}

func (c *Client) refuse(e *secret.Error) {
	c.sealed.mu.Lock()
	defer c.sealed.mu.Unlock()
	c.sealed.refused = append(c.sealed.refused, e)
}

// TakeRefused returns the writes this client refused because they held a
// secret (TB14) since it was last asked, and forgets them.
func (c *Client) TakeRefused() []*secret.Error {
	c.sealed.mu.Lock()
	defer c.sealed.mu.Unlock()
	out := c.sealed.refused
	c.sealed.refused = nil
	return out
}
