package state

import (
	"slices"
	"time"
)

// LineRange is an inclusive range of lines on the new side of a diff.
type LineRange struct {
	Start int `json:"s"`
	End   int `json:"e"`
}

// ChangedFile is one file a fix commit changed, with the lines of the
// commit's version of it that the commit wrote (CV1). A file the commit
// deleted has no ranges.
type ChangedFile struct {
	Path   string      `json:"path"`
	Ranges []LineRange `json:"ranges,omitempty"`
}

// FixedRef is a finding a fix commit fixed, as CV1 and CV2 need it:
// where it was and what identifies the defect.
type FixedRef struct {
	ID        string `json:"id"`
	Engine    string `json:"engine,omitempty"`
	CommentID int64  `json:"comment_id,omitempty"`
	Path      string `json:"path,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	Line      int    `json:"line,omitempty"`
	Title     string `json:"title,omitempty"`
	Category  string `json:"category,omitempty"`
	Key       string `json:"key,omitempty"`
}

// FixCommit is one fix commit of this loop (CV1, CV4): its SHA, the head
// it was made on, the lines it changed and the findings it fixed. Pushed
// is set once the push is known to have landed.
type FixCommit struct {
	SHA    string        `json:"sha"`
	Parent string        `json:"parent,omitempty"`
	Round  int           `json:"round"`
	At     time.Time     `json:"at,omitzero"`
	Pushed bool          `json:"pushed,omitempty"`
	Files  []ChangedFile `json:"files,omitempty"`
	Fixed  []FixedRef    `json:"fixed,omitempty"`
}

// Induced is a finding raised on lines an earlier fix commit of this loop
// changed (CV1): linked to that commit and to the findings it fixed.
type Induced struct {
	FindingID string `json:"id"`
	Engine    string `json:"engine,omitempty"`
	CommentID int64  `json:"comment_id,omitempty"`
	Path      string `json:"path,omitempty"`
	Line      int    `json:"line,omitempty"`
	Title     string `json:"title,omitempty"`
	// Commit is the fix commit whose lines it is on, Round that commit's
	// round, Fixed the findings the commit fixed nearest to it in its file
	// (at most three; the commit's first ones when none was in that file).
	Commit string   `json:"commit"`
	Round  int      `json:"round"`
	Fixed  []string `json:"fixed,omitempty"`
	// Seen is the round (iteration) in which it was first seen.
	Seen int `json:"seen"`
	// Same is set when it is the same defect as a finding the commit
	// fixed, come back on the commit's lines (CV2).
	Same bool `json:"same,omitempty"`
}

// AutofixOff records why and since when the loop makes no fix on the PR
// (CV4): a person reverted or force-pushed over a review-loop commit.
// Only `@review-loop resume` turns fixing back on.
type AutofixOff struct {
	Reason string    `json:"reason"`
	Commit string    `json:"commit,omitempty"`
	By     string    `json:"by,omitempty"`
	At     time.Time `json:"at"`
}

// Held is a finding the loop does not fix and lists for a human: a prose
// or nitpick finding past its rounds (CV3), a finding in a generated or
// ignored file (CV6), or one an engine's own fixer already fixed (CV5).
type Held struct {
	FindingID string `json:"id"`
	Engine    string `json:"engine,omitempty"`
	CommentID int64  `json:"comment_id,omitempty"`
	Path      string `json:"path,omitempty"`
	Line      int    `json:"line,omitempty"`
	Title     string `json:"title,omitempty"`
	// Rule is CV3, CV5 or CV6; Why says it in words.
	Rule string `json:"rule"`
	Why  string `json:"why"`
}

func cloneConverge(c *State, s State) {
	if s.FixCommits != nil {
		c.FixCommits = make([]FixCommit, len(s.FixCommits))
		for i, fc := range s.FixCommits {
			fc.Fixed = slices.Clone(fc.Fixed)
			files := make([]ChangedFile, len(fc.Files))
			for j, f := range fc.Files {
				f.Ranges = slices.Clone(f.Ranges)
				files[j] = f
			}
			fc.Files = files
			c.FixCommits[i] = fc
		}
	}
	if s.Induced != nil {
		c.Induced = make([]Induced, len(s.Induced))
		for i, in := range s.Induced {
			in.Fixed = slices.Clone(in.Fixed)
			c.Induced[i] = in
		}
	}
	if s.AutofixOff != nil {
		a := *s.AutofixOff
		c.AutofixOff = &a
	}
	c.Held = slices.Clone(s.Held)
	c.EngineFixed = slices.Clone(s.EngineFixed)
}
