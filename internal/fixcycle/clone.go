package fixcycle

import (
	"cmp"
	"context"
	"errors"
	"os"
	"strings"

	"github.com/review-loop/review-loop/internal/git"
)

// This file makes the checkout of a run that started with none: one
// commit of one branch, in a directory of its own.

// CloneURL is a repository's HTTPS clone URL on the GitHub server, without
// credentials: the token goes in git's HTTP header only.
func CloneURL(server, owner, repo string) string {
	server = cmp.Or(strings.TrimSuffix(server, "/"), "https://github.com")
	return server + "/" + owner + "/" + repo + ".git"
}

// Clone checks out branch of url, one commit deep, into a new directory
// under tmp (the system's temporary directory when ""), never into a
// workspace other steps may have written to, and returns it. g's Dir is
// set to it. A clone that fails leaves no directory behind.
func Clone(ctx context.Context, g *git.Runner, url, branch, token, tmp string) (string, error) {
	dir, err := os.MkdirTemp(cmp.Or(tmp, os.TempDir()), "review-loop-checkout-")
	if err != nil {
		return "", err
	}
	g.Dir = dir
	if err := g.CloneShallow(ctx, url, branch, token); err != nil {
		return "", errors.Join(err, os.RemoveAll(dir))
	}
	return dir, nil
}
