package ghfake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// preReceive refuses pushes to refs listed in protected-refs, with
// GitHub's GH006 message, and every push while reject-pushes exists (fault
// injection). A push over the HTTP git server (REMOTE_USER is the pusher)
// is also checked against the active rules of the repository's rulesets
// in ruleset-refs (rulesets.go), with GitHub's GH013 message.
const preReceive = `#!/bin/sh
set -f
zero=0000000000000000000000000000000000000000
while read old new ref; do
  if [ -f "$GIT_DIR/reject-pushes" ]; then
    echo "ghfake: push rejected (injected fault)" >&2
    exit 1
  fi
  if [ -f "$GIT_DIR/protected-refs" ] && grep -qxF "$ref" "$GIT_DIR/protected-refs"; then
    # GitHub's words for a push to a protected branch (docs: "About
    # protected branches"; git shows them as "remote: error: GH006 ...").
    echo "error: GH006: Protected branch update failed for $ref." >&2
    exit 1
  fi
  if [ -n "$REMOTE_USER" ] && [ -f "$GIT_DIR/ruleset-refs" ]; then
    while read kind rule inc exc bypass msg; do
      [ -n "$kind" ] || continue
      hit=
      for p in $(echo "$inc" | tr , ' '); do case "$ref" in $p) hit=1;; esac; done
      for p in $(echo "$exc" | tr , ' '); do case "$ref" in $p) hit=;; esac; done
      [ -n "$hit" ] || continue
      case ",$bypass," in *",$REMOTE_USER,"*) continue;; esac
      refuse=
      case "$kind" in
        update) [ "$old" != "$zero" ] && [ "$new" != "$zero" ] && refuse=1;;
        ff) [ "$old" != "$zero" ] && [ "$new" != "$zero" ] && ! git merge-base --is-ancestor "$old" "$new" && refuse=1;;
        delete) [ "$new" = "$zero" ] && refuse=1;;
        create) [ "$old" = "$zero" ] && refuse=1;;
      esac
      if [ -n "$refuse" ]; then
        # GitHub's words for a push a ruleset refuses (git shows them as
        # "remote: error: GH013: ..."), then the violated rule.
        echo "error: GH013: Repository rule violations found for $ref." >&2
        echo "- $msg ($rule)" >&2
        exit 1
      fi
    done < "$GIT_DIR/ruleset-refs"
  fi
done
exit 0
`

// gitRuns counts the git processes the fake starts, by the repository
// (or working directory) they run in: its cost tests count them.
var gitRuns sync.Map // dir → *atomic.Int64

func countGit(dir string) {
	n, _ := gitRuns.LoadOrStore(dir, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitCounted(ctx, dir, dir, args...)
}

// gitCounted is git counted under the repository counted (gitRuns).
func gitCounted(ctx context.Context, counted, dir string, args ...string) (string, error) {
	countGit(counted)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=ghfake", "GIT_AUTHOR_EMAIL=ghfake@example.invalid",
		"GIT_COMMITTER_NAME=ghfake", "GIT_COMMITTER_EMAIL=ghfake@example.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// initBare creates a bare repository with one commit on branch: the
// files `git init -q --bare -b BRANCH` writes, copied from the one
// repository initialised per branch name and file system (bareTemplate),
// then the pre-receive hook and the first commit. That commit's bytes
// depend only on the branch and the second it is made in, so a
// repository made in the same second as the previous one of its branch
// and file system is a copy of that one, files and objects, as its own
// fast-import would have written them: no git process.
func initBare(ctx context.Context, dir, branch string) error {
	t := bareTemplateFor(ctx, filepath.Dir(dir), branch)
	now := time.Now().Unix()
	if t != nil {
		if root := t.rootAt(now); root != nil {
			return root.copyTo(dir)
		}
		if err := t.files.copyTo(dir); err != nil {
			return err
		}
	} else if err := gitInit(ctx, dir, branch); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "hooks", "pre-receive"), []byte(preReceive), 0o755); err != nil {
		return fmt.Errorf("writing pre-receive hook: %w", err)
	}
	if _, err := commitFilesAt(ctx, dir, branch, "", map[string]string{"README.md": "# fake repository\n"}, "Initial commit", "", now); err != nil {
		return err
	}
	if t != nil {
		if root, err := readFiles(dir); err == nil {
			t.setRoot(now, root)
		}
	}
	return nil
}

