package observe

import (
	"context"
	"log/slog"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
)

// This file reads what the won't-fix memory needs (WF1): each finding's
// code context from the checkout.

// ContextHashes sets the code context hash (WF1's fingerprint) of each
// finding in views from its file at the observed head in the checkout g
// runs in, fetching the head branch (with token) once when the checkout
// does not have the commit; a fork's head is never fetched. No checkout:
// nothing is set. A file that cannot be read leaves its findings without
// a hash: they are then never matched to a remembered decision.
func ContextHashes(ctx context.Context, g *git.Runner, obs *github.Observation, token string, views []loop.EngineView, log *slog.Logger) {
	head := obs.HeadSHA
	if head == "" || g.Dir == "" || !HasCheckout(g.Dir) {
		return // no checkout (yet): nothing to fingerprint with
	}
	files := map[string]*string{}
	fetched := false
	read := func(path string) *string {
		if p, ok := files[path]; ok {
			return p
		}
		out, err := g.Run(ctx, "cat-file", "blob", head+":"+path)
		if err != nil && !fetched && !obs.IsFork && obs.HeadRef != "" {
			fetched = true
			if ferr := g.FetchBranch(ctx, obs.HeadRef, token); ferr == nil {
				out, err = g.Run(ctx, "cat-file", "blob", head+":"+path)
			}
		}
		var p *string
		if err == nil {
			p = &out
		} else {
			log.Debug("no code context for the won't-fix fingerprint", "path", path, "err", err)
		}
		files[path] = p
		return p
	}
	for i := range views {
		for j := range views[i].Findings {
			f := &views[i].Findings[j]
			if f.Path == "" || f.Line <= 0 || f.Outdated {
				continue
			}
			if content := read(f.Path); content != nil {
				f.ContextHash = loop.ContextHash(*content, f.StartLine, f.Line)
			}
		}
	}
}
