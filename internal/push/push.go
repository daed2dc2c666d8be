// Package push is the one way review-loop changes a repository (TB13): it
// turns a validated patch — the bytes of the files a fix claims — into a
// commit on the pull request's head through GitHub's Git database API
// (blobs, a tree on the head's tree as GitHub has it, a commit whose
// parent is the head), then moves the branch by fast-forward only.
//
// Fix is the only code that uses the push token. No git process runs on
// this path, so nothing a repository command could have planted or
// configured — a git or cat on PATH, a credential helper, a replacement
// ref, the checkout's index or config — takes part in making the commit
// or ever sees the token. What it reads from the checkout is the claimed
// files' bytes, each opened without following a symbolic link.
package push

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
)

// Request is one fix commit.
type Request struct {
	// API are the GitHub client's options; their Token is ignored (Fix
	// sets the push token).
	API   github.Options
	Owner string
	Repo  string
	// Branch is the PR head branch, checked by Guard (B5).
	Branch string
	Guard  git.Guard
	// Dir is the checkout the claimed files are read from.
	Dir string
	// Files are the claimed files: the only paths the commit may change.
	Files   []string
	Message string
	// Author, when set, names the commit's author and committer; without
	// it the commit is the token's own, which GitHub signs for a GitHub
	// App or github-actions[bot] token.
	Author git.Identity
}

// Result is the commit made.
type Result struct {
	SHA string
	// Verified is GitHub's word on the commit's signature.
	Verified bool
	// Changed are the claimed files the commit changes, sorted.
	Changed []string
	// Requests are the API requests the push sent (the cost ledger
	// counts them, CL1).
	Requests github.Counts
}

// ErrNothingToCommit: no claimed file differs from the head.
var ErrNothingToCommit = git.ErrNothingToCommit

// ErrHeadMoved: the branch is no longer the commit's parent — someone
// pushed — and GitHub refused the fast-forward; nothing moved.
var ErrHeadMoved = github.ErrNotFastForward

// Fix makes the fix commit for req with token and moves the branch to it.
// ahead is called with the commit's SHA and the requests sent so far
// after the commit exists and before the branch moves (the write-ahead
// save, E5); its error stops the push with nothing moved. A refusal of the branch's protection or rules is a
// *git.RefusedError of rule B5; a branch that moved since the head was
// observed is ErrHeadMoved.
func Fix(ctx context.Context, token string, req Request, ahead func(sha string, spent github.Counts) error) (res Result, err error) {
	if err := req.Guard.Check(req.Branch); err != nil {
		return Result{}, err
	}
	parent := req.Guard.ObservedHeadSHA
	if parent == "" {
		return Result{}, &git.RefusedError{Rule: "W3", Reason: "no observed head SHA to build the fix commit on"}
	}
	local, err := readClaimed(req.Dir, req.Files)
	if err != nil {
		return Result{}, err
	}
	opts := req.API
	opts.Token = token
	gh, err := github.New(opts)
	if err != nil {
		return Result{}, err
	}
	defer func() { res.Requests = gh.Requests() }()
	baseTree, err := gh.CommitTree(ctx, req.Owner, req.Repo, parent)
	if err != nil {
		return Result{}, err
	}
	head := &headTree{gh: gh, owner: req.Owner, repo: req.Repo, root: baseTree, dirs: map[string][]github.TreeEntry{}}
	var entries []github.TreeEntry
	var changed []string
	for _, f := range local {
		at, err := head.entry(ctx, f.path)
		if err != nil {
			return Result{}, err
		}
		switch {
		case f.absent && at == nil:
			continue
		case f.absent:
			entries = append(entries, github.TreeEntry{Path: f.path, Mode: at.Mode, Type: "blob"})
		default:
			mode := "100644" // a new file; an existing one keeps the head's mode
			if at != nil {
				mode = at.Mode
				if at.SHA == blobSHA(f.data) {
					continue
				}
			}
			sha, err := gh.CreateBlob(ctx, req.Owner, req.Repo, f.data)
			if err != nil {
				return Result{}, err
			}
			entries = append(entries, github.TreeEntry{Path: f.path, Mode: mode, Type: "blob", SHA: sha})
		}
		changed = append(changed, f.path)
	}
	if len(entries) == 0 {
		return Result{}, ErrNothingToCommit
	}
	tree, err := gh.CreateTree(ctx, req.Owner, req.Repo, baseTree, entries)
	if err != nil {
		return Result{}, err
	}
	if tree == baseTree {
		return Result{}, ErrNothingToCommit
	}
	nc := github.NewCommit{Message: req.Message, Tree: tree, Parent: parent, AuthorName: req.Author.Name, AuthorEmail: req.Author.Email}
	made, err := gh.CreateCommit(ctx, req.Owner, req.Repo, nc)
	if err != nil {
		return Result{}, err
	}
	res = Result{SHA: made.SHA, Verified: made.Verified, Changed: changed}
	if ahead != nil {
		if err := ahead(made.SHA, gh.Requests()); err != nil {
			return res, err
		}
	}
	if err := gh.FastForward(ctx, req.Owner, req.Repo, req.Branch, made.SHA); err != nil {
		if errors.Is(err, ErrHeadMoved) {
			return res, err
		}
		var ae *github.APIError
		if errors.As(err, &ae) && ae.Status == http.StatusUnprocessableEntity && refusalWords(ae.Message) {
			return res, &git.RefusedError{Rule: "B5", Reason: fmt.Sprintf("GitHub refused to move branch %q: %s", req.Branch, firstLine(ae.Message))}
		}
		return res, fmt.Errorf("pushing the fix commit: %w", err)
	}
	return res, nil
}

