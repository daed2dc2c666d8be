package github

import (
	"errors"
	"fmt"
	"net/http"
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
