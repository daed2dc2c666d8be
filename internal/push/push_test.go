package push_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
	"github.com/review-loop/review-loop/internal/git"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/push"
)

const botToken = "ghs_push_test_bot_token"

// world is a PR on branch feature and a directory standing for its
// checkout: no git repository at all, since the push reads nothing but
// the claimed files' bytes.
type world struct {
	fake *ghfake.Fake
	dir  string
	head string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := ghfake.New(ghfake.Options{})
	t.Cleanup(f.Close)
	f.AddToken(botToken, ghfake.Identity{Login: "github-actions", ID: 41898282, Bot: true})
	if err := f.AddRepo("octo", "app", "main"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n", "docs/old.md": "old\n", "keep.txt": "keep\n"}
	if _, err := f.CreatePR("octo", "app", ghfake.PROptions{Head: "feature", Files: files}); err != nil {
		t.Fatal(err)
	}
	w := &world{fake: f, dir: t.TempDir(), head: f.HeadSHA("octo", "app", 1)}
	for p, c := range files {
		w.write(t, p, c)
	}
	return w
}

func (w *world) write(t *testing.T, p, content string) {
	t.Helper()
	full := filepath.Join(w.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w *world) request(files ...string) push.Request {
	return push.Request{
		API: github.Options{APIURL: w.fake.URL(), MaxRetries: -1}, Owner: "octo", Repo: "app", Branch: "feature",
		Guard: git.Guard{HeadBranch: "feature", DefaultBranch: "main", ObservedHeadSHA: w.head},
		Dir:   w.dir, Files: files, Message: "fix(calc): address review 1 (PR #1)\n",
	}
}

// server runs git on the fake's bare repository.
func (w *world) server(t *testing.T, args ...string) string {
	t.Helper()
	bare := strings.TrimPrefix(w.fake.CloneURL("octo", "app"), "file://")
	out, err := exec.Command("git", append([]string{"--git-dir", bare}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TB13: the fix commit changes exactly the claimed files, as their bytes
// say — an edit, a new file, a removal — on the head's tree as GitHub
// has it; the branch moves to it after the write-ahead callback saw it.
func TestRule_TB13_TheCommitHoldsTheClaimedFilesBytes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.write(t, "calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	w.write(t, "calc/new_test.go", "package calc\n")
	if err := os.Remove(filepath.Join(w.dir, "docs", "old.md")); err != nil {
		t.Fatal(err)
	}
	w.write(t, "unclaimed.txt", "never pushed\n")
	var saw string
	res, err := push.Fix(context.Background(), botToken, w.request("calc/calc.go", "calc/new_test.go", "docs/old.md", "keep.txt"), func(sha string, _ github.Counts) error {
		saw = sha
		if got := w.fake.HeadSHA("octo", "app", 1); got != w.head {
			t.Errorf("the branch moved before the write-ahead save: %s", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if saw != res.SHA || w.fake.HeadSHA("octo", "app", 1) != res.SHA {
		t.Fatalf("ahead saw %s, pushed %s, head %s", saw, res.SHA, w.fake.HeadSHA("octo", "app", 1))
	}
	if !res.Verified {
		t.Error("a bot's API commit with no author of its own is not verified")
	}
	if want := []string{"calc/calc.go", "calc/new_test.go", "docs/old.md"}; !slices.Equal(res.Changed, want) {
		t.Errorf("changed %v, want %v", res.Changed, want)
	}
	if got := strings.Fields(w.server(t, "diff", "--name-status", w.head, res.SHA)); !slices.Equal(got, []string{"M", "calc/calc.go", "A", "calc/new_test.go", "D", "docs/old.md"}) {
		t.Errorf("the commit's changes: %v", got)
	}
	if got := w.server(t, "show", res.SHA+":calc/calc.go"); !strings.Contains(got, "a + b") {
		t.Errorf("calc.go at the fix:\n%s", got)
	}
	if got := w.server(t, "log", "-1", "--format=%P %s", res.SHA); got != w.head+" fix(calc): address review 1 (PR #1)" {
		t.Errorf("parent and subject: %q", got)
	}
}

// TB13: a claimed file reached through a symbolic link — the file itself
// or a directory on its path — is refused, and nothing is pushed: the
// push reads nothing but the claimed files.
func TestRule_TB13_ASymlinkIsNeverFollowed(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("ANTHROPIC_API_KEY=sk-ant-never\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, plant := range map[string]func(w *world) error{
		"the file": func(w *world) error {
			p := filepath.Join(w.dir, "calc", "calc.go")
			_ = os.Remove(p)
			return os.Symlink(secret, p)
		},
		"a directory on its path": func(w *world) error {
			d := filepath.Join(w.dir, "calc")
			if err := os.RemoveAll(d); err != nil {
				return err
			}
			other := filepath.Dir(secret)
			if err := os.Rename(secret, filepath.Join(other, "calc.go")); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			return os.Symlink(other, d)
		},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			if err := plant(w); err != nil {
				t.Fatal(err)
			}
			_, err := push.Fix(context.Background(), botToken, w.request("calc/calc.go"), nil)
			var re *git.RefusedError
			if !errors.As(err, &re) || re.Rule != "TB13" || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("err = %v, want a TB13 refusal naming the symbolic link", err)
			}
			if got := w.fake.HeadSHA("octo", "app", 1); got != w.head {
				t.Errorf("the branch moved to %s", got)
			}
		})
	}
}

// TB13 keeps the race behaviour of a push without force: when the branch
// moved since the head was observed, GitHub refuses the fast-forward and
// nothing moves; and a failed write-ahead save moves nothing.
func TestRule_TB13_AMovedBranchOrAFailedSaveMovesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.write(t, "calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	if _, err := push.Fix(context.Background(), botToken, w.request("calc/calc.go"), func(string, github.Counts) error { return errors.New("saving the state: 409") }); err == nil || !strings.Contains(err.Error(), "409") {
		t.Fatalf("err = %v, want the save's", err)
	}
	if got := w.fake.HeadSHA("octo", "app", 1); got != w.head {
		t.Fatalf("a failed save moved the branch to %s", got)
	}
	other, err := w.fake.PushCommit("octo", "app", "feature", map[string]string{"keep.txt": "someone else\n"}, "a person pushed")
	if err != nil {
		t.Fatal(err)
	}
	_, err = push.Fix(context.Background(), botToken, w.request("calc/calc.go"), nil)
	if !errors.Is(err, push.ErrHeadMoved) {
		t.Errorf("err = %v, want ErrHeadMoved", err)
	}
	if got := w.fake.HeadSHA("octo", "app", 1); got != other {
		t.Errorf("the branch is %s, want the other push %s", got, other)
	}
}

// TB13 and B5: nothing to commit is said so; a protected branch is
// refused before any request; a ruleset's refusal is B5's.
func TestRule_TB13_RefusalsAreB5AndNothingToCommitIsSaid(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if _, err := push.Fix(context.Background(), botToken, w.request("calc/calc.go", "keep.txt"), nil); !errors.Is(err, push.ErrNothingToCommit) {
		t.Errorf("unchanged files: err = %v, want ErrNothingToCommit", err)
	}
	w.write(t, "calc/calc.go", "changed\n")
	req := w.request("calc/calc.go")
	req.Guard.Protected = true
	w.fake.ResetRequests()
	var re *git.RefusedError
	if _, err := push.Fix(context.Background(), botToken, req, nil); !errors.As(err, &re) || re.Rule != "B5" {
		t.Errorf("protected: err = %v, want B5", err)
	}
	if n := len(w.fake.Requests()); n != 0 {
		t.Errorf("a refused push sent %d requests", n)
	}
	if _, err := w.fake.AddRuleset("octo", "app", ghfake.Ruleset{Name: "no updates", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "update"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := push.Fix(context.Background(), botToken, w.request("calc/calc.go"), nil)
	if !errors.As(err, &re) || re.Rule != "B5" || !strings.Contains(err.Error(), "Cannot update this protected ref") {
		t.Errorf("ruleset: err = %v, want B5 with GitHub's words", err)
	}
}

// TB13: a branch whose ruleset requires signed commits accepts the fix,
// made through the API with the bot's token and no custom author (GitHub
// signs it); with a custom author GitHub does not sign it and the rule
// refuses it.
func TestRule_TB13_ASignedCommitsBranchAcceptsTheFix(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if _, err := w.fake.AddRuleset("octo", "app", ghfake.Ruleset{Name: "signed", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}}); err != nil {
		t.Fatal(err)
	}
	w.write(t, "calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	custom := w.request("calc/calc.go")
	custom.Author = git.Identity{Name: "Review Bot", Email: "bot@example.invalid"}
	_, err := push.Fix(context.Background(), botToken, custom, nil)
	var re *git.RefusedError
	if !errors.As(err, &re) || re.Rule != "B5" || !strings.Contains(err.Error(), "verified signatures") {
		t.Errorf("a custom author: err = %v, want B5 naming verified signatures", err)
	}
	res, err := push.Fix(context.Background(), botToken, w.request("calc/calc.go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified || w.fake.HeadSHA("octo", "app", 1) != res.SHA {
		t.Errorf("verified %v, head %s, want the verified fix %s", res.Verified, w.fake.HeadSHA("octo", "app", 1), res.SHA)
	}
}

// TB13, C1: the push's cost is counted: the head's commit and one tree per
// directory on the claimed paths (reads), a blob per changed file, the
// tree, the commit and the ref update (writes) — seven requests for a
// one-file fix, as docs/costs.md says.
func TestRule_TB13_ThePushCostsAFixedNumberOfRequests(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name          string
		files         []string
		reads, writes int64
	}{
		{"one file", []string{"calc/calc.go"}, 3, 4},
		{"two files, two directories", []string{"calc/calc.go", "docs/old.md"}, 4, 5},
		{"a file at the root", []string{"keep.txt"}, 2, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			for _, f := range c.files {
				w.write(t, f, "changed "+f+"\n")
			}
			res, err := push.Fix(context.Background(), botToken, w.request(c.files...), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests.Reads != c.reads || res.Requests.Writes != c.writes {
				t.Errorf("requests %+v, want %d reads and %d writes", res.Requests, c.reads, c.writes)
			}
		})
	}
}

// TB13: a claimed path that is a symbolic link or a submodule at the head
// (as GitHub has it) is refused: the push writes only regular files.
func TestRule_TB13_AClaimedLinkOrSubmoduleAtTheHeadIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	gh, err := github.New(github.Options{APIURL: w.fake.URL(), Token: botToken})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base, err := gh.CommitTree(ctx, "octo", "app", w.head)
	if err != nil {
		t.Fatal(err)
	}
	target, err := gh.CreateBlob(ctx, "octo", "app", []byte("/etc/passwd"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := gh.CreateTree(ctx, "octo", "app", base, []github.TreeEntry{
		{Path: "link.txt", Mode: "120000", Type: "blob", SHA: target},
		{Path: "vendor/mod", Mode: "160000", Type: "commit", SHA: w.head},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := gh.CreateCommit(ctx, "octo", "app", github.NewCommit{Message: "plant", Tree: tree, Parent: w.head})
	if err != nil {
		t.Fatal(err)
	}
	if err := gh.FastForward(ctx, "octo", "app", "feature", c.SHA); err != nil {
		t.Fatal(err)
	}
	w.head = c.SHA
	for _, p := range []string{"link.txt", "vendor/mod"} {
		w.write(t, p, "replaced\n")
		_, err := push.Fix(ctx, botToken, w.request(p), nil)
		var re *git.RefusedError
		if !errors.As(err, &re) || re.Rule != "TB13" || !strings.Contains(err.Error(), "not a file") {
			t.Errorf("%s: err = %v, want a TB13 refusal", p, err)
		}
	}
	if got := w.fake.HeadSHA("octo", "app", 1); got != w.head {
		t.Errorf("the branch moved to %s", got)
	}
}
