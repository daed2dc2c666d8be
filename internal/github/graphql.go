package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// gqlError is one entry of a GraphQL "errors" array.
type gqlError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

// gqlCall records what came back for one GraphQL request so failures can
// be turned into typed errors (githubv4 reports only the first message).
type gqlCall struct {
	status  int
	body    []byte
	errs    []gqlError
	retryIn string
}

const gqlKey ctxKey = 2

// gqlTransport is the outermost layer for GraphQL calls: it keeps the HTTP
// status and the "errors" array of the response for gqlErr.
type gqlTransport struct{ base http.RoundTripper }

func (t gqlTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	rec, _ := r.Context().Value(gqlKey).(*gqlCall)
	if err != nil || rec == nil {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if rerr != nil {
		return nil, rerr
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rec.status = resp.StatusCode
	rec.body = body
	rec.retryIn = resp.Header.Get("Retry-After")
	var out struct {
		Errors []gqlError `json:"errors"`
	}
	if json.Unmarshal(body, &out) == nil {
		rec.errs = out.Errors
	}
	return resp, nil
}

// gqlContext marks ctx as one GraphQL call named op.
func gqlContext(ctx context.Context, op string, read bool) (context.Context, *gqlCall) {
	rec := &gqlCall{}
	ctx = withCall(ctx, op, read)
	return context.WithValue(ctx, gqlKey, rec), rec
}

// gqlErr turns what githubv4 (or our own poster) returned into a typed
// error when GitHub said why.
func gqlErr(op string, rec *gqlCall, err error) error {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return err
	}
	if rec.status != 0 && rec.status != http.StatusOK {
		msg := strings.TrimSpace(string(rec.body))
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(rec.body, &m) == nil && m.Message != "" {
			msg = m.Message
		}
		return &APIError{Op: op, Status: rec.status, Message: msg}
	}
	if len(rec.errs) > 0 {
		return gqlErrors(op, rec.errs)
	}
	if rec.status == http.StatusOK {
		return fmt.Errorf("%s: decoding response: %w", op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

func gqlErrors(op string, errs []gqlError) *APIError {
	e := &APIError{Op: op}
	msgs := make([]string, 0, len(errs))
	for _, g := range errs {
		msgs = append(msgs, g.Message)
		switch {
		case g.Type == "FORBIDDEN" || strings.Contains(g.Message, permissionMessage):
			e.Status = http.StatusForbidden
		case g.Type == "NOT_FOUND" && e.Status == 0:
			e.Status = http.StatusNotFound
		case g.Type == "RATE_LIMITED" && e.Status == 0:
			e.Status = http.StatusTooManyRequests
		}
	}
	e.Message = strings.Join(msgs, "; ")
	return e
}

// rawGraphQL posts a hand-written document through the same transport
// (used where githubv4 cannot express the operation, e.g. dynamic aliases).
// It returns the data object and the GraphQL errors, if any.
func (c *Client) rawGraphQL(ctx context.Context, op string, read bool, doc string, vars map[string]any) (json.RawMessage, []gqlError, error) {
	ctx, rec := gqlContext(ctx, op, read)
	payload, err := json.Marshal(map[string]any{"query": doc, "variables": vars})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: encoding request: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.gqlURL, bytes.NewReader(payload))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading response: %w", op, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, gqlErr(op, rec, errors.New(resp.Status))
	}
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, nil, fmt.Errorf("%s: decoding response: %w", op, err)
	}
	return out.Data, out.Errors, nil
}
