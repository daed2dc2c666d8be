package observe

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
)

// This file reads the size of the PR's diff in characters (CV6), from the
// checkout or from GitHub within GitHub's own diff limits.

// GitHub's own limits on a pull request diff it serves: over them it
// refuses (406 too_large), it never truncates (internal/ghfake mirrors
// them). The line limit counts the diff's own lines, which are never
// fewer than the lines added and deleted.
const (
	githubDiffMaxFiles = 300
	githubDiffMaxLines = 20_000
)

// HasCheckout reports whether dir holds a git repository (a .git
// directory, or the .git file of a worktree).
func HasCheckout(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// ChangedChars reads the size in characters of the diff of PR number as
// observed in obs (CV6), 0 when it cannot be known: from the checkout g
// runs in when it holds the base and the head (no request), else from
// GitHub's diff (one request), not asked at all when GitHub would refuse
// it. Unknown leaves the character limit unapplied: the engine is awaited
// as any other, and its own "skipped" notice, if it posts one, is read as
// such (S7). Whether the count is needed at all is loop.NeedsDiffChars.
func ChangedChars(ctx context.Context, gh *github.Client, g *git.Runner, owner, repo string, number int, obs *github.Observation, log *slog.Logger) int {
	if HasCheckout(g.Dir) && obs.BaseSHA != "" {
		n, err := g.DiffChars(ctx, obs.BaseSHA, obs.HeadSHA)
		if err == nil {
			log.Info("counted the diff's characters in the checkout (CV6)", "chars", n)
			return n
		}
		log.Debug("the checkout cannot count the diff (CV6); asking GitHub", "err", err)
	}
	if obs.ChangedFiles > githubDiffMaxFiles || obs.Additions+obs.Deletions > githubDiffMaxLines {
		log.Info("the diff's size in characters is unknown: GitHub serves no diff over 300 files or 20,000 lines and the checkout holds no base; no character limit applied (CV6)",
			"files", obs.ChangedFiles, "lines", obs.Additions+obs.Deletions)
		return 0
	}
	n, err := gh.PullDiffChars(ctx, owner, repo, number)
	switch {
	case errors.Is(err, github.ErrDiffTooLarge):
		log.Info("the diff's size in characters is unknown: GitHub refused the diff as too large; no character limit applied (CV6)", "err", err)
		return 0
	case err != nil:
		log.Warn("reading the diff's size in characters (CV6)", "err", err)
		return 0
	}
	log.Info("counted the diff's characters (CV6)", "chars", n)
	return n
}