// gitInit is `git init -q --bare -b branch dir`, counted as the
// repository's.
func gitInit(ctx context.Context, dir, branch string) error {
	_, err := gitCounted(ctx, dir, "", "init", "-q", "--bare", "-b", branch, dir)
	return err
}

// treeFiles are every directory and file of a directory with its mode.
type treeFiles struct {
	entries []templateEntry // parents before children
}

// bareTemplate is what `git init -q --bare -b BRANCH` writes, read from
// one such repository. git's choices in it (core.filemode, core.symlinks,
// core.ignorecase …) are probes of the file system, so a template serves
// one file system. root is the last repository initBare made from it,
// first commit included, and the second that commit was made in.
type bareTemplate struct {
	files *treeFiles

	mu         sync.Mutex
	rootSecond int64
	root       *treeFiles
}

// rootAt is the repository made from the template with its first commit
// made in second now, nil when the last one was made in another second.
func (t *bareTemplate) rootAt(now int64) *treeFiles {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.root != nil && t.rootSecond == now {
		return t.root
	}
	return nil
}

func (t *bareTemplate) setRoot(now int64, root *treeFiles) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rootSecond, t.root = now, root
}

type templateEntry struct {
	rel  string
	mode fs.FileMode
	data []byte // nil for a directory
}

// templateKey names a template: the branch, the file system, and the
// variables that choose the configuration and templates git init reads.
type templateKey struct {
	branch string
	dev    uint64
	env    string
}

var bareTemplates sync.Map // templateKey → *bareTemplateOnce

type bareTemplateOnce struct {
	once sync.Once
	t    *bareTemplate
}

// bareTemplateFor is the template for branch on parent's file system,
// made on first use by git init in a directory beside the repositories;
// nil when it cannot be made (the caller runs git init itself).
func bareTemplateFor(ctx context.Context, parent, branch string) *bareTemplate {
	st, err := os.Stat(parent)
	if err != nil {
		return nil
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	var env []string
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOGLOBAL", "GIT_TEMPLATE_DIR", "GIT_DEFAULT_HASH"} {
		v, ok := os.LookupEnv(k)
		env = append(env, fmt.Sprintf("%s=%t:%s", k, ok, v))
	}
	v, _ := bareTemplates.LoadOrStore(templateKey{branch, uint64(sys.Dev), strings.Join(env, "\x00")}, new(bareTemplateOnce))
	o := v.(*bareTemplateOnce)
	o.once.Do(func() { o.t = makeBareTemplate(ctx, parent, branch) })
	return o.t
}

