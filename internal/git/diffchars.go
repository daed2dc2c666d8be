package git

import (
	"context"
	"fmt"
	"strings"
)

// DiffChars counts the characters of the diff a pull request from base
// to head shows (`git diff base...head`: from their merge base), streaming
// it through a counter so the diff is never held in memory (CV6). Both
// commits must be in the checkout with enough history for their merge
// base; otherwise it fails and says which is missing. The count is one
// git run; the runs that find out what is missing happen only after it
// failed (C1). Commits are SHAs or names without a dot, so that
// base...head names the two and nothing else.
func (r *Runner) DiffChars(ctx context.Context, base, head string) (int, error) {
	for _, c := range []string{base, head} {
		if c == "" || strings.HasPrefix(c, "-") || strings.Contains(c, ".") {
			return 0, fmt.Errorf("git diff: invalid commit %q", c)
		}
	}
	var n charCounter
	_, err := r.exec(ctx, execOpts{dir: r.Dir, stdout: &n}, "diff", "--no-color", "--no-ext-diff", base+"..."+head, "--")
	if err == nil {
		return int(n), nil
	}
	if ctx.Err() != nil {
		return 0, err
	}
	for _, c := range []string{base, head} {
		if _, cerr := r.Run(ctx, "cat-file", "-e", c+"^{commit}"); cerr != nil {
			return 0, fmt.Errorf("commit %s is not in the checkout: %w", c, cerr)
		}
	}
	if _, merr := r.Run(ctx, "merge-base", base, head); merr != nil {
		return 0, fmt.Errorf("no merge base of %s and %s in the checkout (shallow?): %w", base, head, merr)
	}
	return 0, err
}

// charCounter counts the UTF-8 characters written to it: every byte that
// does not continue a multi-byte sequence.
type charCounter int

func (c *charCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b&0xC0 != 0x80 {
			*c++
		}
	}
	return len(p), nil
}
