package action

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file reads what a cycle needs for convergence (CV1-CV6): the
// lines of the loop's own fix commit, the commits pushed since the last
// look, engine fixers at work, and generated files.

// recordFixCommit records the fix commit about to be pushed with the
// lines it wrote and the findings it fixed (CV1), in the write-ahead
// state. A diff that cannot be read records the commit without lines:
// no finding is then taken for fix-induced.
func (c *prCycle) recordFixCommit(ctx context.Context, g *git.Runner, sha string, cyc fixedLister, byID map[string]loop.Finding) {
	var files []state.ChangedFile
	hunks, err := g.DiffHunks(ctx, c.obs.HeadSHA, sha)
	if err != nil {
		c.Log.Warn("reading the fix commit's changed lines (CV1)", "err", err)
	}
	for _, h := range hunks {
		files = append(files, state.ChangedFile{Path: h.Path, Ranges: ranges(h.New)})
	}
	var fixed []loop.Finding
	for _, id := range cyc.Fixed() {
		fixed = append(fixed, byID[id])
	}
	c.st = loop.RecordFixCommit(c.st, sha, c.obs.HeadSHA, files, fixed, c.Now())
}

type fixedLister interface{ Fixed() []string }

func ranges(rs []git.LineRange) []state.LineRange {
	out := make([]state.LineRange, len(rs))
	for i, r := range rs {
		out[i] = state.LineRange{Start: r.Start, End: r.End}
	}
	return out
}

// pushes reads the commits pushed to the head since the loop's last look
// when the head moved by a push that is not the loop's (CV4, CV5):
// GitHub's compare of loop.PushesSince with the head. One request; nil
// when there is nothing to read or the read failed (logged). A cycle
// reads it once, before it decides.
func (c *prCycle) pushes(ctx context.Context) *loop.PushHistory {
	head, st := c.obs.HeadSHA, c.st
	base := loop.PushesSince(st, head)
	if base == "" {
		return nil
	}
	cmp, err := c.gh.Compare(ctx, c.owner, c.repo, base, head)
	if err != nil {
		c.Log.Warn("reading the commits pushed since the last look (CV4, CV5)", "base", base, "head", head, "err", err)
		return nil
	}
	c.fixerCommitFiles(ctx, cmp)
	c.pushHistory = pushHistory(base, head, cmp)
	c.pushHistory.Undone = c.undone(ctx, head, cmp)
	return c.pushHistory
}

// undone reads whether the head still has the changes of the loop's
// last fix commit (CV4): when it is still in the PR (ahead) yet none of
// the files it changed differ from its parent at the head, a later push
// undid it. One more request, only after an outside push.
func (c *prCycle) undone(ctx context.Context, head string, since *github.Comparison) []string {
	st := c.st
	var fc *state.FixCommit
	for i := range st.FixCommits {
		if st.FixCommits[i].SHA == st.LastPushSHA && st.FixCommits[i].Pushed && st.FixCommits[i].Parent != "" && len(st.FixCommits[i].Files) > 0 {
			fc = &st.FixCommits[i]
		}
	}
	if fc == nil || since.Status != "ahead" {
		return nil
	}
	touched := map[string]bool{}
	for _, f := range since.Files {
		touched[f] = true
	}
	if !slices.ContainsFunc(fc.Files, func(f state.ChangedFile) bool { return touched[f.Path] }) {
		return nil // nothing pushed since touched its files
	}
	cmp, err := c.gh.Compare(ctx, c.owner, c.repo, fc.Parent, head)
	if err != nil {
		c.Log.Warn("reading whether the loop's commit was undone (CV4)", "commit", fc.SHA, "err", err)
		return nil
	}
	for _, f := range cmp.Files {
		if slices.ContainsFunc(fc.Files, func(x state.ChangedFile) bool { return x.Path == f }) {
			return nil
		}
	}
	return []string{fc.SHA}
}

// maxFixerCommitReads bounds the commits of engine fixers read one by one
// in a cycle (CV5); a later one is judged by its message alone.
const maxFixerCommitReads = 10

// fixerCommitFiles fills in the changed files of each new commit by an
// engine fixer when the compare held several commits (its files are then
// those of all of them together): the commit's own diff, one request per
// engine-fixer commit and none for anyone else's (CV5). A commit that
// cannot be read keeps no files (logged): only its message then says what
// it fixed.
func (c *prCycle) fixerCommitFiles(ctx context.Context, cmp *github.Comparison) {
	if len(cmp.Commits) < 2 {
		return // a single commit's files are the compare's own
	}
	reads := 0
	for i := range cmp.Commits {
		cm := &cmp.Commits[i]
		if len(cm.Files) > 0 || loop.EngineFixer(cm.AuthorLogin, cm.AuthorEmail) == "" {
			continue
		}
		if reads == maxFixerCommitReads {
			c.Log.Info("more engine-fixer commits than are read one by one; the rest are judged by their messages (CV5)", "read", reads)
			return
		}
		reads++
		files, err := c.gh.CommitFiles(ctx, c.owner, c.repo, cm.SHA)
		if err != nil {
			c.Log.Warn("reading the lines an engine fixer's commit changed (CV5)", "commit", cm.SHA, "err", err)
			continue
		}
		cm.Files = files
	}
}

func pushHistory(base, head string, cmp *github.Comparison) *loop.PushHistory {
	p := &loop.PushHistory{Base: base, Head: head, Status: cmp.Status}
	for _, cm := range cmp.Commits {
		hc := loop.HeadCommit{SHA: cm.SHA, Parent: cm.Parent, Message: cm.Message, AuthorLogin: cm.AuthorLogin, AuthorEmail: cm.AuthorEmail}
		for _, f := range cm.Files {
			h, err := git.ParsePatch(f.Path, f.Patch)
			if err != nil {
				continue
			}
			hc.Touched = append(hc.Touched, state.ChangedFile{Path: f.Path, Ranges: ranges(h.Old)})
		}
		p.Commits = append(p.Commits, hc)
	}
	return p
}

// fixersRunning are the engine fixers whose check run on the head has
// not completed (CV5).
func (c *prCycle) fixersRunning() []loop.FixerRun {
	var out []loop.FixerRun
	for _, cr := range c.obs.CheckRuns {
		if n := loop.EngineFixerCheck(cr.AppSlug, cr.Name); n != "" && cr.Status != "COMPLETED" {
			out = append(out, loop.FixerRun{Fixer: n, StartedAt: cr.StartedAt})
		}
	}
	return out
}

// generated are the .gitattributes patterns of the checkout marked
// linguist-generated (CV6); none without a checkout.
func (c *prCycle) generated() []string {
	if c.cfg.Workspace == "" {
		return nil
	}
	raw, err := os.ReadFile(filepath.Join(c.cfg.Workspace, ".gitattributes"))
	if err != nil {
		return nil
	}
	return GeneratedPatterns(string(raw))
}

// GeneratedPatterns reads the patterns a .gitattributes file marks
// linguist-generated (set, or =true); "-linguist-generated" and =false
// unset it for a pattern.
func GeneratedPatterns(attrs string) []string {
	var out []string
	for _, line := range strings.Split(attrs, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, a := range fields[1:] {
			if a == "linguist-generated" || a == "linguist-generated=true" {
				out = append(out, fields[0])
			}
		}
	}
	return out
}
