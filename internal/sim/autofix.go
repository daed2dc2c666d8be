package sim

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// BugbotAutofixAuthor is the author of Bugbot Autofix's commits: Cursor's
// bot account (ENGINES.md: cursor[bot], id 206951365), by GitHub's noreply
// address, so GitHub attributes the commit to cursor[bot].
const BugbotAutofixAuthor = "Cursor Agent <206951365+cursor[bot]@users.noreply.github.com>"

func derefRound(r *Round) []Round {
	if r == nil {
		return nil
	}
	return []Round{*r}
}

// autofix is Bugbot Autofix fixing a scripted finding: it applies the
// finding's fix at the head and pushes the commit as cursor[bot]; GitHub
// sends the synchronize event with cursor[bot] as its sender.
func (w *World) autofix(a AutofixEvent) error {
	var sf Finding
	for _, r := range append(slices.Clone(w.Scenario.Engines[a.Engine].Rounds), derefRound(w.Scenario.Engines[a.Engine].Default)...) {
		for _, f := range r.Findings {
			if f.ID == a.Finding {
				sf = f
			}
		}
	}
	if sf.Fix == "" {
		return fmt.Errorf("autofix: finding %q has no scripted fix", a.Finding)
	}
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	src, ok := w.fileAt(snap.HeadSHA, sf.Path)
	if !ok || !strings.Contains(src, sf.Bad) {
		return fmt.Errorf("autofix: %s at the head no longer has the flagged code of %q", sf.Path, a.Finding)
	}
	files := map[string]string{sf.Path: strings.Replace(src, sf.Bad, sf.Fix, 1)}
	title := sf.Title
	if title == "" {
		title = "apply Bugbot's suggestion"
	}
	msg := "fix: " + title + "\n\nApplied by Bugbot Autofix.\n"
	if a.Message != "" {
		msg = a.Message
	}
	sha, err := w.Fake.PushCommitAs(w.Owner, w.Repo, snap.HeadRef, files, msg, BugbotAutofixAuthor)
	if err != nil {
		return err
	}
	return w.foreignHead(snap.HeadSHA, sha, "cursor", true)
}

// revertLastFix is a person reverting review-loop's latest commit with
// `git revert` (its message says "This reverts commit <sha>.").
func (w *World) revertLastFix(r RevertEvent) error {
	snap := w.Fake.PR(w.Owner, w.Repo, w.Number)
	dir := strings.TrimPrefix(w.Fake.CloneURL(w.Owner, w.Repo), "file://")
	out, err := exec.CommandContext(context.Background(), "git", "--git-dir", dir, "log", "--format=%H %an", snap.BaseRef+".."+snap.HeadSHA).Output()
	if err != nil {
		return fmt.Errorf("revert: listing the PR's commits: %w", err)
	}
	var target string
	w.mu.Lock()
	outside := map[string]bool{}
	for _, h := range w.heads {
		outside[h.sha] = h.outside
	}
	w.mu.Unlock()
	// The newest commit neither the scenario (ghfake) nor anyone outside
	// made: review-loop's.
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		sha, author, _ := strings.Cut(line, " ")
		if sha != "" && !outside[sha] && author != "ghfake" {
			target = sha
			break
		}
	}
	if target == "" {
		return fmt.Errorf("revert: review-loop pushed no commit to revert")
	}
	sha, err := w.Fake.RevertCommit(w.Owner, w.Repo, snap.HeadRef, target, r.Author+" <"+r.Author+"@users.noreply.github.com>")
	if err != nil {
		return err
	}
	return w.foreignHead(snap.HeadSHA, sha, r.Author, false)
}

// foreignHead records a head pushed by someone other than the loop and
// delivers GitHub's synchronize event with its sender.
func (w *World) foreignHead(before, sha, sender string, bot bool) error {
	w.mu.Lock()
	w.outside++
	if i := slices.IndexFunc(w.heads, func(h headRecord) bool { return h.sha == sha }); i >= 0 {
		w.heads[i].outside = true
	} else {
		w.heads = append(w.heads, headRecord{sha: sha, at: w.clock.Now(), outside: true})
	}
	if w.head != sha {
		w.head = sha
		w.inbox = append(w.inbox, stimulus{kind: stimPush, sha: sha, byUser: true})
	}
	w.mu.Unlock()
	w.emit("pull_request", mustJSON(map[string]any{
		"action": "synchronize", "number": w.Number, "before": before, "after": sha,
		"pull_request": w.prRef(sha),
		"repository":   w.repository(),
		"sender":       w.user(sender, bot),
	}))
	return nil
}
