package action

import (
	"context"

	"github.com/review-loop/review-loop/internal/loop"
)

// This file reads what the won't-fix memory needs (WF1): each finding's
// code context from the checkout; and answers recalled findings.

// fillContextHashes sets each observed finding's code context hash (WF1's
// fingerprint) from the file at the head SHA in the checkout, fetching
// the head branch once when the checkout does not have the commit. A file
// that cannot be read leaves its findings without a hash: they are then
// never matched to a remembered decision.
func (c *prCycle) fillContextHashes(ctx context.Context) {
	head := c.obs.HeadSHA
	if head == "" || c.cfg.Workspace == "" || c.needsTree() {
		return // no checkout (yet): nothing to fingerprint with
	}
	g := c.gitRunner()
	files := map[string]*string{}
	fetched := false
	read := func(path string) *string {
		if p, ok := files[path]; ok {
			return p
		}
		out, err := g.Run(ctx, "cat-file", "blob", head+":"+path)
		if err != nil && !fetched && !c.obs.IsFork && c.obs.HeadRef != "" {
			fetched = true
			if ferr := g.FetchBranch(ctx, c.obs.HeadRef, c.cfg.PushToken); ferr == nil {
				out, err = g.Run(ctx, "cat-file", "blob", head+":"+path)
			}
		}
		var p *string
		if err == nil {
			p = &out
		} else {
			c.Log.Debug("no code context for the won't-fix fingerprint", "path", path, "err", err)
		}
		files[path] = p
		return p
	}
	for i := range c.views {
		for j := range c.views[i].Findings {
			f := &c.views[i].Findings[j]
			if f.Path == "" || f.Line <= 0 || f.Outdated {
				continue
			}
			if content := read(f.Path); content != nil {
				f.ContextHash = loop.ContextHash(*content, f.StartLine, f.Line)
			}
		}
	}
}

// answerRecalled answers, once each, the comments that raised a
// remembered won't-fix decision again (WF1) with the earlier rationale and
// its link, resolves their threads (E6) and records them as answered.
func (c *prCycle) answerRecalled(ctx context.Context) {
	var answered []int64
	var threads []string
	for _, r := range c.plan.Recalled {
		if r.Reply == "" {
			continue
		}
		if c.reply(ctx, r.Finding, r.Reply) == 0 {
			continue
		}
		answered = append(answered, r.Finding.CommentID)
		if r.Finding.ThreadID != "" {
			threads = append(threads, r.Finding.ThreadID)
		}
	}
	c.resolveThreads(ctx, threads)
	c.st = loop.RecordRecalled(c.st, c.plan.Recalled, answered)
}
