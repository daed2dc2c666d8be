package fix

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/review-loop/review-loop/internal/loop"
)

// fileState is one file during a suggestions cycle: its content at the
// start of the cycle (HEAD, the tree being clean) and the edits kept so far
// in those line numbers, so later suggestions on the same file still land
// on the lines GitHub gave.
type fileState struct {
	head []byte
	kept []Edit
}

// suggestions is the deterministic provider: each finding's suggestion is
// checked against the commit it was written on, applied, tested, and kept
// or reverted (E1).
func (c *cycle) suggestions(ctx context.Context, findings []loop.Finding) error {
	state := map[string]*fileState{}
	for _, f := range findings {
		edit, st, res := c.planSuggestion(ctx, f, state)
		if res != nil {
			c.add(*res)
			continue
		}
		if k, ok := overlapping(st.kept, edit); ok {
			// The lines it was written against were just changed by another
			// fix: never apply it blindly to changed lines (TR6).
			c.add(Result{ID: f.ID, Outcome: OutcomeOutdated, Files: []string{f.Path},
				Reason: fmt.Sprintf("lines %d-%d were changed by a fix this cycle (lines %d-%d)", edit.StartLine, edit.EndLine, k.StartLine, k.EndLine),
				Reply:  outdatedReply(f, "another fix in this cycle changed the lines it targets")})
			continue
		}
		before, err := c.readFile(f.Path)
		if err != nil {
			return fmt.Errorf("%s: reading %s: %w", f.ID, f.Path, err)
		}
		after, err := ApplyEdits(st.head, append(slices.Clone(st.kept), edit))
		if err != nil {
			c.add(Result{ID: f.ID, Outcome: OutcomeFailed, Reason: err.Error(), Files: []string{f.Path}})
			continue
		}
		if err := c.writeFile(f.Path, after); err != nil {
			return fmt.Errorf("%s: writing %s: %w", f.ID, f.Path, err)
		}
		if terr := c.test(ctx, f.ID, []string{f.Path}); terr != nil {
			if err := c.writeFile(f.Path, before); err != nil {
				return fmt.Errorf("%s: restoring %s: %w", f.ID, f.Path, err)
			}
			var se *setupError
			if errors.As(terr, &se) {
				return se.error
			}
			c.add(Result{ID: f.ID, Outcome: OutcomeReverted, Reason: testFailure(terr), Files: []string{f.Path}})
			continue
		}
		st.kept = append(st.kept, edit)
		c.kept[f.Path] = produced{content: after}
		c.add(Result{ID: f.ID, Outcome: OutcomeFixed, Reason: fmt.Sprintf("applied the suggestion to %s lines %d-%d", f.Path, edit.StartLine, edit.EndLine), Files: []string{f.Path}})
	}
	return nil
}

// overlapping returns the kept edit whose lines e overlaps, if any.
func overlapping(kept []Edit, e Edit) (Edit, bool) {
	for _, k := range kept {
		if e.StartLine <= k.EndLine && k.StartLine <= e.EndLine {
			return k, true
		}
	}
	return Edit{}, false
}

// planSuggestion returns the edit for f in cycle-start line numbers, or a
// final result when the suggestion cannot or must not be applied.
func (c *cycle) planSuggestion(ctx context.Context, f loop.Finding, state map[string]*fileState) (Edit, *fileState, *Result) {
	fail := func(o Outcome, why, reply string) (Edit, *fileState, *Result) {
		return Edit{}, nil, &Result{ID: f.ID, Outcome: o, Reason: why, Reply: reply, Files: []string{f.Path}}
	}
	blocks := ParseSuggestions(f.Body)
	if len(blocks) == 0 {
		return fail(OutcomeFailed, "no suggestion block to apply", "")
	}
	for _, b := range blocks[1:] {
		if !slices.Equal(b.Lines, blocks[0].Lines) {
			return fail(OutcomeFailed, "the comment's suggestions overlap: they target the same lines with different text", "")
		}
	}
	if err := safePath(f.Path); err != nil {
		return fail(OutcomeFailed, err.Error(), "")
	}
	if why := CommitRefusal(f.Path, true); why != "" {
		return fail(OutcomeFailed, "not applied: "+why, "")
	}
	end := f.Line
	start := f.StartLine
	if start == 0 || start > end {
		start = end
	}
	if end <= 0 {
		return fail(OutcomeOutdated, "the thread is outdated: its lines no longer exist in the diff",
			outdatedReply(f, "the lines it targets are no longer part of the diff"))
	}
	st := state[f.Path]
	if st == nil {
		head, err := c.readFile(f.Path)
		if err != nil {
			return fail(OutcomeOutdated, "the file no longer exists", outdatedReply(f, "the file no longer exists"))
		}
		st = &fileState{head: head}
		state[f.Path] = st
	}
	headLines := linesText(splitLines(st.head))
	if end > len(headLines) {
		return fail(OutcomeOutdated, fmt.Sprintf("line %d is past the end of the file (%d lines)", end, len(headLines)),
			outdatedReply(f, "the file is shorter now"))
	}
	switch {
	case f.OriginalCommit != "":
		orig, err := c.show(ctx, f.OriginalCommit, f.Path)
		if err != nil {
			if f.Outdated {
				return fail(OutcomeOutdated, "the thread is outdated and its original commit is unavailable",
					outdatedReply(f, "the code changed since"))
			}
			c.logf("%s: original commit %s unavailable, anchoring to the current head lines", f.ID, f.OriginalCommit)
			break
		}
		oEnd := f.OriginalLine
		if oEnd == 0 {
			oEnd = end
		}
		oStart := oEnd - (end - start)
		origLines := linesText(splitLines(orig))
		if oStart < 1 || oEnd > len(origLines) || !slices.Equal(origLines[oStart-1:oEnd], headLines[start-1:end]) {
			return fail(OutcomeOutdated, fmt.Sprintf("lines %d-%d changed since %s", start, end, short(f.OriginalCommit)),
				outdatedReply(f, "the code it targets changed since"))
		}
	case f.Outdated:
		return fail(OutcomeOutdated, "the thread is outdated and its original commit is unknown",
			outdatedReply(f, "the code changed since"))
	}
	return Edit{StartLine: start, EndLine: end, Lines: blocks[0].Lines}, st, nil
}

func outdatedReply(f loop.Finding, why string) string {
	at := ""
	if f.OriginalCommit != "" {
		at = " at " + short(f.OriginalCommit)
	}
	line := f.OriginalLine
	if line == 0 {
		line = f.Line
	}
	return fmt.Sprintf("Outdated: this suggestion was written for %s line %d%s and %s, so it was not applied.", f.Path, line, at, why)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

type showKey struct{ commit, path string }

type showResult struct {
	content []byte
	err     error
}

// show reads a file at a commit once per cycle: several suggestions on one
// file share the original content.
func (c *cycle) show(ctx context.Context, commit, path string) ([]byte, error) {
	k := showKey{commit, path}
	if r, ok := c.shown[k]; ok {
		return r.content, r.err
	}
	b, err := c.p.cfg.Git.Show(ctx, commit, path)
	if c.shown == nil {
		c.shown = map[showKey]showResult{}
	}
	c.shown[k] = showResult{b, err}
	return b, err
}
