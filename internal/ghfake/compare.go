package ghfake

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// PushCommitAs is PushCommit with the commit's author, "Name <email>": an
// engine's own fixer (Bugbot Autofix commits as cursor[bot]'s noreply
// address) or a person.
func (f *Fake) PushCommitAs(owner, repoName, branch string, files map[string]string, message, author string) (string, error) {
	return f.outsidePush(owner, repoName, func(ctx context.Context, r *repo) (string, error) {
		return commitFilesAs(ctx, r.bare, branch, branch, files, message, author)
	})
}

// outsidePush runs push, which pushes to the bare repository of
// owner/repoName as someone other than review-loop, then re-reads the PR
// heads and fires the push events, as GitHub does after any push.
func (f *Fake) outsidePush(owner, repoName string, push func(context.Context, *repo) (string, error)) (string, error) {
	f.mu.Lock()
	r := f.repos[key(owner, repoName)]
	f.mu.Unlock()
	if r == nil {
		return "", fmt.Errorf("no repository %s/%s", owner, repoName)
	}
	sha, err := push(context.Background(), r)
	if err != nil {
		return "", err
	}
	r.memo.knowCommit(sha)
	f.mu.Lock()
	events := f.syncRepoLocked(r)
	f.mu.Unlock()
	f.firePush(events)
	return sha, nil
}

// scratchClone runs steps in a fresh clone of branch reset to at, then
// returns the SHA of its HEAD.
func scratchClone(ctx context.Context, r *repo, branch, at string, steps func(dir string) error) (string, error) {
	tmp, err := os.MkdirTemp("", "ghfake-push-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, s := range [][]string{{"init", "-q", "-b", branch}, {"fetch", "-q", r.bare, "refs/heads/" + branch}, {"reset", "-q", "--hard", at}} {
		if _, err := git(ctx, tmp, s...); err != nil {
			return "", err
		}
	}
	if err := steps(tmp); err != nil {
		return "", err
	}
	return git(ctx, tmp, "rev-parse", "HEAD")
}