func makeBareTemplate(ctx context.Context, parent, branch string) *bareTemplate {
	tmp, err := os.MkdirTemp(parent, ".ghfake-template-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "t.git")
	if err := gitInit(ctx, dir, branch); err != nil {
		return nil
	}
	files, err := readFiles(dir)
	if err != nil {
		return nil
	}
	return &bareTemplate{files: files}
}

// readFiles reads every directory and file under dir.
func readFiles(dir string) (*treeFiles, error) {
	t := &treeFiles{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := templateEntry{rel: rel, mode: info.Mode()}
		switch {
		case d.IsDir():
		case info.Mode().IsRegular():
			if e.data, err = os.ReadFile(p); err != nil {
				return err
			}
			if e.data == nil {
				e.data = []byte{}
			}
		default:
			return fmt.Errorf("%s is neither a file nor a directory", rel)
		}
		t.entries = append(t.entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// copyTo writes the directories and files under dir.
func (t *treeFiles) copyTo(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for _, e := range t.entries {
		p := filepath.Join(dir, e.rel)
		var err error
		if e.data == nil {
			err = os.Mkdir(p, e.mode.Perm())
		} else {
			err = os.WriteFile(p, e.data, e.mode.Perm())
		}
		if err != nil {
			return fmt.Errorf("copying the bare repository template: %w", err)
		}
	}
	return nil
}

// commitFiles commits files on top of from (a branch; empty for a root
// commit) and pushes the result to branch through the hooks.
func commitFiles(ctx context.Context, bare, branch, from string, files map[string]string, msg string) (string, error) {
	return commitFilesAs(ctx, bare, branch, from, files, msg, "")
}

// commitFilesAs is commitFiles with the commit's author ("Name <email>"),
// or ghfake's when empty. One git fast-import writes the commit and moves
// the branch: one process where a push through the pre-receive hook took
// six (push, shell, receive-pack, hook, grep). The push's refusals hold
// all the same: refusePushLocked applies the hook's protected-refs and
// reject-pushes first, and fast-import, like a push without force,
// refuses to move a branch to a commit that does not contain its tip.
// Rulesets are not checked: they apply to pushes over the HTTP git
// server (see AddRuleset), which still go through the hook.
func commitFilesAs(ctx context.Context, bare, branch, from string, files map[string]string, msg, author string) (string, error) {
	return commitFilesAt(ctx, bare, branch, from, files, msg, author, time.Now().Unix())
}

// commitFilesAt is commitFilesAs with the commit's time (Unix seconds).
func commitFilesAt(ctx context.Context, bare, branch, from string, files map[string]string, msg, author string, now int64) (string, error) {
	tmp, err := os.MkdirTemp("", "ghfake-work-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if author == "" {
		author = "ghfake <ghfake@example.invalid>"
	}
	if strings.ContainsAny(author, "\n\x00") || !strings.HasSuffix(author, ">") || !strings.Contains(author, " <") {
		return "", fmt.Errorf("commit author %q is not \"Name <email>\"", author)
	}
	if err := refusePush(bare, "refs/heads/"+branch); err != nil {
		return "", err
	}
	var in bytes.Buffer
	fmt.Fprintf(&in, "commit refs/heads/%s\nmark :1\nauthor %s %d +0000\ncommitter ghfake <ghfake@example.invalid> %d +0000\ndata %d\n%s\n", branch, author, now, now, len(msg), msg)
	if from != "" {
		fmt.Fprintf(&in, "from refs/heads/%s^0\n", from)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "\n\x00") || strings.HasPrefix(n, "\"") {
			return "", fmt.Errorf("file name %q cannot be committed", n)
		}
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", n, len(files[n]), files[n])
	}
	marks := filepath.Join(tmp, "marks")
	countGit(bare)
	cmd := exec.CommandContext(ctx, "git", "--git-dir="+bare, "fast-import", "--quiet", "--export-marks="+marks)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git fast-import: %w: %s", err, strings.TrimSpace(string(out)))
	}
	b, err := os.ReadFile(marks)
	if err != nil {
		return "", err
	}
	sha, ok := strings.CutPrefix(strings.TrimSpace(string(b)), ":1 ")
	if !ok || len(sha) != 40 {
		return "", fmt.Errorf("git fast-import: no commit in its marks %q", b)
	}
	return sha, nil
}

// refusePush is the pre-receive hook's first two checks for a push of
// ref, in its words: every push while reject-pushes exists, and a push to
// a ref listed in protected-refs.
func refusePush(bare, ref string) error {
	if _, err := os.Stat(filepath.Join(bare, "reject-pushes")); err == nil {
		return errors.New("push refused: ghfake: push rejected (injected fault)")
	}
	b, err := os.ReadFile(filepath.Join(bare, "protected-refs"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if slices.Contains(strings.Split(string(b), "\n"), ref) {
		//lint:ignore ST1005 GitHub's words, as the hook prints them, end with a period.
		return fmt.Errorf("push refused: error: GH006: Protected branch update failed for %s.", ref)
	}
	return nil
}

// readRef reads a branch tip straight from the bare repository's files,
// so pushes made by anyone are seen on the next request.
func readRef(bare, branch string) string {
	return readRefFile(bare, "refs/heads/"+branch)
}

// readRefFile is the content of the ref named in full (refs/…), from its
// loose file or packed-refs; "" when it is in neither.
func readRefFile(bare, ref string) string {
	if b, err := os.ReadFile(filepath.Join(bare, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	b, err := os.ReadFile(filepath.Join(bare, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sha
		}
	}
	return ""
}

// branchSHA is readRef on r's bare repository; the commit it names is
// recorded as known (see knowCommit).
func (r *repo) branchSHA(branch string) string {
	sha := readRef(r.bare, branch)
	if !slices.Contains(strings.Split(branch, "/"), "..") {
		r.memo.knowCommit(sha)
	}
	return sha
}

// setPullRef points refs/pull/<number>/head of r's bare repository at
// sha, as GitHub keeps every pull request's head (a fork's too) in the
// base repository and moves it on each push to the head branch. It is a
// loose ref written in place (temporary file, then rename), so the smart
// HTTP server advertises it and no git process is started.
func (r *repo) setPullRef(number int, sha string) error {
	if sha == "" {
		return nil
	}
	dir := filepath.Join(r.bare, "refs", "pull", strconv.Itoa(number))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing refs/pull/%d/head: %w", number, err)
	}
	tmp, err := os.CreateTemp(dir, "head.lock*")
	if err != nil {
		return fmt.Errorf("writing refs/pull/%d/head: %w", number, err)
	}
	_, werr := tmp.WriteString(sha + "\n")
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing refs/pull/%d/head: %w", number, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, "head")); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing refs/pull/%d/head: %w", number, err)
	}
	return nil
}

// objectMemo keeps, for one bare repository, the answers of read-only git
// queries that name every revision by full SHA: a commit's content, its
// trees and its ancestry never change, so each answer holds for the life
// of the repository. Every git process costs milliseconds, and the
// GraphQL, compare, commit and contents handlers ask the same questions on
// every cycle. A query naming a branch (or HEAD, or an abbreviated SHA) is
// never kept: pinnedQuery allows only full SHAs.
type objectMemo struct {
	answers sync.Map // variant + NUL + args → objectAnswer
	objects sync.Map // SHA → true: objects known to exist
	commits sync.Map // SHA → true: commits known to exist (a branch's tip, a commit written)
}

type objectAnswer struct {
	out string // untrimmed
	err error
}

// knowCommit records that sha, read from a branch ref or written by the
// fake, is a commit of the repository: git keeps only commits in
// refs/heads, and an object never leaves a repository the fake does not
// collect garbage in.
func (m *objectMemo) knowCommit(sha string) {
	if shaRe.MatchString(sha) {
		m.commits.Store(sha, true)
		m.objects.Store(sha, true)
	}
}

// isCommit answers `git cat-file -e SHA^{commit}` for a full SHA: from
// the commits known, else from git, keeping a yes (a commit can appear
// later, never disappear).
func (r *repo) isCommit(ctx context.Context, sha string) bool {
	if !shaRe.MatchString(sha) {
		return false
	}
	if _, ok := r.memo.commits.Load(sha); ok {
		return true
	}
	if _, err := gitObjectCached(ctx, r, "cat-file", "-e", sha+"^{commit}"); err != nil {
		return false
	}
	r.memo.knowCommit(sha)
	return true
}

// gitObjectCached is git in r's bare repository for a read-only query:
// kept when pinnedQuery allows it, run every time otherwise. Its output is
// trimmed, as git's.
func gitObjectCached(ctx context.Context, r *repo, args ...string) (string, error) {
	out, err := r.gitPinned(ctx, false, args...)
	return strings.TrimSpace(out), err
}

// gitPinned runs a read-only git query in r's bare repository (with
// --literal-pathspecs when literal) and returns its output untrimmed. The
// answer is kept when pinnedQuery allows it: a success always; a failure
// only when git ran and said no (exit status 1 or 128) about objects that
// all exist, so a "no such path" or "no merge base" is kept but a
// "no such commit" is not (it may be pushed later). The counted git
// processes (gitRuns) are those started.
func (r *repo) gitPinned(ctx context.Context, literal bool, args ...string) (string, error) {
	shas, pinned := pinnedQuery(args)
	key := "g\x00"
	if literal {
		key = "l\x00"
	}
	key += strings.Join(args, "\x00")
	if pinned {
		if a, ok := r.memo.answers.Load(key); ok {
			return a.(objectAnswer).out, a.(objectAnswer).err
		}
	}
	out, err := runGitDir(ctx, r.bare, literal, args...)
	if !pinned {
		return out, err
	}
	if err == nil {
		if args[0] != "rev-parse" { // rev-parse --verify names a full SHA without reading it
			for _, s := range shas {
				r.memo.objects.Store(s, true)
			}
		}
		r.memo.answers.Store(key, objectAnswer{out, nil})
		return out, nil
	}
	var exit *exec.ExitError
	if ctx.Err() != nil || !errors.As(err, &exit) || (exit.ExitCode() != 1 && exit.ExitCode() != 128) {
		return out, err
	}
	if args[0] == "cat-file" && args[1] == "-e" && !strings.Contains(args[2], ":") {
		return out, err // "no such object": it may be pushed later
	}
	for _, s := range shas {
		if !r.objectExists(ctx, s) {
			return out, err
		}
	}
	r.memo.answers.Store(key, objectAnswer{out, err})
	return out, err
}

// objectExists is `git cat-file -e SHA`, keeping a yes.
func (r *repo) objectExists(ctx context.Context, sha string) bool {
	if _, ok := r.memo.objects.Load(sha); ok {
		return true
	}
	if _, err := runGitDir(ctx, r.bare, false, "cat-file", "-e", sha); err != nil {
		return false
	}
	r.memo.objects.Store(sha, true)
	return true
}

// runGitDir runs git on the bare repository and returns its untrimmed
// output.
func runGitDir(ctx context.Context, bare string, literal bool, args ...string) (string, error) {
	countGit(bare)
	pre := []string{"--git-dir", bare}
	if literal {
		pre = append(pre, "--literal-pathspecs")
	}
	cmd := exec.CommandContext(ctx, "git", append(pre, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// The read-only subcommands a kept query may run, and the options that
// do not bring refs, notes, the clock or the configuration into its
// answer (an allow-list: anything else runs every time).
var (
	pinnedCommands = map[string]bool{"merge-base": true, "diff": true, "ls-tree": true, "cat-file": true,
		"show": true, "rev-list": true, "rev-parse": true}
	pinnedOptions = map[string]bool{"-e": true, "-p": true, "-t": true, "-s": true, "-r": true, "-z": true,
		"-l": true, "-q": true, "--name-only": true, "--numstat": true, "--no-renames": true, "--no-color": true,
		"--no-ext-diff": true, "--count": true, "--reverse": true, "--verify": true, "--quiet": true, "--full-tree": true}
	// pinnedFormat is a --format= of placeholders that read the commit
	// only (no %d decorations, %N notes, %G signatures or dates relative
	// to now).
	pinnedFormat = regexp.MustCompile(`^--format=([^%]|%(an|ae|aI|cn|ce|cI|P|B|H|T|s|x00|n))*$`)
)

// pinnedQuery reports whether git answers args the same for the life of
// the repository — a read-only subcommand, allowed options, and every
// revision a full SHA (alone, with ^, ^{commit}, ^{tree} or :path, or
// two in a range) — and the SHAs it names.
func pinnedQuery(args []string) ([]string, bool) {
	if len(args) < 2 || !pinnedCommands[args[0]] {
		return nil, false
	}
	var shas []string
	for i, a := range args[1:] {
		switch {
		case a == "--": // paths follow: they name nothing that can change
			return shas, len(shas) > 0
		case strings.HasPrefix(a, "--format="):
			if !pinnedFormat.MatchString(a) {
				return nil, false
			}
		case strings.HasPrefix(a, "-"):
			if !pinnedOptions[a] {
				return nil, false
			}
		case args[0] == "cat-file" && i == 0 && (a == "blob" || a == "tree" || a == "commit"):
		default:
			sides := []string{a}
			if !strings.Contains(a, ":") {
				if l, r, ok := strings.Cut(a, "..."); ok {
					sides = []string{l, r}
				} else if l, r, ok := strings.Cut(a, ".."); ok {
					sides = []string{l, r}
				}
			}
			for _, s := range sides {
				if len(s) < 40 || !shaRe.MatchString(s[:40]) {
					return nil, false
				}
				switch rest := s[40:]; {
				case rest == "", rest == "^", rest == "^{commit}", rest == "^{tree}", strings.HasPrefix(rest, ":"):
				default:
					return nil, false
				}
				shas = append(shas, s[:40])
			}
		}
	}
	return shas, len(shas) > 0
}

// pinHead turns a revision expression starting with HEAD or a branch
// name into the same expression on the commit SHA it names now, read
// from the ref files (no process); ok is false when it cannot.
func pinHead(bare, expr string) (string, bool) {
	rev, rest, _ := strings.Cut(expr, ":")
	if len(rev) == 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return expr, true
	}
	if rev == "HEAD" {
		b, err := os.ReadFile(filepath.Join(bare, "HEAD"))
		if err != nil {
			return "", false
		}
		ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
		if !ok {
			return "", false
		}
		rev = ref
	}
	sha := readRef(bare, rev)
	if sha == "" || strings.ContainsAny(rev, "^~@{}") {
		return "", false
	}
	if !strings.Contains(expr, ":") {
		return sha, true
	}
	return sha + ":" + rest, true
}
