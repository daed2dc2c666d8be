package git

import (
	"context"
	"strings"
	"testing"
)

// TestRule_B5_TheDenyListReadsArgvAsGitDoes: every form git accepts for a
// merge, a hook skip, a forced or deleting push is refused before git
// runs, global options first or not; the argv the loop itself runs, and
// look-alikes that are none of these, pass.
func TestRule_B5_TheDenyListReadsArgvAsGitDoes(t *testing.T) {
	t.Parallel()
	refused := [][]string{
		// merges, also behind global options
		{"merge", "main"},
		{"pull", "origin", "main"},
		{"-C", "/tmp/x", "merge", "main"},
		{"-c", "user.name=x", "merge", "main"},
		{"--git-dir=/tmp/x/.git", "merge", "main"},
		{"--git-dir", "/tmp/x/.git", "--work-tree", "/tmp/x", "pull"},
		{"--no-pager", "-C", "d", "-c", "a.b=c", "merge", "--ff-only", "main"},
		// hooks skipped
		{"commit", "--no-verify", "-m", "x"},
		{"commit", "-n", "-m", "x"},
		{"commit", "-an", "-m", "x"},
		{"commit", "-nm", "x"},
		{"commit", "-anm", "x"},
		{"commit", "-m", "x", "-n"},
		{"commit", "--no-verif", "-m", "x"},
		{"commit", "--no-ve", "-m", "x"},
		{"-C", "d", "commit", "-n", "-m", "x"},
		{"push", "--no-verify", "origin", "HEAD:refs/heads/x"},
		{"push", "origin", "HEAD:refs/heads/x", "--no-verify"},
		{"am", "--no-verify", "p.patch"},
		// forced pushes
		{"push", "--force", "origin", "x"},
		{"push", "--forc", "origin", "x"},
		{"push", "-f", "origin", "x"},
		{"push", "-uf", "origin", "x"},
		{"push", "-fu", "origin", "x"},
		{"push", "origin", "+HEAD:refs/heads/x"},
		{"push", "origin", "HEAD:refs/heads/y", "+HEAD:refs/heads/x"},
		{"push", "--force-with-lease", "origin", "x"},
		{"push", "--force-with-lease=x:abc", "origin", "x"},
		{"push", "--force-if-includes", "origin", "x"},
		{"push", "--mirror", "origin"},
		{"-c", "x.y=z", "push", "-f", "origin", "x"},
		{"push", "--", "origin", "+x"},
		// deleting pushes
		{"push", "origin", ":x"},
		{"push", "origin", ":refs/heads/x"},
		{"push", "--delete", "origin", "x"},
		{"push", "--del", "origin", "x"},
		{"push", "-d", "origin", "x"},
		{"push", "-ud", "origin", "x"},
		{"push", "--prune", "origin", "refs/heads/*:refs/heads/*"},
		// what cannot be read is refused
		{"--unknown-global", "merge"},
		{"-c", "alias.up=merge", "up", "main"},
		{"-c", "alias.ci=commit --no-verify", "ci"},
		{"--config-env=alias.x=ENV", "x"},
		{"-c", "remote.origin.push=+refs/heads/*:refs/heads/*", "push", "origin"},
		{"-c", "remote.origin.mirror=true", "push", "origin"},
		{"-c", "push.followTags=true", "push", "origin"},
		{"-C"},
		{},
	}
	allowed := [][]string{
		{"push", "--porcelain", "origin", "HEAD:refs/heads/feature"},
		{"-C", "d", "push", "--porcelain", "origin", "HEAD:refs/heads/feature"},
		{"push", "-u", "origin", "HEAD:refs/heads/feature"},
		{"push", "--no-force-with-lease", "origin", "HEAD:refs/heads/feature"},
		{"push", "-o", "ci.skip", "origin", "HEAD:refs/heads/feature"},
		{"push", "-of", "origin", "HEAD:refs/heads/feature"}, // -o takes "f" as its value
		{"commit", "--quiet", "--file=-", "--", "a.go", "-n", "--no-verify"},
		{"commit", "-m", "no verify", "-a"},
		{"commit", "-mn"}, // the message "n"
		{"commit", "-am", "x"},
		{"commit", "-C", "HEAD", "-a"},
		{"-c", "core.hooksPath=/dev/null", "-c", "user.name=x", "commit", "-m", "x"},
		{"--no-pager", "--git-dir=/x/.git", "status", "--porcelain=v1", "-z"},
		{"fetch", "--no-tags", "origin", "refs/heads/x:refs/remotes/origin/x"},
		{"fetch", "origin", "+refs/heads/x:refs/remotes/origin/x"},
		{"checkout", "-B", "feature", "refs/remotes/origin/feature"},
		{"clean", "-q", "-f", "--", "new.txt"},
		{"rm", "-r", "--cached", "--ignore-unmatch", "-q", "--", "x"},
		{"reset", "--hard", "abc"},
		{"merge-base", "HEAD", "main"},
		{"show", "abc:path"},
	}
	for _, args := range refused {
		if err := forbidden(args); err == nil || !strings.Contains(err.Error(), "refused") && !strings.Contains(err.Error(), "no subcommand") {
			t.Errorf("git %q: got %v, want a refusal", args, err)
		}
	}
	for _, args := range allowed {
		if err := forbidden(args); err != nil {
			t.Errorf("git %q: refused: %v", args, err)
		}
	}
	// Through the runner: nothing refused reaches git.
	g := &Runner{Dir: t.TempDir(), Git: "/nonexistent/git"}
	for _, args := range refused {
		_, _ = g.Run(context.Background(), args...)
	}
	if calls := g.Calls(); len(calls) != 0 {
		t.Fatalf("refused argv reached git: %q", calls)
	}
}

// FuzzForbidden: any argv is read without a panic, and a merge behind
// -C <anything> is always refused.
func FuzzForbidden(f *testing.F) {
	for _, s := range []string{"push\x00--porcelain\x00origin\x00HEAD:refs/heads/x", "-C\x00d\x00commit\x00-anm\x00x", "-c\x00a=b\x00push\x00origin\x00:x", "commit\x00--\x00-n", "--git-dir=x\x00status"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		_ = forbidden(args)
		if err := forbidden([]string{"-C", s, "merge"}); err == nil {
			t.Fatalf("-C %q merge: allowed", s)
		}
	})
}
