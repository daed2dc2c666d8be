package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/loop"
)

// refusal reports whether err is B5 refusing the cycle's commit or push:
// our guard's refusal (the API says the branch is protected or is the
// default branch), or the remote's (GitHub answers a push to a protected
// branch with "GH006: Protected branch update failed"). An outside push
// (W3) or a failed push is no refusal: it stays an error.
func refusal(err error) (string, bool) {
	var re *git.RefusedError
	if errors.As(err, &re) && re.Rule == "B5" {
		return re.Error(), true
	}
	var pe *git.PushError
	if errors.As(err, &pe) && pe.Rejected && (strings.Contains(pe.Output, "GH006") || strings.Contains(strings.ToLower(pe.Output), "protected branch")) {
		return fmt.Sprintf("refused (B5): the remote refused the push to protected branch %q", pe.Branch), true
	}
	return "", false
}

// refused hands the PR back in this cycle after a B5 refusal (H9): the
// fixes stay unpushed, the rows are marked refused, the run warns and
// exits successfully, and the status comment is final.
func (c *prCycle) refused(why string) {
	c.plan, c.st = loop.RecordRefusal(c.st, c.plan, why, c.Now())
	c.res.Plan = c.plan
	c.gha.Warningf("review-loop: PR #%d: %s; the cycle's fixes were not pushed and the PR is handed back", c.number, why)
}
