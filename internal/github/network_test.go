package github

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// TestAsNetwork_OnlyGitHubNotReachedIsTheNetwork: a name that does not
// resolve, a refused connection, a proxy that fails and a timeout are the
// network's; an answer of GitHub (401, 403, 404, 5xx) and a cancelled
// run are not.
func TestAsNetwork_OnlyGitHubNotReachedIsTheNetwork(t *testing.T) {
	t.Parallel()
	dns := &url.Error{Op: "Post", URL: "https://api.example.invalid/graphql", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}}}
	refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:9/repos/o/r", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errors.New("connection refused"))}}
	proxy := &url.Error{Op: "Get", URL: "https://api.github.com/x", Err: &net.OpError{Op: "proxyconnect", Net: "tcp", Err: errors.New("connection refused")}}
	timeout := &url.Error{Op: "Get", URL: "https://api.github.com/x", Err: timeoutErr{}}
	for _, tc := range []struct {
		name string
		err  error
		host string
	}{
		{"a name that does not resolve", fmt.Errorf("reading workflow files: %w", dns), "api.example.invalid"},
		{"a refused connection", fmt.Errorf("observe: %w", refused), "127.0.0.1:9"},
		{"a proxy that fails", proxy, "api.github.com"},
		{"a timeout", timeout, "api.github.com"},
	} {
		ne, ok := AsNetwork(tc.err)
		if !ok || ne.Host != tc.host || !strings.HasPrefix(ne.Error(), "cannot reach "+tc.host+": ") {
			t.Errorf("%s: %v, %v; want a network error naming %s", tc.name, ne, ok, tc.host)
		}
	}
	for _, err := range []error{
		&APIError{Op: "observe", Status: http.StatusUnauthorized, Message: "Bad credentials"},
		&APIError{Op: "observe", Status: http.StatusForbidden},
		&APIError{Op: "observe", Status: http.StatusBadGateway},
		&url.Error{Op: "Get", URL: "https://api.github.com/x", Err: context.Canceled},
		errors.New("decoding response"),
		nil,
	} {
		if ne, ok := AsNetwork(err); ok {
			t.Errorf("%v taken for the network: %v", err, ne)
		}
	}
	if !IsUnauthorized(fmt.Errorf("x: %w", &APIError{Status: http.StatusUnauthorized})) || IsUnauthorized(&APIError{Status: http.StatusForbidden}) {
		t.Error("IsUnauthorized is 401 only")
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
