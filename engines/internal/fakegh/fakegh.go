// Package fakegh is a small in-memory implementation of engines.GitHub for
// trigger tests: it records every call and can be told to fail.
package fakegh

import (
	"context"
	"sync"

	"github.com/review-loop/review-loop/internal/github"
)

// Call is one recorded call.
type Call struct {
	Method string
	Owner  string
	Repo   string
	Number int
	Body   string
	Logins []string
}

// GitHub records calls; the Err fields make the matching method fail.
type GitHub struct {
	mu                                   sync.Mutex
	Calls                                []Call
	NextID                               int64
	ErrComment, ErrCopilot, ErrReviewers error
}

// CreateIssueComment records the comment and returns it with a new id.
func (g *GitHub) CreateIssueComment(_ context.Context, owner, repo string, number int, body string) (github.IssueComment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Calls = append(g.Calls, Call{Method: "CreateIssueComment", Owner: owner, Repo: repo, Number: number, Body: body})
	if g.ErrComment != nil {
		return github.IssueComment{}, g.ErrComment
	}
	g.NextID++
	return github.IssueComment{DatabaseID: 1000 + g.NextID, Body: body}, nil
}

// RequestCopilotReview records the request.
func (g *GitHub) RequestCopilotReview(_ context.Context, owner, repo string, number int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Calls = append(g.Calls, Call{Method: "RequestCopilotReview", Owner: owner, Repo: repo, Number: number})
	return g.ErrCopilot
}

// RequestReviewers records the request.
func (g *GitHub) RequestReviewers(_ context.Context, owner, repo string, number int, logins []string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Calls = append(g.Calls, Call{Method: "RequestReviewers", Owner: owner, Repo: repo, Number: number, Logins: logins})
	return g.ErrReviewers
}
