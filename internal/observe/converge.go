package observe

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

// This file reads what the convergence rules (CV1-CV6) weigh: the lines
// of the loop's own fix commit, the commits pushed since the last look,
// engine fixers at work, and the files marked generated.

// CommitLines are the lines each file of commit sha changed against its
// parent in the checkout g runs in (CV1): the fix commit about to be
// pushed, recorded with them. A diff that cannot be read gives none
// (logged): no finding is then taken for fix-induced.
func CommitLines(ctx context.Context, g *git.Runner, parent, sha string, log *slog.Logger) []state.ChangedFile {
	hunks, err := g.DiffHunks(ctx, parent, sha)
	if err != nil {
		log.Warn("reading the fix commit's changed lines (CV1)", "err", err)
	}
	var files []state.ChangedFile
	for _, h := range hunks {
		files = append(files, state.ChangedFile{Path: h.Path, Ranges: lineRanges(h.New)})
	}
	return files
}

// WorktreeLines are the lines each of files changes in the checkout g
// runs in against HEAD (CV1): the fix commit's lines, read before the
// commit is made through the API. A diff that cannot be read gives none
// (logged).
func WorktreeLines(ctx context.Context, g *git.Runner, files []string, log *slog.Logger) []state.ChangedFile {
	hunks, err := g.WorktreeHunks(ctx, files)
	if err != nil {
		log.Warn("reading the fix commit's changed lines (CV1)", "err", err)
	}
	var out []state.ChangedFile
	for _, h := range hunks {
		out = append(out, state.ChangedFile{Path: h.Path, Ranges: lineRanges(h.New)})
	}
	return out
}

func lineRanges(rs []git.LineRange) []state.LineRange {
	out := make([]state.LineRange, len(rs))
	for i, r := range rs {
		out[i] = state.LineRange{Start: r.Start, End: r.End}
	}
	return out
}

// PushHistory reads the commits pushed to head since the loop's last look
// in st when the head moved by a push that is not the loop's (CV4, CV5):
// GitHub's compare of loop.PushesSince with the head, one request, plus
// one per engine-fixer commit among several and one when the push may
// have undone the loop's last fix commit. Nil when there is nothing to
// read; when any of it cannot be read (the compare failed or lists only
// some of the commits, a fixer commit or the undo check failed) its
// Unread says so and the loop fixes nothing that cycle (CV7). A cycle
// reads it once, before it decides.
func PushHistory(ctx context.Context, gh *github.Client, owner, repo string, st state.State, head string, log *slog.Logger) *loop.PushHistory {
	base := loop.PushesSince(st, head)
	if base == "" {
		return nil
	}
	cmp, err := gh.Compare(ctx, owner, repo, base, head)
	if err != nil {
		log.Warn("reading the commits pushed since the last look (CV4, CV5)", "base", base, "head", head, "err", err)
		return &loop.PushHistory{Base: base, Head: head, Unread: err.Error()}
	}
	p := &loop.PushHistory{Base: base, Head: head, Status: cmp.Status}
	if cmp.Missing > 0 {
		p.Unread = fmt.Sprintf("GitHub's compare listed %d of %d commits", len(cmp.Commits), len(cmp.Commits)+cmp.Missing)
	}
	if why := fixerCommitFiles(ctx, gh, owner, repo, cmp, log); why != "" && p.Unread == "" {
		p.Unread = why
	}
	for _, cm := range cmp.Commits {
		hc := loop.HeadCommit{SHA: cm.SHA, Parent: cm.Parent, Message: cm.Message, AuthorLogin: cm.AuthorLogin, AuthorEmail: cm.AuthorEmail}
		for _, f := range cm.Files {
			h, err := git.ParsePatch(f.Path, f.Patch)
			if err != nil {
				continue
			}
			hc.Touched = append(hc.Touched, state.ChangedFile{Path: f.Path, Ranges: lineRanges(h.Old)})
		}
		p.Commits = append(p.Commits, hc)
	}
	var why string
	p.Undone, why = undone(ctx, gh, owner, repo, st, head, cmp, log)
	if why != "" && p.Unread == "" {
		p.Unread = why
	}
	return p
}

// undone reads whether the head still has the changes of the loop's last
// fix commit (CV4) when loop.UndoSuspect suspects it: one more request,
// comparing the commit's parent with the head.
// why says what could not be read (CV7).
func undone(ctx context.Context, gh *github.Client, owner, repo string, st state.State, head string, since *github.Comparison, log *slog.Logger) (shas []string, why string) {
	fc := loop.UndoSuspect(st, since.Status, since.Files)
	if fc == nil {
		return nil, ""
	}
	cmp, err := gh.Compare(ctx, owner, repo, fc.Parent, head)
	if err != nil {
		log.Warn("reading whether the loop's commit was undone (CV4)", "commit", fc.SHA, "err", err)
		return nil, "whether review-loop's commit " + fc.SHA[:min(7, len(fc.SHA))] + " was undone: " + err.Error()
	}
	if !loop.Undone(*fc, cmp.Files) {
		return nil, ""
	}
	return []string{fc.SHA}, ""
}

// maxFixerCommitReads bounds the commits of engine fixers read one by one
// in a cycle (CV5); a later one is judged by its message alone.
const maxFixerCommitReads = 10

// fixerCommitFiles fills in the changed files of each new commit by an
// engine fixer when the compare held several commits (its files are then
// those of all of them together): the commit's own diff, one request per
// engine-fixer commit and none for anyone else's (CV5). A commit that
// cannot be read keeps no files (logged), and what failed is returned:
// the loop then makes no fix that cycle (CV7). Past maxFixerCommitReads a
// commit is judged by its message alone.
func fixerCommitFiles(ctx context.Context, gh *github.Client, owner, repo string, cmp *github.Comparison, log *slog.Logger) (why string) {
	if len(cmp.Commits) < 2 {
		return "" // a single commit's files are the compare's own
	}
	reads := 0
	for i := range cmp.Commits {
		cm := &cmp.Commits[i]
		if len(cm.Files) > 0 || loop.EngineFixer(cm.AuthorLogin, cm.AuthorEmail) == "" {
			continue
		}
		if reads == maxFixerCommitReads {
			log.Info("more engine-fixer commits than are read one by one; the rest are judged by their messages (CV5)", "read", reads)
			return why
		}
		reads++
		files, err := gh.CommitFiles(ctx, owner, repo, cm.SHA)
		if err != nil {
			log.Warn("reading the lines an engine fixer's commit changed (CV5)", "commit", cm.SHA, "err", err)
			if why == "" {
				why = "the lines engine-fixer commit " + cm.SHA[:min(7, len(cm.SHA))] + " changed: " + err.Error()
			}
			continue
		}
		cm.Files = files
	}
	return why
}

// FixersRunning are the engine fixers whose check run on the head has not
// completed (CV5).
func FixersRunning(runs []github.CheckRun) []loop.FixerRun {
	var out []loop.FixerRun
	for _, cr := range runs {
		if n := loop.EngineFixerCheck(cr.AppSlug, cr.Name); n != "" && cr.Status != "COMPLETED" {
			out = append(out, loop.FixerRun{Fixer: n, StartedAt: cr.StartedAt})
		}
	}
	return out
}

// Generated are the patterns the .gitattributes file of the checkout in
// dir marks linguist-generated (CV6); none without a checkout or a file.
func Generated(dir string) []string {
	if dir == "" {
		return nil
	}
	raw, err := os.ReadFile(filepath.Join(dir, ".gitattributes"))
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
