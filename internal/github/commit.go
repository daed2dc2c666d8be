package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// CommitFiles reads the files one commit changed against its parent, each
// with its patch (CV1, CV5: the lines an engine fixer's commit replaced),
// in one request (the first page: up to 300 files).
// https://docs.github.com/en/rest/commits/commits#get-a-commit
func (c *Client) CommitFiles(ctx context.Context, owner, repo, sha string) ([]ComparedFile, error) {
	rc, resp, err := c.rest.Repositories.GetCommit(ctx, owner, repo, sha, &gh.ListOptions{PerPage: 300})
	if err != nil {
		return nil, fmt.Errorf("reading commit %s of %s/%s: %w", shortRef(sha), owner, repo, restErr("GET /repos/{owner}/{repo}/commits/{ref}", resp, err))
	}
	out := make([]ComparedFile, 0, len(rc.Files))
	for _, f := range rc.Files {
		out = append(out, ComparedFile{Path: f.GetFilename(), Patch: f.GetPatch()})
	}
	return out, nil
}
