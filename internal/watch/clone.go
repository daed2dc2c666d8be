package watch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/review-loop/review-loop/internal/procenv"
)

// This file prepares where watch's fixes run: a worktree of the user's own
// clone of the repository (found from the current directory, or
// --repo-dir) at the PR head. The head is fetched by the user's git with
// the user's own git credentials; the token watch holds is not given to
// it. The worktree is the cycle's workspace, exactly as a checkout is the
// Action's; it is removed when watch ends.

// worktree is the checkout watch's cycles work in.
type worktree struct {
	top, dir string
	env      []string
}

// userGitEnv is the environment of the user's own git: procenv's
// allow-list (never a token), plus what an SSH remote needs.
func userGitEnv(environ []string) []string {
	env := procenv.Child(environ)
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); k == "SSH_AUTH_SOCK" || k == "GIT_SSH_COMMAND" || k == "GIT_SSH" {
			env = append(env, kv)
		}
	}
	return env
}

// gitIn runs the user's git in dir.
func gitIn(ctx context.Context, env []string, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(errOut.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// findClone finds the clone of owner/repo at or above dir: one of its
// remotes must name the repository.
func findClone(ctx context.Context, env []string, dir, owner, repo string) (top, remote string, err error) {
	top, err = gitIn(ctx, env, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", fmt.Errorf("%s is not in a clone of %s/%s: run watch in your clone, or pass --repo-dir", dir, owner, repo)
	}
	remotes, err := gitIn(ctx, env, top, "remote", "-v")
	if err != nil {
		return "", "", err
	}
	want := strings.ToLower(owner + "/" + repo)
	for _, l := range strings.Split(remotes, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		u := strings.TrimSuffix(strings.ToLower(f[1]), ".git")
		if strings.HasSuffix(u, "/"+want) || strings.HasSuffix(u, ":"+want) {
			return top, f[0], nil
		}
	}
	return "", "", fmt.Errorf("%s is a clone, but none of its remotes is %s/%s: pass --repo-dir with a clone of it", top, owner, repo)
}

// addWorktree fetches the PR head into the user's clone with the user's
// git and adds a detached worktree of it under tmp.
func addWorktree(ctx context.Context, environ []string, dir, owner, repo string, number int, h Head, tmp string) (*worktree, error) {
	env := userGitEnv(environ)
	top, remote, err := findClone(ctx, env, dir, owner, repo)
	if err != nil {
		return nil, err
	}
	if _, err := gitIn(ctx, env, top, "fetch", "--quiet", "--no-tags", remote, headRef(h, number)); err != nil {
		return nil, fmt.Errorf("fetching the PR head into %s: %w", top, err)
	}
	wt := filepath.Join(tmp, "worktree")
	if _, err := gitIn(ctx, env, top, "worktree", "add", "--quiet", "--detach", wt, h.SHA); err != nil {
		return nil, fmt.Errorf("adding a worktree of %s at %s: %w", top, short(h.SHA), err)
	}
	return &worktree{top: top, dir: wt, env: env}, nil
}

// headRef is what a fetch of the PR head from the base repository names:
// the head branch for a PR from the repository itself; refs/pull/<N>/head
// for a fork's, whose branch lives in the fork and which GitHub copies
// into the base repository under that name on every push.
func headRef(h Head, number int) string {
	if h.Fork || h.Ref == "" {
		return fmt.Sprintf("pull/%d/head", number)
	}
	return h.Ref
}

// remove removes the worktree; unpushed says what it holds that GitHub
// does not (a commit made and not pushed), "" when nothing.
func (w *worktree) remove(ctx context.Context, pushed string) (kept string) {
	if w == nil {
		return ""
	}
	head, _ := gitIn(ctx, w.env, w.dir, "rev-parse", "HEAD")
	if head != "" && pushed != "" && head != pushed {
		// A commit the cycle made and did not push: keep it, and say so.
		return fmt.Sprintf("the worktree %s keeps commit %s, which was not pushed", w.dir, short(head))
	}
	if _, err := gitIn(ctx, w.env, w.top, "worktree", "remove", "--force", w.dir); err != nil {
		_ = os.RemoveAll(w.dir)
		_, _ = gitIn(ctx, w.env, w.top, "worktree", "prune")
	}
	return ""
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
