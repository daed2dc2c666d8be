package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/reap"
)

// countCalls counts the recorded git runs whose argv starts with prefix.
func countCalls(r *Runner, prefix ...string) int {
	n := 0
	for _, c := range r.Calls() {
		if len(c) >= len(prefix) && strings.Join(c[:len(prefix)], " ") == strings.Join(prefix, " ") {
			n++
		}
	}
	return n
}

// C1: HEAD, the git directory and the repository's config listing are
// each read once while nothing writes; review-loop's own git write (the
// commit) makes the next read run git again and see the new answer.
//
// Not parallel: a repository command that another test starts or ends
// changes the epoch every memoized answer belongs to (reap.Generation), and
// the counts below would then depend on the other tests' timing.
func TestRule_C1_AQueryRunsOnceUntilAWrite(t *testing.T) {
	tr, r := newRepo(t)
	ctx := context.Background()
	for range 3 {
		if _, err := r.Git.Head(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Git.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Git.ChangedFiles(ctx); err != nil { // a read: keeps the answers
			t.Fatal(err)
		}
	}
	if _, err := r.Git.DropPersistedCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{"rev-parse --verify": 1, "rev-parse --git-common-dir": 1, "config --file": 1, "status": 3} {
		if got := countCalls(r.Git, strings.Fields(q)...); got != want {
			t.Errorf("git %s ran %d times, want %d: %v", q, got, want, r.Git.Calls())
		}
	}
	before := tr.Head(t)
	sha := commitChange(t, tr, r)
	if sha == before {
		t.Fatalf("the commit's SHA is the old HEAD %s", before)
	}
	if got, err := r.Git.Head(ctx); err != nil || got != sha {
		t.Fatalf("HEAD after the commit: %q, %v; want %s", got, err, sha)
	}
}

// runCommand runs a repository command in dir as the fix cycle does.
func runCommand(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if err := reap.RunCommand(cmd); err != nil {
		t.Fatal(err)
	}
}

// W3: a command that commits (a fixer, a test script) moves HEAD; the
// commit review-loop makes next must see it and refuse, though HEAD was
// read before the command ran.
func TestRule_W3_ACommitByACommandIsSeenThoughHEADWasReadBefore(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	if head, err := r.Git.Head(context.Background()); err != nil || head != r.Guard.ObservedHeadSHA {
		t.Fatalf("HEAD %q, %v", head, err)
	}
	runCommand(t, tr.Dir, "git -c user.name=x -c user.email=x@example.com commit -q --allow-empty -m sneaked")
	tr.Write(t, map[string]string{"README.md": "changed\n"})
	_, err := r.Commit(context.Background(), CommitRequest{Files: []string{"README.md"}, Message: "fix(review): x\n"})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Rule != "W3" {
		t.Fatalf("Commit after a command committed: %v, want a W3 refusal", err)
	}
}

// TB2: config a command plants after the baseline was read is in the next
// snapshot, though the same Runner read the config before.
func TestRule_TB2_ConfigACommandPlantsIsInTheNextSnapshot(t *testing.T) {
	t.Parallel()
	tr, r := newRepo(t)
	base, err := r.Git.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runCommand(t, tr.Dir, "git config core.sshCommand evil")
	now, err := r.Git.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if gained := base.Gained(now); len(gained) != 1 || gained[0] != "config core.sshcommand" {
		t.Fatalf("gained %v, want [config core.sshcommand]", gained)
	}
}
