package git

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// CloneShallow makes Dir, an existing directory that holds no repository,
// a checkout of one commit: the tip of branch at remote, fetched with
// depth 1 and checked out as the local branch of that name, origin set to
// remote. It is the checkout of a workflow with no checkout step, made
// only when a cycle needs the tree. The token authenticates the fetch as
// in FetchBranch and is never written to the repository's config; the
// remote URL must carry no credential. A clone that fails part-way leaves
// no repository behind.
func (r *Runner) CloneShallow(ctx context.Context, remote, branch, token string) error {
	if err := plainBranch(branch); err != nil {
		return err
	}
	if u, err := url.Parse(remote); err != nil || u.User != nil {
		return fmt.Errorf("clone URL %q: a URL without credentials is required", redactURL(remote))
	}
	gitDir := filepath.Join(r.Dir, ".git")
	if _, err := os.Lstat(gitDir); err == nil {
		return fmt.Errorf("%s already holds a repository", r.Dir)
	}
	if _, err := r.Run(ctx, "init", "-q"); err != nil {
		return err
	}
	err := r.cloneInto(ctx, remote, branch, token)
	if err != nil {
		if rmErr := os.RemoveAll(gitDir); rmErr != nil {
			err = errors.Join(err, rmErr)
		}
	}
	return err
}

func (r *Runner) cloneInto(ctx context.Context, remote, branch, token string) error {
	if _, err := r.Run(ctx, "remote", "add", "origin", remote); err != nil {
		return err
	}
	common, err := r.commonDir(ctx)
	if err != nil {
		return err
	}
	if err := r.fetchInto(ctx, common, remote, branch, token, true); err != nil {
		return err
	}
	_, err = r.Run(ctx, "checkout", "-q", "-B", branch, "refs/remotes/origin/"+branch)
	return err
}
