package state

import (
	"fmt"
	"maps"
	"slices"
)

// MaxReviewTimes is how many of an engine's latest times to review a
// loop keeps (EQ1): the scorecard is a fixed size per engine, whatever
// the number of findings and reviews (R1).
const MaxReviewTimes = 8

// Score is one engine's scorecard in one loop (EQ1): the fate of each
// finding it raised, its latest times to review, and its quota hits.
// Every field is a count or a bounded list, so the state holds a fixed
// size per engine. Billed reviews are the cost ledger's (Ledger).
type Score struct {
	// Raised counts the distinct findings of the engine the loop triaged.
	Raised int `json:"raised,omitempty"`
	// The fate of each raised finding, its latest outcome: fixed,
	// declined (the fixer disagreed with it), won't-fix (a maintainer
	// skipped it, or it came back after a won't-fix decision), reverted
	// (the fix was undone), stale (outdated before it was fixed) and
	// escalated (handed to a person).
	Fixed     int `json:"fixed,omitempty"`
	Declined  int `json:"declined,omitempty"`
	WontFix   int `json:"wont_fix,omitempty"`
	Reverted  int `json:"reverted,omitempty"`
	Stale     int `json:"stale,omitempty"`
	Escalated int `json:"escalated,omitempty"`
	// Induced counts findings (of any engine) raised on lines a fix of
	// this engine's findings changed (CV1): fixes its advice led to that
	// drew new findings.
	Induced int `json:"induced,omitempty"`
	// Quota counts the engine's usage, rate-limit or quota notices (T8).
	Quota int `json:"quota,omitempty"`
	// ReviewSecs are the latest times to review, in seconds, from the
	// push or trigger of a head to the engine's review of it; at most
	// MaxReviewTimes, oldest first.
	ReviewSecs []int64 `json:"review_secs,omitempty"`
}

func cloneScores(m map[string]Score) map[string]Score {
	if m == nil {
		return nil
	}
	c := maps.Clone(m)
	for e, sc := range c {
		sc.ReviewSecs = slices.Clone(sc.ReviewSecs)
		c[e] = sc
	}
	return c
}

func validateScores(m map[string]Score) []error {
	var errs []error
	for _, e := range slices.Sorted(maps.Keys(m)) {
		sc := m[e]
		for _, c := range []counter{
			{"raised", int64(sc.Raised)}, {"fixed", int64(sc.Fixed)}, {"declined", int64(sc.Declined)},
			{"wont_fix", int64(sc.WontFix)}, {"reverted", int64(sc.Reverted)}, {"stale", int64(sc.Stale)},
			{"escalated", int64(sc.Escalated)}, {"induced", int64(sc.Induced)}, {"quota", int64(sc.Quota)},
		} {
			if c.v < 0 {
				errs = append(errs, fmt.Errorf("state: scores[%s].%s: is negative (%d)", e, c.name, c.v))
			}
		}
		if len(sc.ReviewSecs) > MaxReviewTimes {
			errs = append(errs, fmt.Errorf("state: scores[%s].review_secs: holds %d times, at most %d", e, len(sc.ReviewSecs), MaxReviewTimes))
		}
		for i, s := range sc.ReviewSecs {
			if s < 0 {
				errs = append(errs, fmt.Errorf("state: scores[%s].review_secs[%d]: is negative (%d)", e, i, s))
			}
		}
	}
	return errs
}
