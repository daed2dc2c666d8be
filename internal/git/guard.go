package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Guard holds what the caller observed about the pull request; every
// commit and push is checked against it first (rule B5, W3).
type Guard struct {
	// HeadBranch is the PR's head branch, the only branch we write to.
	HeadBranch string
	// DefaultBranch is the repository's default branch.
	DefaultBranch string
	// Protected is the API's answer on whether HeadBranch is protected.
	Protected bool
	// Fork is true when the PR comes from a fork (report-only).
	Fork bool
	// ObservedHeadSHA is the PR head SHA the cycle observed; HEAD must
	// still be it when we commit.
	ObservedHeadSHA string
}

// RefusedError is a guardrail refusal; nothing was written.
type RefusedError struct {
	Rule   string
	Reason string
}

// Error names the rule and the reason.
func (e *RefusedError) Error() string { return fmt.Sprintf("refused (%s): %s", e.Rule, e.Reason) }

// Check refuses a write to the branch without running git: the default or
// a protected branch, a fork PR, or a branch name git could misread.
func (g Guard) Check(branch string) error {
	switch {
	case g.Fork:
		return &RefusedError{Rule: "B5", Reason: "the pull request comes from a fork; fork PRs are report-only"}
	case branch == "" || g.HeadBranch == "":
		return &RefusedError{Rule: "B5", Reason: "no head branch given"}
	case branch != g.HeadBranch:
		return &RefusedError{Rule: "B5", Reason: fmt.Sprintf("branch %q is not the PR head branch %q", branch, g.HeadBranch)}
	case g.DefaultBranch == "":
		return &RefusedError{Rule: "B5", Reason: "the default branch is unknown"}
	case branch == g.DefaultBranch:
		return &RefusedError{Rule: "B5", Reason: fmt.Sprintf("branch %q is the default branch", branch)}
	case g.Protected:
		return &RefusedError{Rule: "B5", Reason: fmt.Sprintf("branch %q is protected", branch)}
	}
	return plainBranch(branch)
}

// plainBranch refuses a branch name git could misread as an option or a
// revision expression.
func plainBranch(branch string) error {
	if branch == "" || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, " \t\n:~^?*[\\") || strings.Contains(branch, "..") {
		return &RefusedError{Rule: "B5", Reason: fmt.Sprintf("branch name %q is not a plain branch name", branch)}
	}
	return nil
}

// Identity is a commit author and committer.
type Identity struct {
	Name  string
	Email string
}

// DefaultIdentity is the GitHub Actions bot, used when no identity is given.
var DefaultIdentity = Identity{Name: "github-actions[bot]", Email: "41898282+github-actions[bot]@users.noreply.github.com"}

// Closed is one finding a commit closes, listed in the commit body (E4).
type Closed struct {
	ID        string
	Engine    string
	CommentID int64
	Title     string
}

