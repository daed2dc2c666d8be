package prepared

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/report"
)

// This file is the publish job's side of the hand-over: it finds the
// prepare job's artifact for one PR and checks it against the publish
// job's own plan (TB10).

// ErrStale means the PR or the loop moved between the prepare and the
// publish job: publish acts on nothing it did not prepare for, and the
// next run redoes the cycle.
var ErrStale = errors.New("the prepared cycle no longer matches the PR")

// Load reads and checks the prepare job's artifact in dir for pull
// request number of repo (owner/name); nil and no error when the prepare
// job wrote none for it.
func Load(dir, repo string, number int) (*Decisions, []byte, error) {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	d, patch, err := Read(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("refusing the prepared artifact for PR #%d: %w", number, err)
	}
	if d.PR != number || d.Repo != repo {
		return nil, nil, fmt.Errorf("refusing the prepared artifact in %s: it is for %s#%d, not %s#%d", dir, d.Repo, d.PR, repo, number)
	}
	return &d, patch, nil
}

// Match compares the publish job's own decision with the prepare job's:
// the same head, the same action and, when the prepare job wrote them
// down, the same kinds of effects in the same order. It trusts nothing
// else the prepare job says of its plan.
func (d Decisions) Match(head, action string, effects []string) error {
	if d.HeadSHA != head {
		return fmt.Errorf("%w: prepared for head %s, the PR head is %s", ErrStale, short(d.HeadSHA), short(head))
	}
	if d.Withheld != nil {
		return nil // the publish job hands the PR back whatever else it plans
	}
	if d.Action != action {
		return fmt.Errorf("%w: prepared a %s, this run decides %s", ErrStale, d.Action, action)
	}
	if d.Effects != nil && !slices.Equal(d.Effects, effects) {
		return fmt.Errorf("%w: prepared the effects %s, this run plans %s", ErrStale,
			report.Plain(strings.Join(d.Effects, ", "), MaxText), strings.Join(effects, ", "))
	}
	return nil
}

func short(sha string) string { return sha[:min(len(sha), 7)] }
