package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// Comparison is GitHub's compare of two commits, as the convergence rules
// read it (CV4, CV5).
type Comparison struct {
	// Status is ahead, identical, behind or diverged: head against base.
	Status  string
	Commits []ComparedCommit
	// Files are the paths that differ between the merge base and head.
	Files []string
	// Missing counts the commits GitHub has between base and head that
	// the answer does not list (it lists at most one page); 0 when it
	// lists them all.
	Missing int
}

// ComparedCommit is one commit between base and head. Files are filled
// when the comparison holds this one commit only: the compare's files are
// then exactly its changes.
type ComparedCommit struct {
	SHA         string
	Message     string
	AuthorLogin string // the account GitHub attributes the commit to; "" when none
	AuthorEmail string
	Parent      string // its first parent
	Files       []ComparedFile
}

// ComparedFile is a file's patch (hunks without file headers).
type ComparedFile struct {
	Path  string
	Patch string
}

// Compare reads the commits from base to head and how head relates to
// base, in one request.
// https://docs.github.com/en/rest/commits/commits#compare-two-commits
func (c *Client) Compare(ctx context.Context, owner, repo, base, head string) (*Comparison, error) {
	cmp, resp, err := c.rest.Repositories.CompareCommits(ctx, owner, repo, base, head, &gh.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("comparing %s...%s of %s/%s: %w", shortRef(base), shortRef(head), owner, repo, restErr("GET /repos/{owner}/{repo}/compare/{basehead}", resp, err))
	}
	if cmp.Status == nil {
		return nil, fmt.Errorf("comparing %s...%s of %s/%s: response field status: missing", shortRef(base), shortRef(head), owner, repo)
	}
	out := &Comparison{Status: cmp.GetStatus()}
	for _, rc := range cmp.Commits {
		cc := ComparedCommit{SHA: rc.GetSHA(), Message: rc.GetCommit().GetMessage(), AuthorLogin: rc.GetAuthor().GetLogin(),
			AuthorEmail: rc.GetCommit().GetAuthor().GetEmail()}
		if len(rc.Parents) > 0 {
			cc.Parent = rc.Parents[0].GetSHA()
		}
		out.Commits = append(out.Commits, cc)
	}
	for _, f := range cmp.Files {
		out.Files = append(out.Files, f.GetFilename())
	}
	if n := cmp.GetTotalCommits(); n > len(out.Commits) {
		out.Missing = n - len(out.Commits)
	}
	if len(out.Commits) == 1 {
		for _, f := range cmp.Files {
			out.Commits[0].Files = append(out.Commits[0].Files, ComparedFile{Path: f.GetFilename(), Patch: f.GetPatch()})
		}
	}
	return out, nil
}

func shortRef(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
