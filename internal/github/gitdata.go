package github

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// This file is the Git database API: what the push path (internal/push)
// makes a fix commit with, so that no git process ever holds the push
// token (TB13).

// TreeEntry is one entry of a Git tree: a path relative to the tree, its
// mode (100644, 100755, 120000, 040000, 160000), type (blob, tree,
// commit) and object SHA. An entry with an empty SHA given to CreateTree
// removes the path.
type TreeEntry struct {
	Path, Mode, Type, SHA string
}

// CommitTree is the SHA of the tree of commit sha.
// https://docs.github.com/en/rest/git/commits#get-a-commit-object
func (c *Client) CommitTree(ctx context.Context, owner, repo, sha string) (string, error) {
	cm, resp, err := c.rest.Git.GetCommit(ctx, owner, repo, sha)
	if err != nil {
		return "", fmt.Errorf("reading commit %s of %s/%s: %w", sha, owner, repo, restErr("GET /repos/{owner}/{repo}/git/commits/{commit_sha}", resp, err))
	}
	if t := cm.GetTree().GetSHA(); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("reading commit %s of %s/%s: response field tree.sha: missing", sha, owner, repo)
}

// Tree lists one tree's own entries (not recursive).
// https://docs.github.com/en/rest/git/trees#get-a-tree
func (c *Client) Tree(ctx context.Context, owner, repo, sha string) ([]TreeEntry, error) {
	t, resp, err := c.rest.Git.GetTree(ctx, owner, repo, sha, false)
	if err != nil {
		return nil, fmt.Errorf("reading tree %s of %s/%s: %w", sha, owner, repo, restErr("GET /repos/{owner}/{repo}/git/trees/{tree_sha}", resp, err))
	}
	if t.GetTruncated() {
		// A single level is truncated only past GitHub's entry limit.
		return nil, fmt.Errorf("reading tree %s of %s/%s: GitHub truncated the listing", sha, owner, repo)
	}
	out := make([]TreeEntry, 0, len(t.Entries))
	for _, e := range t.Entries {
		out = append(out, TreeEntry{Path: e.GetPath(), Mode: e.GetMode(), Type: e.GetType(), SHA: e.GetSHA()})
	}
	return out, nil
}

// CreateBlob stores content as a blob and returns its SHA.
// https://docs.github.com/en/rest/git/blobs#create-a-blob — base64, so
// any bytes go through unchanged.
func (c *Client) CreateBlob(ctx context.Context, owner, repo string, content []byte) (string, error) {
	b, resp, err := c.rest.Git.CreateBlob(ctx, owner, repo, &gh.Blob{Content: gh.String(base64.StdEncoding.EncodeToString(content)), Encoding: gh.String("base64")})
	if err != nil {
		return "", fmt.Errorf("creating a blob in %s/%s: %w", owner, repo, restErr("POST /repos/{owner}/{repo}/git/blobs", resp, err))
	}
	return b.GetSHA(), nil
}

// CreateTree makes base with entries set (an entry without SHA removed)
// and returns the new tree's SHA.
// https://docs.github.com/en/rest/git/trees#create-a-tree
func (c *Client) CreateTree(ctx context.Context, owner, repo, base string, entries []TreeEntry) (string, error) {
	list := make([]*gh.TreeEntry, 0, len(entries))
	for _, e := range entries {
		te := &gh.TreeEntry{Path: gh.String(e.Path), Mode: gh.String(e.Mode), Type: gh.String(e.Type)}
		if e.SHA != "" {
			te.SHA = gh.String(e.SHA)
		}
		// go-github sends "sha": null for an entry with neither SHA nor
		// content: GitHub removes the path.
		list = append(list, te)
	}
	t, resp, err := c.rest.Git.CreateTree(ctx, owner, repo, base, list)
	if err != nil {
		return "", fmt.Errorf("creating a tree in %s/%s: %w", owner, repo, restErr("POST /repos/{owner}/{repo}/git/trees", resp, err))
	}
	return t.GetSHA(), nil
}

// NewCommit is a commit to create: its message, tree and parent, and an
// author (and committer) when one is configured. Without one the commit
// is the token's own, which GitHub signs for a GitHub App or
// github-actions[bot] token.
type NewCommit struct {
	Message, Tree, Parent string
	AuthorName            string
	AuthorEmail           string
}

// CreatedCommit is a commit GitHub made: its SHA and whether GitHub
// reports its signature verified.
type CreatedCommit struct {
	SHA      string
	Verified bool
}

// CreateCommit creates a commit object (no branch moves).
// https://docs.github.com/en/rest/git/commits#create-a-commit — GitHub
// signs a bot's commit only when the request names no author, committer
// or signature ("About commit signature verification", bots).
func (c *Client) CreateCommit(ctx context.Context, owner, repo string, nc NewCommit) (CreatedCommit, error) {
	in := &gh.Commit{Message: gh.String(nc.Message), Tree: &gh.Tree{SHA: gh.String(nc.Tree)}, Parents: []*gh.Commit{{SHA: gh.String(nc.Parent)}}}
	if nc.AuthorName != "" && nc.AuthorEmail != "" {
		who := &gh.CommitAuthor{Name: gh.String(nc.AuthorName), Email: gh.String(nc.AuthorEmail)}
		in.Author, in.Committer = who, who
	}
	cm, resp, err := c.rest.Git.CreateCommit(ctx, owner, repo, in, nil)
	if err != nil {
		return CreatedCommit{}, fmt.Errorf("creating a commit in %s/%s: %w", owner, repo, restErr("POST /repos/{owner}/{repo}/git/commits", resp, err))
	}
	return CreatedCommit{SHA: cm.GetSHA(), Verified: cm.GetVerification().GetVerified()}, nil
}

// ErrNotFastForward is a branch update GitHub refused because the branch
// no longer is the new commit's ancestor: someone pushed.
var ErrNotFastForward = fmt.Errorf("the branch moved: the update is not a fast-forward")

// FastForward moves branch to sha, never forced: GitHub refuses unless
// the branch's tip is an ancestor of sha (ErrNotFastForward). Another
// refusal (a protected branch, a ruleset) is an *APIError with GitHub's
// words.
// https://docs.github.com/en/rest/git/refs#update-a-reference
func (c *Client) FastForward(ctx context.Context, owner, repo, branch, sha string) error {
	_, resp, err := c.rest.Git.UpdateRef(ctx, owner, repo, &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: gh.String(sha)}}, false)
	if err == nil {
		return nil
	}
	e := restErr("PATCH /repos/{owner}/{repo}/git/refs/{ref}", resp, err)
	if ae, ok := e.(*APIError); ok && ae.Status == 422 && strings.Contains(strings.ToLower(ae.Message), "fast forward") {
		return fmt.Errorf("moving %s of %s/%s: %w: %w", branch, owner, repo, ErrNotFastForward, e)
	}
	return fmt.Errorf("moving %s of %s/%s: %w", branch, owner, repo, e)
}