// refusalWords tells GitHub's refusals of a protected branch or a
// ruleset ("Protected branch update failed", "Repository rule violations
// found") from other failures.
func refusalWords(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "protected branch") || strings.Contains(m, "rule violation")
}

func firstLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	out := lines[0]
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			out += " " + l
		}
	}
	return out
}

// blobSHA is git's object name of a blob holding data.
func blobSHA(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// claimedFile is a claimed file's bytes in the checkout, or its absence.
type claimedFile struct {
	path   string
	data   []byte
	absent bool
}

// maxFileBytes bounds one claimed file, as GitHub's blob API does (100 MB).
const maxFileBytes = 100 << 20

// readClaimed reads each claimed file under dir: a regular file read
// without following a symbolic link anywhere on its path, or absent. A
// path that is not plain, or leads through or to anything else, is
// refused: nothing but the claimed files' bytes is read.
func readClaimed(dir string, files []string) ([]claimedFile, error) {
	paths := slices.Clone(files)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	out := make([]claimedFile, 0, len(paths))
	for _, p := range paths {
		if err := plainPath(p); err != nil {
			return nil, err
		}
		f, err := readOne(dir, p)
		if err != nil {
			return nil, &git.RefusedError{Rule: "TB13", Reason: fmt.Sprintf("the claimed file %s: %v; nothing was pushed", p, err)}
		}
		out = append(out, f)
	}
	return out, nil
}

// plainPath refuses a path git could not hold or that leaves the tree.
func plainPath(p string) error {
	bad := p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.ContainsAny(p, "\x00\\") ||
		slices.ContainsFunc(strings.Split(p, "/"), func(c string) bool { return c == ".." || c == "." || strings.EqualFold(c, ".git") })
	if bad {
		return &git.RefusedError{Rule: "TB13", Reason: fmt.Sprintf("the claimed path %q is not a plain path in the repository; nothing was pushed", p)}
	}
	return nil
}

func readOne(dir, p string) (claimedFile, error) {
	parts := strings.Split(p, "/")
	cur := dir
	for _, c := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return claimedFile{path: p, absent: true}, nil
		case err != nil:
			return claimedFile{}, err
		case fi.Mode()&os.ModeSymlink != 0:
			return claimedFile{}, errors.New("a directory on its path is a symbolic link")
		case !fi.IsDir():
			return claimedFile{path: p, absent: true}, nil
		}
	}
	full := filepath.Join(dir, filepath.FromSlash(p))
	if fi, err := os.Lstat(full); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return claimedFile{}, errors.New("it is a symbolic link")
	}
	fh, err := os.OpenFile(full, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, os.ErrNotExist) {
		return claimedFile{path: p, absent: true}, nil
	}
	if err != nil {
		if fi, lerr := os.Lstat(full); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return claimedFile{}, errors.New("it is a symbolic link")
		}
		return claimedFile{}, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return claimedFile{}, err
	}
	if !fi.Mode().IsRegular() {
		return claimedFile{}, fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > maxFileBytes {
		return claimedFile{}, fmt.Errorf("it is %d bytes, over GitHub's 100 MB", fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxFileBytes+1))
	if err != nil {
		return claimedFile{}, err
	}
	return claimedFile{path: p, data: data}, nil
}

// headTree reads the head's tree from GitHub one directory at a time,
// each directory once.
type headTree struct {
	gh          *github.Client
	owner, repo string
	root        string
	dirs        map[string][]github.TreeEntry // directory path ("" the root) → its entries
}

// entry is the head's entry at p: nil when the head has none. A path
// whose place holds a symbolic link, a submodule or a directory, or
// whose directory is a file at the head, is refused.
func (h *headTree) entry(ctx context.Context, p string) (*github.TreeEntry, error) {
	parts := strings.Split(p, "/")
	sha, dir := h.root, ""
	for i, name := range parts {
		list, ok := h.dirs[dir]
		if !ok {
			var err error
			if list, err = h.gh.Tree(ctx, h.owner, h.repo, sha); err != nil {
				return nil, err
			}
			h.dirs[dir] = list
		}
		idx := slices.IndexFunc(list, func(e github.TreeEntry) bool { return e.Path == name })
		if idx < 0 {
			return nil, nil
		}
		e := list[idx]
		if i == len(parts)-1 {
			if e.Type != "blob" || (e.Mode != "100644" && e.Mode != "100755") {
				return nil, &git.RefusedError{Rule: "TB13", Reason: fmt.Sprintf("the claimed path %s is a %s (mode %s) at the head, not a file; nothing was pushed", p, e.Type, e.Mode)}
			}
			return &e, nil
		}
		if e.Type != "tree" {
			return nil, &git.RefusedError{Rule: "TB13", Reason: fmt.Sprintf("the claimed path %s lies under %s, which is a %s at the head; nothing was pushed", p, path.Join(parts[:i+1]...), e.Type)}
		}
		sha, dir = e.SHA, path.Join(parts[:i+1]...)
	}
	return nil, nil
}
