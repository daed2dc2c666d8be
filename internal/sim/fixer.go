package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/fix"
)

// Fix is a scripted fixer for a fixer-command: it reads the fixer input
// file (REVIEW_LOOP_FINDINGS) and, in the checkout at dir, replaces each
// finding's bad text with its scripted fix. Findings without a fix, or
// whose bad text is already gone, are answered as disagreed or outdated.
// A finding's FixTime moves the virtual clock on, as a slow fixer would:
// the cycle that runs it does that much active work (B2).
func (w *World) Fix(inputFile, dir string) (fix.FixerReply, error) {
	b, err := os.ReadFile(inputFile)
	if err != nil {
		return fix.FixerReply{}, err
	}
	var in fix.FixerInput
	if err := json.Unmarshal(b, &in); err != nil {
		return fix.FixerReply{}, fmt.Errorf("reading fixer input: %w", err)
	}
	var out fix.FixerReply
	for _, x := range in.Findings {
		w.mu.Lock()
		f, ok := w.byComment[x.CommentID]
		if !ok && x.CommentID == 0 {
			f, ok = w.byBody[bodyKey(x.Path, x.Title)]
		}
		w.mu.Unlock()
		if ok {
			w.clock.Advance(time.Duration(f.FixTime))
		}
		if !ok || f.Fix == "" {
			out.Disagreed = append(out.Disagreed, fix.ReplyEntry{ID: x.ID, Reply: "Not changed: the scripted fixer has no fix for this finding."})
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		src, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(src), f.Bad) {
			out.Outdated = append(out.Outdated, fix.ReplyEntry{ID: x.ID, Reply: "The flagged code is no longer present in " + f.Path + "."})
			continue
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(src), f.Bad, f.Fix, 1)), 0o644); err != nil {
			return out, err
		}
		out.Fixed = append(out.Fixed, x.ID)
	}
	return out, nil
}

// PostedFinding is the scripted finding behind a posted root comment, for
// the demo's narration.
func (w *World) PostedFinding(commentID int64) (Finding, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, ok := w.byComment[commentID]
	return f, ok
}