// Message builds the cycle's commit message (rule E4):
// `fix(SCOPE): address review N (PR #M)` and a body listing every finding
// closed with its engine and comment id.
func Message(review, pr int, files []string, closed []Closed) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fix(%s): address review %d (PR #%d)\n\n", Scope(files), review, pr)
	b.WriteString("Findings closed:\n")
	for _, c := range closed {
		fmt.Fprintf(&b, "- %s (%s, comment %d)", c.ID, c.Engine, c.CommentID)
		if t := oneLine(c.Title); t != "" {
			fmt.Fprintf(&b, ": %s", t)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 72 {
		s = s[:69] + "..."
	}
	return s
}

// Scope is the commit scope for files: the package they share (the
// directory under internal/, pkg/ or cmd/, e.g. "fix"), else their common
// top-level directory, else "review" when they are mixed or at the root.
func Scope(files []string) string {
	var common []string
	for i, f := range files {
		dir := strings.Split(path.Dir(path.Clean(strings.TrimPrefix(f, "./"))), "/")
		if dir[0] == "." || dir[0] == "" {
			return "review"
		}
		if i == 0 {
			common = dir
			continue
		}
		n := 0
		for n < len(common) && n < len(dir) && common[n] == dir[n] {
			n++
		}
		common = common[:n]
	}
	switch {
	case len(common) == 0:
		return "review"
	case common[0] == "internal" || common[0] == "pkg" || common[0] == "cmd":
		if len(common) == 1 {
			return "review"
		}
		return common[1]
	}
	return common[0]
}

// Repo is a checkout the loop writes to, behind its guard.
type Repo struct {
	Git   *Runner
	Guard Guard
	// Baseline is the git config and hooks snapshot taken before the
	// cycle ran any command; CheckUnchanged refuses when the checkout gained
	// anything since (TB2). Nil skips the check.
	Baseline *Snapshot
}

// CommitRequest is one cycle's commit.
type CommitRequest struct {
	// Files are the paths to commit; nothing else is staged.
	Files   []string
	Message string
	Author  Identity
}

// Commit stages exactly req.Files and makes one local commit (B6) and
// returns its SHA. It pushes nothing: the fix commit the Action pushes is
// made through the API by internal/push (TB13). The
// guardrails run first; a HEAD that is no longer the observed PR head (an
// outside push, W3) is refused before anything is staged.
func (r *Repo) Commit(ctx context.Context, req CommitRequest) (string, error) {
	if err := r.Guard.Check(r.Guard.HeadBranch); err != nil {
		return "", err
	}
	if r.Guard.ObservedHeadSHA == "" {
		return "", &RefusedError{Rule: "W3", Reason: "no observed head SHA to compare HEAD with"}
	}
	if len(req.Files) == 0 {
		return "", ErrNothingToCommit
	}
	head, err := r.Git.Head(ctx)
	if err != nil {
		return "", fmt.Errorf("reading HEAD: %w", err)
	}
	if head != r.Guard.ObservedHeadSHA {
		return "", &RefusedError{Rule: "W3", Reason: fmt.Sprintf("HEAD %s is not the observed PR head %s: someone pushed", short(head), short(r.Guard.ObservedHeadSHA))}
	}
	files := slices.Clone(req.Files)
	slices.Sort(files)
	files = slices.Compact(files)
	if _, err := r.Git.Run(ctx, append([]string{"add", "-A", "--"}, files...)...); err != nil {
		return "", fmt.Errorf("staging: %w", err)
	}
	if _, err := r.Git.Run(ctx, "diff", "--cached", "--quiet"); err == nil {
		return "", ErrNothingToCommit
	}
	id := req.Author
	if id.Name == "" || id.Email == "" {
		id = DefaultIdentity
	}
	env := []string{
		"GIT_AUTHOR_NAME=" + id.Name, "GIT_AUTHOR_EMAIL=" + id.Email,
		"GIT_COMMITTER_NAME=" + id.Name, "GIT_COMMITTER_EMAIL=" + id.Email,
	}
	args := append([]string{"commit", "--quiet", "--file=-", "--"}, files...)
	if _, err := r.Git.run(ctx, env, []byte(req.Message), args...); err != nil {
		return "", fmt.Errorf("committing: %w", err)
	}
	return r.Git.Head(ctx)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// FetchBranch fetches branch from the origin URL into
// refs/remotes/origin/<branch> with token (the example workflows check out
// with persist-credentials: false, so the checkout holds no credentials of
// its own); into a shallow repository, the tip alone. The fetch
// runs in a git directory of its own, by explicit URL (TB7); the objects
// land in the checkout's object directory.
func (r *Runner) FetchBranch(ctx context.Context, branch, token string) error {
	if err := plainBranch(branch); err != nil {
		return err
	}
	common, err := r.commonDir(ctx)
	if err != nil {
		return err
	}
	remote, err := r.originURL(ctx, common)
	if err != nil {
		return err
	}
	_, err = os.Stat(filepath.Join(common, "shallow"))
	return r.fetchInto(ctx, common, remote, branch, token, err == nil)
}

// fetchInto fetches branch from remote into refs/remotes/origin/<branch>
// of the repository whose git directory is common; shallow fetches the
// tip alone.
func (r *Runner) fetchInto(ctx context.Context, common, remote, branch, token string, shallow bool) error {
	t, err := r.target(remote, token)
	if err != nil {
		return err
	}
	// The checkout's branch and remote-tracking tips tell the server what
	// it need not send.
	refs, err := r.Run(ctx, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", "refs/remotes")
	if err != nil {
		return err
	}
	n, err := r.newNetRepo(ctx, common)
	if err != nil {
		return err
	}
	defer n.close()
	if err := os.WriteFile(filepath.Join(n.dir, "packed-refs"), []byte(refs), 0o600); err != nil {
		return err
	}
	if err := r.checkResolved(ctx, n.dir, t.URL); err != nil {
		return err
	}
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head"}
	if shallow {
		// A shallow checkout (fetch-depth: 1, or review-loop's own clone)
		// fetches the branch tip alone: without --depth git would fetch
		// the branch's whole history, which review-loop never reads.
		args = append(args, "--depth=1")
	}
	const fetched = "refs/review-loop/fetched"
	if _, err := n.run(ctx, r, t, token, append(args, t.URL, "refs/heads/"+branch+":"+fetched)...); err != nil {
		return err
	}
	if err := n.adopt(); err != nil {
		return fmt.Errorf("taking in the fetched objects: %w", err)
	}
	sha, err := n.run(ctx, r, Target{}, "", "rev-parse", "--verify", fetched+"^{commit}")
	if err != nil {
		return err
	}
	if b, err := os.ReadFile(filepath.Join(n.dir, "shallow")); err == nil {
		if err := writeAtomic(filepath.Join(common, "shallow"), b); err != nil {
			return fmt.Errorf("recording the shallow boundary: %w", err)
		}
	}
	_, err = r.Run(ctx, "update-ref", "refs/remotes/origin/"+branch, strings.TrimSpace(sha))
	return err
}

// originURL reads origin's push URL, else its URL, from the repository's
// own config file (no includes).
func (r *Runner) originURL(ctx context.Context, common string) (string, error) {
	file := filepath.Join(common, "config")
	for _, key := range []string{"remote.origin.pushurl", "remote.origin.url"} {
		out, err := r.Run(ctx, "config", "--file", file, "--no-includes", "--get", key)
		if err == nil && strings.TrimSpace(out) != "" {
			return strings.TrimSpace(out), nil
		}
	}
	return "", &RefusedError{Rule: "TB7", Reason: "the repository has no origin URL"}
}

// writeAtomic replaces file with data through a temporary file beside it.
func writeAtomic(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".review-loop-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	return os.Rename(tmp.Name(), file)
}
