package action

import (
	"context"
	"errors"

	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/state"
)

// GitHub's own limits on a pull request diff it serves: over them it
// refuses (406 too_large), it never truncates (internal/ghfake mirrors
// them). The line limit counts the diff's own lines, which are never
// fewer than the lines added and deleted.
const (
	githubDiffMaxFiles = 300
	githubDiffMaxLines = 20_000
)

// changedChars is the size of the PR's diff in characters for CV6's
// character limits, 0 when nothing needs it or it cannot be known. Read
// at most once per cycle, and only when a selected engine declares a
// character limit its line limit does not already settle: from the
// checkout when it holds the base and the head (no request), else from
// GitHub's diff (one request), not asked at all when GitHub would refuse
// it. Unknown leaves the character limit unapplied: the engine is awaited
// as any other, and its own "skipped" notice, if it posts one, is read as
// such (S7).
func (c *prCycle) changedChars(ctx context.Context) int {
	if c.obs.DiffChars == nil {
		n, known := c.savedChangedChars()
		if !known {
			n = c.readChangedChars(ctx)
		}
		c.obs.DiffChars = &n
	}
	return *c.obs.DiffChars
}

// keepChangedChars saves the count read for this base and head with the
// decided state, so a wake on the same commits does not read it again.
func (c *prCycle) keepChangedChars() {
	if n := c.obs.DiffChars; n != nil && *n > 0 && c.obs.HeadSHA != "" {
		c.st.DiffChars = &state.DiffChars{Base: c.obs.BaseSHA, Head: c.obs.HeadSHA, Chars: *n}
	}
}

// savedChangedChars is the count a cycle on the same base and head saved.
func (c *prCycle) savedChangedChars() (int, bool) {
	d := c.st.DiffChars
	if d == nil || d.Head != c.obs.HeadSHA || d.Base != c.obs.BaseSHA || c.obs.HeadSHA == "" {
		return 0, false
	}
	return d.Chars, true
}

// needsChangedChars reports whether a selected, installed engine has a
// character limit that the line count does not already put it over.
func (c *prCycle) needsChangedChars() bool {
	lines := c.obs.Additions + c.obs.Deletions
	for _, v := range c.views {
		lim := c.loopCfg.EngineLimits[v.Engine]
		if !v.Installed || lim.Chars <= 0 {
			continue
		}
		if lim.Lines > 0 && lines > lim.Lines {
			continue // over its line limit already: too large either way
		}
		return true
	}
	return false
}

func (c *prCycle) readChangedChars(ctx context.Context) int {
	if !c.needsChangedChars() {
		return 0
	}
	if hasCheckout(c.cfg.Workspace) && c.obs.BaseSHA != "" {
		n, err := c.gitRunner().DiffChars(ctx, c.obs.BaseSHA, c.obs.HeadSHA)
		if err == nil {
			c.Log.Info("counted the diff's characters in the checkout (CV6)", "chars", n)
			return n
		}
		c.Log.Debug("the checkout cannot count the diff (CV6); asking GitHub", "err", err)
	}
	if c.obs.ChangedFiles > githubDiffMaxFiles || c.obs.Additions+c.obs.Deletions > githubDiffMaxLines {
		c.Log.Info("the diff's size in characters is unknown: GitHub serves no diff over 300 files or 20,000 lines and the checkout holds no base; no character limit applied (CV6)",
			"files", c.obs.ChangedFiles, "lines", c.obs.Additions+c.obs.Deletions)
		return 0
	}
	n, err := c.gh.PullDiffChars(ctx, c.owner, c.repo, c.number)
	switch {
	case errors.Is(err, github.ErrDiffTooLarge):
		c.Log.Info("the diff's size in characters is unknown: GitHub refused the diff as too large; no character limit applied (CV6)", "err", err)
		return 0
	case err != nil:
		c.Log.Warn("reading the diff's size in characters (CV6)", "err", err)
		return 0
	}
	c.Log.Info("counted the diff's characters (CV6)", "chars", n)
	return n
}
