package observe

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file reads what the won't-fix memory needs (WF1): each finding's
// code context from the checkout, and the decisions review-loop's own
// replies carry.

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

// Remembered reads the won't-fix decisions back from review-loop's own
// replies on the PR's threads (WF1, R1): each decline reply ends with its
// decision's marker (loop.DeclineMarker), each recall reply with the
// decision it repeated (loop.RecallMarker). A marker counts only in a
// comment written by the loop's identity, this run's or the other
// driver's whose status comment it adopted (loopIdentity): one another
// account writes, or an engine quotes, is ignored, so no one but
// review-loop can make a finding remembered. Of two decisions with the
// same fingerprint the earlier reply is kept first. The link is the
// reply's own.
func Remembered(obs *github.Observation) []state.WontFix {
	type decline struct {
		m  state.WontFix
		at time.Time
	}
	var ds []decline
	type recall struct {
		of     int64
		engine string
		root   int64
	}
	var rs []recall
	for _, t := range obs.Threads {
		if len(t.Comments) == 0 {
			continue
		}
		root := t.Comments[0].DatabaseID
		for _, c := range t.Comments[1:] {
			if !loopIdentity(obs, c.Author.Login) {
				continue
			}
			if m, ok := loop.ReadDecline(c.Body); ok {
				m.CommentID, m.ReplyID, m.At = root, c.DatabaseID, c.CreatedAt
				if obs.URL != "" && c.DatabaseID != 0 {
					m.ReplyURL = fmt.Sprintf("%s#discussion_r%d", obs.URL, c.DatabaseID)
				}
				ds = append(ds, decline{m, c.CreatedAt})
			} else if of, engine, ok := loop.ReadRecall(c.Body); ok {
				rs = append(rs, recall{of, engine, root})
			}
		}
	}
	slices.SortStableFunc(ds, func(a, b decline) int {
		if d := a.at.Compare(b.at); d != 0 {
			return d
		}
		return cmp.Compare(a.m.ReplyID, b.m.ReplyID)
	})
	out := make([]state.WontFix, len(ds))
	byReply := make(map[int64]int, len(ds))
	for i, d := range ds {
		out[i] = d.m
		byReply[d.m.ReplyID] = i
	}
	for _, r := range rs {
		i, ok := byReply[r.of]
		if !ok || r.of == 0 {
			continue // a decision the state holds: RecordRecalled keeps its answers
		}
		m := &out[i]
		if !slices.Contains(m.Answered, r.root) {
			m.Answered = append(m.Answered, r.root)
		}
		if r.engine != "" && !slices.Contains(m.ReraisedBy, r.engine) {
			m.ReraisedBy = append(m.ReraisedBy, r.engine)
			slices.Sort(m.ReraisedBy)
		}
	}
	return out
}
