package ghfake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
	countGit(dir)
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

// initBare creates a bare repository with one commit on branch.
func initBare(ctx context.Context, dir, branch string) error {
	if _, err := git(ctx, "", "init", "-q", "--bare", "-b", branch, dir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "hooks", "pre-receive"), []byte(preReceive), 0o755); err != nil {
		return fmt.Errorf("writing pre-receive hook: %w", err)
	}
	_, err := commitFiles(ctx, dir, branch, "", map[string]string{"README.md": "# fake repository\n"}, "Initial commit")
	return err
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
	now := time.Now().Unix()
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
	if b, err := os.ReadFile(filepath.Join(bare, "refs", "heads", filepath.FromSlash(branch))); err == nil {
		return strings.TrimSpace(string(b))
	}
	b, err := os.ReadFile(filepath.Join(bare, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if sha, ref, ok := strings.Cut(line, " "); ok && ref == "refs/heads/"+branch {
			return sha
		}
	}
	return ""
}

// objects caches the answers of git commands that name their objects by
// SHA only: a SHA's content never changes, so each answer (found or not)
// holds for the life of the repository. Every `git` process costs
// milliseconds, and the GraphQL and contents handlers ask the same
// questions on every cycle.
var objects sync.Map // dir + NUL + args → objectAnswer

type objectAnswer struct {
	out string
	err error
}

// gitObjectCached is git for a command whose answer depends only on the
// object SHAs in args. A failure is kept only when git ran and said no
// (exit status 1 or 128: no such object or path), never when it could
// not run.
func gitObjectCached(ctx context.Context, dir string, args ...string) (string, error) {
	key := dir + "\x00" + strings.Join(args, "\x00")
	if a, ok := objects.Load(key); ok {
		return a.(objectAnswer).out, a.(objectAnswer).err
	}
	out, err := git(ctx, dir, args...)
	var exit *exec.ExitError
	if err == nil || errors.As(err, &exit) {
		objects.Store(key, objectAnswer{out, err})
	}
	return out, err
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
