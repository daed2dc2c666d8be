package github

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// APIError is a failed GitHub call: REST status or GraphQL error, named by
// the operation that made it (a REST route or a GraphQL root field).
type APIError struct {
	Op      string // "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", "resolveReviewThread", ...
	Status  int    // HTTP status; GraphQL errors map FORBIDDEN to 403, NOT_FOUND to 404
	Message string
	// RetryAfter is set when GitHub asked us to wait longer than the
	// client's MaxRateLimitWait (secondary or primary rate limit).
	RetryAfter time.Duration
}

// Error reports the operation, the status and GitHub's message.
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.Status == 0 {
		return fmt.Sprintf("%s: %s", e.Op, msg)
	}
	return fmt.Sprintf("%s: %d %s", e.Op, e.Status, msg)
}

// permissionMessage is GitHub's answer when GITHUB_TOKEN lacks a permission.
const permissionMessage = "Resource not accessible by integration"

// IsPermission reports whether err is GitHub refusing the token (401, 403
// that is not a rate limit, or "Resource not accessible by integration").
func IsPermission(err error) bool {
	var e *APIError
	if !errors.As(err, &e) {
		return false
	}
	if strings.Contains(e.Message, permissionMessage) {
		return true
	}
	return (e.Status == http.StatusForbidden || e.Status == http.StatusUnauthorized) && !isRateLimitMessage(e)
}

// IsNotFound reports whether err is a 404 or a GraphQL NOT_FOUND.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// IsConflict reports whether err is a 409 (or 412) conflict.
func IsConflict(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.Status == http.StatusConflict || e.Status == http.StatusPreconditionFailed)
}

// IsRateLimited reports whether err is a rate limit the client did not wait
// out because the wait was above MaxRateLimitWait.
func IsRateLimited(err error) bool {
	var e *APIError
	return errors.As(err, &e) && isRateLimitMessage(e)
}

func isRateLimitMessage(e *APIError) bool {
	return e.RetryAfter > 0 || e.Status == http.StatusTooManyRequests ||
		strings.Contains(strings.ToLower(e.Message), "rate limit")
}

// ErrEditConflict is returned by callers that detect a concurrent edit of a
// comment between their read and their write (the optimistic-write check).
var ErrEditConflict = errors.New("comment changed since it was read")

// NetworkError is GitHub not reached at all: a name that does not
// resolve, a refused or reset connection, a proxy that fails, a timeout.
// The token was never looked at, so the fix is the network, never the
// token.
type NetworkError struct {
	Host string // the host that was not reached, when known
	Err  error  // the cause, as the resolver or the dialer said it
}

// Error names the host and the cause in one line.
func (e *NetworkError) Error() string {
	if e.Host == "" {
		return "cannot reach GitHub: " + e.Err.Error()
	}
	return "cannot reach " + e.Host + ": " + e.Err.Error()
}

// Unwrap is the cause.
func (e *NetworkError) Unwrap() error { return e.Err }

// AsNetwork returns err as a NetworkError when GitHub was not reached: a
// DNS failure, a dial, read or proxy failure, or a timeout. Any answer
// from a server (401, 403, 5xx) is not one.
func AsNetwork(err error) (*NetworkError, bool) {
	if err == nil {
		return nil, false
	}
	var ne *NetworkError
	if errors.As(err, &ne) {
		return ne, true
	}
	host := ""
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return &NetworkError{Host: cmpOr(host, dns.Name), Err: fmt.Errorf("the name %s does not resolve (%s)", dns.Name, cmpOr(dns.Err, "no such host"))}, true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return &NetworkError{Host: host, Err: op}, true
	}
	if ue != nil && ue.Timeout() {
		return &NetworkError{Host: host, Err: ue.Err}, true
	}
	return nil, false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// IsUnauthorized reports whether GitHub refused the token itself (401:
// unknown, expired or revoked), as opposed to a token it knows that may
// not do this (403).
func IsUnauthorized(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusUnauthorized
}
