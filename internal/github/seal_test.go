package github_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/secret"
)

const sealKey = "sk-ant-api03-seal-test-key-7d1"

// TB14: every kind of write the client makes — a comment, an edit, a
// reply, an issue, a label, a check run, a dispatch, a GraphQL mutation —
// is refused when it holds a secret in any form: nothing reaches the
// wire, the error names the input and never the value, and the client
// hands the refusal to the executor (TakeRefused). A clean write passes.
// The seal is the client's outermost layer: remove it from github.New and
// every case fails.
func TestRule_TB14_NoWriteThatHoldsASecretLeavesTheClient(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *github.Options) {
		o.Secrets = secret.NewSet(secret.Named{Input: "anthropic-api-key", Value: sealKey}, secret.Named{Input: "github-token", Value: token})
	})
	ctx := context.Background()
	comment, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "a clean comment")
	if err != nil {
		t.Fatalf("a clean write was refused: %v", err)
	}
	forms := map[string]string{
		"raw":    "key: " + sealKey,
		"base64": base64.StdEncoding.EncodeToString([]byte("x" + sealKey)),
		"hex":    hex.EncodeToString([]byte(sealKey)),
		"url":    url.QueryEscape("k=" + sealKey + "&"),
	}
	writes := map[string]func(string) error{
		"comment": func(s string) error { _, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, s); return err },
		"edit":    func(s string) error { return e.c.UpdateIssueComment(ctx, "o", "r", comment.DatabaseID, s) },
		"reply":   func(s string) error { _, err := e.c.ReplyToReviewComment(ctx, "o", "r", e.pr, 1, s); return err },
		"issue":   func(s string) error { _, _, err := e.c.CreateIssue(ctx, "o", "r", "t", s, nil); return err },
		"label":   func(s string) error { return e.c.AddLabel(ctx, "o", "r", e.pr, s) },
		"check run": func(s string) error {
			_, err := e.c.CreateCheckRun(ctx, "o", "r", github.CheckRunWrite{Name: "review-loop", HeadSHA: strings.Repeat("a", 40), Status: "in_progress", Title: "t", Summary: s})
			return err
		},
		"dispatch": func(s string) error {
			return e.c.DispatchWorkflow(ctx, "o", "r", "w.yml", "main", map[string]any{"pr": s})
		},
		"mutation": func(s string) error { _, err := e.c.ResolveThreads(ctx, []string{s}); return err },
		"token in a comment": func(string) error {
			_, err := e.c.CreateIssueComment(ctx, "o", "r", e.pr, "Bearer "+token)
			return err
		},
	}
	sent := len(e.rec.exchanges())
	for wname, w := range writes {
		for fname, f := range forms {
			err := w(f)
			var se *secret.Error
			if !errors.As(err, &se) {
				t.Errorf("%s, %s: err = %v, want a refusal", wname, fname, err)
				continue
			}
			want := "anthropic-api-key"
			if wname == "token in a comment" {
				want = "github-token"
			}
			if se.Input != want || strings.Contains(se.Error(), sealKey) || strings.Contains(se.Error(), token) {
				t.Errorf("%s, %s: %v, want a refusal naming %s and no value", wname, fname, err, want)
			}
		}
	}
	if n := len(e.rec.exchanges()) - sent; n != 0 {
		t.Errorf("%d refused requests reached the wire", n)
	}
	if got, want := len(e.c.TakeRefused()), len(writes)*len(forms); got != want {
		t.Errorf("TakeRefused gave %d refusals, want %d", got, want)
	}
	if got := e.c.TakeRefused(); len(got) != 0 {
		t.Errorf("TakeRefused gave %d refusals again", len(got))
	}
}

// TB14: a client built without a secret set still never sends its own
// token in a request's body.
func TestRule_TB14_AClientNeverWritesItsOwnToken(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	_, err := e.c.CreateIssueComment(context.Background(), "o", "r", e.pr, "token: "+token)
	var se *secret.Error
	if !errors.As(err, &se) || se.Input != "the client's token" {
		t.Fatalf("err = %v, want a refusal naming the client's token", err)
	}
}