// RevertCommit pushes `git revert` of sha on branch, by author ("Name
// <email>"), with git's own message ("This reverts commit <sha>.").
func (f *Fake) RevertCommit(owner, repoName, branch, sha, author string) (string, error) {
	return f.outsidePush(owner, repoName, func(ctx context.Context, r *repo) (string, error) {
		return scratchClone(ctx, r, branch, "FETCH_HEAD", func(dir string) error {
			steps := [][]string{{"revert", "--no-edit", sha}}
			if author != "" {
				steps = append(steps, []string{"commit", "-q", "--amend", "--no-edit", "--author", author})
			}
			steps = append(steps, []string{"push", "-q", r.bare, "HEAD:refs/heads/" + branch})
			for _, s := range steps {
				if _, err := git(ctx, dir, s...); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

var (
	shaRe     = regexp.MustCompile(`^[0-9a-f]{40}$`)
	noreplyRe = regexp.MustCompile(`^(?:[0-9]+\+)?([A-Za-z0-9-]+)(\[bot\])?@users\.noreply\.github\.com$`)
)

// compareCommits is GET /repos/{owner}/{repo}/compare/{base}...{head}
// (repos/compare-commits): the status of head against base, the commits
// from their merge base to head with their authors, and the files that
// changed with their patches. A commit's author is the GitHub account its
// noreply address names, as GitHub attributes it; null otherwise.
func compareCommits(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := f.pathRepoLocked(w, r)
	if rp == nil {
		return
	}
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	resolve := func(ref string) string {
		if shaRe.MatchString(ref) {
			if rp.isCommit(r.Context(), ref) {
				return ref
			}
			return ""
		}
		return rp.branchSHA(ref)
	}
	if !ok {
		notFound(w)
		return
	}
	if base, head = resolve(base), resolve(head); base == "" || head == "" {
		notFound(w)
		return
	}
	ctx := r.Context()
	mb, _ := gitObjectCached(ctx, rp, "merge-base", base, head)
	ahead := atoi(must(gitObjectCached(ctx, rp, "rev-list", "--count", base+".."+head)))
	behind := atoi(must(gitObjectCached(ctx, rp, "rev-list", "--count", head+".."+base)))
	status := "diverged"
	switch {
	case ahead == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case ahead == 0:
		status = "behind"
	}
	apiBase := fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name)
	html := "https://github.com/" + rp.owner + "/" + rp.name
	commit := func(sha string) map[string]any { return f.commitJSONLocked(ctx, rp, sha) }
	commits := []any{}
	if list := must(gitObjectCached(ctx, rp, "rev-list", "--reverse", base+".."+head)); list != "" {
		for _, sha := range strings.Fields(list) {
			commits = append(commits, commit(sha))
		}
	}
	files := []any{}
	if mb != "" {
		files = filesJSON(ctx, rp, mb, head)
	}
	writeJSON(w, http.StatusOK, map[string]any{"url": apiBase + "/compare/" + base + "..." + head, "html_url": html + "/compare/" + base + "..." + head,
		"permalink_url": html + "/compare/" + base + "..." + head, "diff_url": html + "/compare/" + base + "..." + head + ".diff",
		"patch_url": html + "/compare/" + base + "..." + head + ".patch", "base_commit": commit(base), "merge_base_commit": commit(orDefault(mb, base)),
		"status": status, "ahead_by": ahead, "behind_by": behind, "total_commits": ahead, "commits": commits, "files": files})
}

// filesJSON are the files that differ from from to head, with their
// patches (hunks without file headers), as compare and commit answers list
// them.
func filesJSON(ctx context.Context, rp *repo, from, head string) []any {
	apiBase := fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name)
	html := "https://github.com/" + rp.owner + "/" + rp.name
	files := []any{}
	for _, line := range strings.Split(must(gitObjectCached(ctx, rp, "diff", "--numstat", "--no-renames", from, head)), "\n") {
		fs := strings.SplitN(line, "\t", 3)
		if len(fs) < 3 {
			continue
		}
		patch := must(gitObjectCached(ctx, rp, "diff", "--no-color", "--no-renames", from, head, "--", fs[2]))
		if i := strings.Index(patch, "\n@@ "); i >= 0 {
			patch = patch[i+1:]
		}
		st := "modified"
		if _, err := gitObjectCached(ctx, rp, "cat-file", "-e", head+":"+fs[2]); err != nil {
			st = "removed"
		} else if _, err := gitObjectCached(ctx, rp, "cat-file", "-e", from+":"+fs[2]); err != nil {
			st = "added"
		}
		add, del := atoi(fs[0]), atoi(fs[1])
		files = append(files, map[string]any{"sha": head, "filename": fs[2], "status": st, "additions": add, "deletions": del, "changes": add + del,
			"blob_url": html + "/blob/" + head + "/" + fs[2], "raw_url": html + "/raw/" + head + "/" + fs[2],
			"contents_url": apiBase + "/contents/" + fs[2] + "?ref=" + head, "patch": patch})
	}
	return files
}

// commitJSONLocked is a commit as GitHub's compare and commit answers
// carry it: its author is the GitHub account its noreply address names,
// null otherwise. f.mu is held.
func (f *Fake) commitJSONLocked(ctx context.Context, rp *repo, sha string) map[string]any {
	apiBase := fmt.Sprintf("%s/repos/%s/%s", api, rp.owner, rp.name)
	html := "https://github.com/" + rp.owner + "/" + rp.name
	raw := must(gitObjectCached(ctx, rp, "show", "-s", "--format=%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%P%x00%B", sha))
	p := strings.SplitN(raw, "\x00", 8)
	for len(p) < 8 {
		p = append(p, "")
	}
	person := func(name, email, date string) map[string]any {
		return map[string]any{"name": name, "email": email, "date": date}
	}
	var author any
	if m := noreplyRe.FindStringSubmatch(p[1]); m != nil {
		author = f.simpleUser(m[1] + m[2])
	}
	var parents []any
	for _, ps := range strings.Fields(p[6]) {
		parents = append(parents, map[string]any{"sha": ps, "url": apiBase + "/commits/" + ps, "html_url": html + "/commit/" + ps})
	}
	if parents == nil {
		parents = []any{}
	}
	return map[string]any{"url": apiBase + "/commits/" + sha, "sha": sha, "node_id": "C_" + sha, "html_url": html + "/commit/" + sha,
		"comments_url": apiBase + "/commits/" + sha + "/comments", "author": author, "committer": nil, "parents": parents,
		"commit": map[string]any{"url": apiBase + "/git/commits/" + sha, "author": person(p[0], p[1], p[2]), "committer": person(p[3], p[4], p[5]),
			"message": strings.TrimRight(p[7], "\n"), "comment_count": 0, "tree": map[string]any{"sha": sha, "url": apiBase + "/git/trees/" + sha}}}
}

func must(s string, _ error) string { return s }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ForcePushAs rewrites branch: it commits files on top of onto (a commit
// of the branch's history) by author and force-pushes the result, so the
// commits after onto are no longer on the branch.
func (f *Fake) ForcePushAs(owner, repoName, branch, onto string, files map[string]string, message, author string) (string, error) {
	return f.outsidePush(owner, repoName, func(ctx context.Context, r *repo) (string, error) {
		return scratchClone(ctx, r, branch, onto, func(dir string) error {
			for n, content := range files {
				p := filepath.Join(dir, filepath.FromSlash(n))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					return err
				}
			}
			args := []string{"commit", "-q", "--allow-empty", "-m", message}
			if author != "" {
				args = append(args, "--author", author)
			}
			for _, s := range [][]string{{"add", "-A"}, args, {"push", "-q", r.bare, "+HEAD:refs/heads/" + branch}} {
				if _, err := git(ctx, dir, s...); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
