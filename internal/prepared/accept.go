package prepared

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/secret"
	"github.com/review-loop/review-loop/internal/triage"
)

// This file is the publish job's trust in the prepare job (TB10): none.
// It takes from the artifact only what the findings the publish job read
// from GitHub itself allow, and repeats no text of it unescaped.

// ErrOtherFindings means the prepare job fixed other findings than the
// ones the publish job plans to fix: the PR or the loop moved between the
// jobs.
var ErrOtherFindings = errors.New("the prepared fixes are for other findings")

// WithheldError is a prepared fix whose output held the secret of Input
// (TB14): the prepare job handed nothing of it over.
type WithheldError struct{ Input string }

func (e *WithheldError) Error() string {
	return secret.Reason(e.Input, "the prepare job's fix")
}

// Accepted is what the publish job takes from a prepared fix.
type Accepted struct {
	// Results are the prepare job's results, their texts escaped, a
	// finding reported fixed whose files the patch does not touch failed.
	Results []fix.Result
	// Files are the files the patch changes, each claimed by a finding.
	Files []string
	// Reverted is the prepare job's report of what it left out, bounded.
	Reverted []fix.Revert
	// NotTouched are findings reported fixed that the patch does not touch.
	NotTouched []string
}

// Accept checks a prepared fix against the findings todo the publish job
// read itself: the same findings, every changed file claimed by one it
// reports fixed (checkClaims), the patch valid for those files. A failed
// prepare job's error comes back escaped, with the escaped results.
func Accept(todo []loop.Finding, p *Fix, patch []byte) (Accepted, error) {
	var want, got []string
	for _, f := range todo {
		want = append(want, f.ID)
	}
	for _, r := range p.Results {
		got = append(got, r.ID)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return Accepted{}, fmt.Errorf("%w: prepared fixes for %v, this run fixes %v", ErrOtherFindings, got, want)
	}
	acc := Accepted{Results: Untrusted(p.Results)}
	if p.Withheld != "" {
		return acc, &WithheldError{Input: p.Withheld}
	}
	if p.Err != "" {
		return acc, fmt.Errorf("prepare job: %s", report.Plain(p.Err, MaxText))
	}
	files, notTouched, err := checkClaims(todo, acc.Results, p, patch)
	if err != nil {
		return Accepted{}, err
	}
	acc.Files, acc.NotTouched, acc.Reverted = files, notTouched, untrustedReverts(p.Reverted)
	return acc, nil
}

// Bounds on the prepare job's texts the publish job repeats (TB10).
const (
	// MaxReply bounds a reply posted as the bot.
	MaxReply = 1000
	// MaxText bounds a reason, a path or an error in the log and
	// on the status comment.
	MaxText = 300
	// maxReverts bounds the reverted paths reported.
	maxReverts = 50
)

// Untrusted returns the prepare job's results with every text it
// wrote escaped and cut like engine text (TB10): the publish job posts the
// replies as the bot, and nothing in them may render as markdown or HTML,
// mention anyone, issue a command or forge a state marker.
func Untrusted(in []fix.Result) []fix.Result {
	out := make([]fix.Result, len(in))
	for i, r := range in {
		r.Reason = report.Plain(r.Reason, MaxText)
		if r.Reply != "" {
			r.Reply = report.Escape(r.Reply, MaxReply)
		}
		r.Files = slices.Clone(r.Files)
		out[i] = r
	}
	return out
}

// untrustedReverts bounds the prepare job's report of what it left out.
func untrustedReverts(in []fix.Revert) []fix.Revert {
	var out []fix.Revert
	for _, r := range in {
		if len(out) == maxReverts {
			break
		}
		out = append(out, fix.Revert{Path: report.Plain(r.Path, MaxText), Why: report.Plain(r.Why, MaxText)})
	}
	return out
}

// checkClaims is TB10: the publish job takes from the prepare job only
// what the findings it read from GitHub itself allow. The patch may touch
// only files of findings the prepare job reports fixed, each allowed to be
// committed for that finding (fix.CommitRefusal); a finding reported fixed
// whose files the patch does not touch is failed here, in results. It
// returns the files the patch changes.
func checkClaims(todo []loop.Finding, results []fix.Result, p *Fix, patch []byte) (files, notTouched []string, err error) {
	byID := map[string]loop.Finding{}
	for _, f := range todo {
		byID[f.ID] = f
	}
	allowed := map[string]bool{}
	for _, r := range results {
		if r.Outcome != fix.OutcomeFixed {
			continue
		}
		f := byID[r.ID]
		for _, path := range triage.Files(f) {
			if fix.CommitRefusal(path, path == f.Path) == "" {
				allowed[path] = true
			}
		}
	}
	for _, path := range p.Changed {
		if !allowed[path] {
			why := "no finding the prepare job fixed names it"
			if r := fix.CommitRefusal(path, false); r != "" {
				why = r
			}
			return nil, nil, fmt.Errorf("refusing the prepared patch: it changes %s: %s; the publish job accepts changes only to the files of findings it read from GitHub (TB10)", report.Plain(path, MaxText), why)
		}
	}
	if p.Commit {
		if files, err = ValidatePatch(patch, slices.Sorted(maps.Keys(allowed)), DefaultLimits); err != nil {
			return nil, nil, fmt.Errorf("refusing the prepared patch: %w (TB10)", err)
		}
	}
	for i, r := range results {
		if r.Outcome != fix.OutcomeFixed {
			continue
		}
		var touched []string
		for _, path := range triage.Files(byID[r.ID]) {
			if slices.Contains(files, path) {
				touched = append(touched, path)
			}
		}
		if len(touched) == 0 {
			results[i].Outcome, results[i].Reason, results[i].Files = fix.OutcomeFailed, "reported fixed, but the prepared patch does not touch its files (TB10)", nil
			notTouched = append(notTouched, r.ID)
			continue
		}
		results[i].Files = touched
	}
	return files, notTouched, nil
}
