package ghfake

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// GitHub's limits on a pull request's diff served as the diff media type:
// over them GET /repos/{owner}/{repo}/pulls/{number} answers 406 with the
// error code too_large and never a truncated diff ("Sorry, the diff
// exceeded the maximum number of files (300) …" and "… lines (20000)",
// as reported from live requests, e.g. kamp-us/phoenix#4993,
// pascalgn/size-label-action#53). The line limit counts the lines of the
// diff itself (headers and context included), not additions+deletions.
const (
	MaxDiffFiles = 300
	MaxDiffLines = 20_000
)

// mediaDiff is the media type asking for a pull request or commit as a
// unified diff.
const mediaDiff = "application/vnd.github.diff"

// getPull is GET /repos/{owner}/{repo}/pulls/{number} (pulls/get). With
// Accept: application/vnd.github.diff it answers the PR's diff against the
// merge base of its base branch and head (three dots), as text, or 406
// too_large over GitHub's limits; otherwise the pull request as JSON.
func getPull(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	n, err := strconv.Atoi(r.PathValue("number"))
	p := rp.prs[n]
	if err != nil || p == nil {
		notFound(w)
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), mediaDiff) {
		f.pullJSON(w, p)
		return
	}
	ctx := r.Context()
	base := rp.branchSHA(p.BaseRef)
	diff, err := rawDiff(ctx, rp, base, p.headSHA)
	if base == "" || err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": "Server Error"})
		return
	}
	files := bytes.Count(diff, []byte("diff --git "))
	lines := bytes.Count(diff, []byte("\n"))
	switch {
	case files > MaxDiffFiles:
		tooLarge(w, fmt.Sprintf("Sorry, the diff exceeded the maximum number of files (%d). Consider using 'List pull requests files' API or locally cloning the repository instead.", MaxDiffFiles))
		return
	case lines > MaxDiffLines:
		tooLarge(w, fmt.Sprintf("Sorry, the diff exceeded the maximum number of lines (%d)", MaxDiffLines))
		return
	}
	w.Header().Set("Content-Type", mediaDiff+"; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(diff)
}

// tooLarge is GitHub's refusal of a diff over its limits.
func tooLarge(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusNotAcceptable, map[string]any{"message": msg,
		"errors":            []any{map[string]any{"resource": "PullRequest", "field": "diff", "code": "too_large"}},
		"documentation_url": "https://docs.github.com/rest/pulls/pulls#get-a-pull-request", "status": "406"})
}

// rawDiff is `git diff base...head` byte for byte (git() trims its
// output): from their merge base (git's first, the one `git merge-base`
// answers; an error when there is none) to head, in one process, kept
// for a pair of SHAs.
func rawDiff(ctx context.Context, r *repo, base, head string) ([]byte, error) {
	out, err := r.gitPinned(ctx, false, "diff", "--no-color", "--no-ext-diff", base+"..."+head)
	return []byte(out), err
}

// pullJSON is the pull request as pulls/get answers it as JSON.
func (f *Fake) pullJSON(w http.ResponseWriter, p *pr) {
	m := f.pullSimpleJSON(p)
	changed := p.changedFiles()
	reviewComments := 0
	for _, t := range p.Threads {
		reviewComments += len(t.Comments)
	}
	m["additions"], m["deletions"], m["changed_files"] = p.Additions, p.Deletions, changed
	m["comments"], m["review_comments"], m["commits"] = len(p.Comments), reviewComments, len(p.commits)
	m["merged"], m["mergeable"], m["mergeable_state"] = false, nil, "unknown"
	m["maintainer_can_modify"], m["merged_by"] = false, nil
	writeJSON(w, http.StatusOK, m)
}

// getCommit is GET /repos/{owner}/{repo}/commits/{ref} (repos/get-commit):
// the commit with its stats and the files it changed against its first
// parent, each with its patch.
func getCommit(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	ctx := r.Context()
	ref := r.PathValue("ref")
	sha := ref
	if !shaRe.MatchString(ref) {
		sha = rp.branchSHA(ref)
	}
	if sha == "" || strings.HasPrefix(sha, "-") {
		notFound(w)
		return
	}
	if !rp.isCommit(ctx, sha) {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "No commit found for SHA: " + ref,
			"documentation_url": "https://docs.github.com/rest/commits/commits#get-a-commit", "status": "422"})
		return
	}
	parent, _ := gitObjectCached(ctx, rp, "rev-parse", "--verify", "-q", sha+"^")
	from := parent
	if from == "" {
		from = must(git(ctx, rp.bare, "hash-object", "-t", "tree", "/dev/null")) // the empty tree
	}
	files := filesJSON(ctx, rp, from, sha)
	add, del := 0, 0
	for _, fl := range files {
		m := fl.(map[string]any)
		add += m["additions"].(int)
		del += m["deletions"].(int)
	}
	c := f.commitJSONLocked(ctx, rp, sha)
	c["stats"] = map[string]any{"additions": add, "deletions": del, "total": add + del}
	c["files"] = files
	writeJSON(w, http.StatusOK, c)
}

// changedFiles is how many files the PR changes: from the merge base of
// its base branch and head to the head (git diff base...head, one
// process; 0 when they have no merge base). The answer depends on commit
// SHAs only, so it is asked once per pair (every read of the PR asks).
func (p *pr) changedFiles() int {
	base := p.repo.branchSHA(p.BaseRef)
	if base == "" {
		return 0
	}
	names, err := gitObjectCached(context.Background(), p.repo, "diff", "--name-only", base+"..."+p.headSHA)
	if err != nil || names == "" {
		return 0
	}
	return len(strings.Split(names, "\n"))
}
