package action_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// The attacks on the push itself (TB13), each made by a test command of
// the repository under review, against the built binary run as Actions
// runs it, in every mode of attackModes. The environment has GitHub's
// PATH layout: $HOME/.local/bin, which the runner user can write, comes
// first.

// githubPath puts the rig's $HOME/.local/bin first on PATH, as GitHub's
// runner images do, and returns it.
func (g *rig) githubPath(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(g.home, ".local", "bin")
	g.e.env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	return bin
}

// realTool is the absolute path of a tool, resolved before anything is
// planted.
func realTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	p, err = filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pushedFiles are the paths the PR head's commit changes against its
// parent, read from the fake's bare repository.
func (g *rig) pushedFiles(t *testing.T, from string) []string {
	t.Helper()
	bare := strings.TrimPrefix(g.e.fake.CloneURL("octo", "app"), "file://")
	to := g.e.fake.HeadSHA("octo", "app", 1)
	out := run(t, "", realTool(t, "git"), "--git-dir", bare, "--no-replace-objects", "diff", "--name-only", from, to)
	files := strings.Fields(out)
	slices.Sort(files)
	return files
}

// TB13: a test command plants a git in ~/.local/bin that records its
// arguments, its environment and whatever it is handed on file
// descriptor 3, then runs the real git. The push token reaches no
// process it started, and the fix still lands, exactly as claimed.
func TestRule_TB13_APlantedGitGetsNoToken(t *testing.T) {
	t.Parallel()
	gitBin, catBin := realTool(t, "git"), realTool(t, "cat")
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			bin := g.githubPath(t)
			leak := filepath.Join(t.TempDir(), "LEAK")
			wrapper := fmt.Sprintf(`#!/bin/sh
printf 'argv: %%s\n' "$*" >> %[1]s
env >> %[1]s
if [ -e /proc/self/fd/3 ]; then
  cred=$(%[3]s <&3 2>/dev/null)
  printf 'fd3: %%s\n' "$cred" >> %[1]s
  printf '%%s\n' "$cred" > %[1]s.fd3
  exec %[2]s "$@" 3<%[1]s.fd3
fi
exec %[2]s "$@"
`, leak, gitBin, catBin)
			cmd := script(t, fmt.Sprintf(`mkdir -p %[1]s
cat > %[1]s/git <<'EOF'
%[2]sEOF
chmod +x %[1]s/git
`, bin, wrapper))
			head := g.e.head
			_, pub := g.fixCycle(t, map[string]string{"engines": "copilot", "test-command": cmd})
			if _, err := os.Stat(filepath.Join(bin, "git")); err != nil {
				t.Fatalf("the attack never ran: %v", err)
			}
			if leaked(t, leak, e2eToken) {
				b, _ := os.ReadFile(leak)
				t.Errorf("the planted git got the push token:\n%s", grepLines(string(b), "fd3:", "argv:"))
			}
			g.fixLandedAsClaimed(t, head, pub)
		})
	}
}

// TB13: a test command plants a cat in ~/.local/bin that copies what it
// reads to a file. The push token reaches no process it started, and the
// fix still lands.
func TestRule_TB13_APlantedCatGetsNoToken(t *testing.T) {
	t.Parallel()
	catBin, teeBin := realTool(t, "cat"), realTool(t, "tee")
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			bin := g.githubPath(t)
			leak := filepath.Join(t.TempDir(), "LEAK")
			cmd := script(t, fmt.Sprintf(`mkdir -p %[1]s
printf '#!/bin/sh\n%[2]s "$@" | %[3]s -a %[4]s\n' > %[1]s/cat
chmod +x %[1]s/cat
`, bin, catBin, teeBin, leak))
			head := g.e.head
			_, pub := g.fixCycle(t, map[string]string{"engines": "copilot", "test-command": cmd})
			if _, err := os.Stat(filepath.Join(bin, "cat")); err != nil {
				t.Fatalf("the attack never ran: %v", err)
			}
			if leaked(t, leak, e2eToken) {
				b, _ := os.ReadFile(leak)
				t.Errorf("the planted cat got the push token:\n%s", grepLines(string(b), "password="))
			}
			g.fixLandedAsClaimed(t, head, pub)
		})
	}
}

// TB13: a test command replaces the head's tree, with `git replace`, by
// one holding extra files (a backdoor, an action of the repository's
// workflows, the agent's instruction file). The fix commit holds exactly
// the claimed file's change, built on the head's tree as GitHub has it.
func TestRule_TB13_AReplacementTreeSmugglesNothing(t *testing.T) {
	t.Parallel()
	gitBin := realTool(t, "git")
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			g.githubPath(t)
			done := filepath.Join(t.TempDir(), "REPLACED")
			cmd := script(t, fmt.Sprintf(`set -e
git=%[1]s
tree=$($git rev-parse 'HEAD^{tree}')
idx=$(mktemp)
GIT_INDEX_FILE=$idx $git read-tree "$tree"
for f in backdoor.txt .github/actions/setup/action.yml CLAUDE.md; do
  blob=$(echo "planted $f" | $git hash-object -w --stdin)
  GIT_INDEX_FILE=$idx $git update-index --add --cacheinfo 100644,"$blob","$f"
done
evil=$(GIT_INDEX_FILE=$idx $git write-tree)
$git replace -f "$tree" "$evil"
echo "$tree -> $evil" > %[2]s
`, gitBin, done))
			head := g.e.head
			_, pub := g.fixCycle(t, map[string]string{"engines": "copilot", "test-command": cmd})
			if _, err := os.Stat(done); err != nil {
				t.Fatalf("the attack never ran: %v", err)
			}
			g.fixLandedAsClaimed(t, head, pub)
		})
	}
}

// fixLandedAsClaimed fails the test unless the fix moved the PR head
// from head and its commit changes exactly the claimed calc/calc.go.
func (g *rig) fixLandedAsClaimed(t *testing.T, head string, pub runResult) {
	t.Helper()
	if got := g.e.fake.HeadSHA("octo", "app", 1); got == head {
		t.Fatalf("the fix did not reach the GitHub server\n%s\n%s", pub.stdout, pub.stderr)
	}
	if files := g.pushedFiles(t, head); !slices.Equal(files, []string{"calc/calc.go"}) {
		t.Errorf("the fix commit changes %v, want [calc/calc.go]", files)
	}
}

// grepLines are the lines of s that start with one of prefixes, for a
// failure message that shows what leaked without a whole environment.
func grepLines(s string, prefixes ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// TB13: on a branch whose ruleset requires signed commits, the fix lands:
// it is made through the API with the push token and no author of its
// own, so GitHub signs it (a git push of an unsigned commit is refused
// there: internal/ghfake's TestRule_TB13_RequiredSignaturesAcceptAnAPICommit).
func TestRule_TB13_ASignedCommitsBranchAcceptsTheFix(t *testing.T) {
	t.Parallel()
	for _, mode := range attackModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, mode)
			g.githubPath(t)
			if _, err := g.e.fake.AddRuleset("octo", "app", ghfake.Ruleset{Name: "signed", Include: []string{"~ALL"}, Rules: []ghfake.RulesetRule{{Type: "required_signatures"}}}); err != nil {
				t.Fatal(err)
			}
			head := g.e.head
			_, pub := g.fixCycle(t, map[string]string{"engines": "copilot"})
			fixed := g.e.fake.HeadSHA("octo", "app", 1)
			if fixed == head {
				t.Fatalf("the fix did not land on a branch requiring signed commits\n%s\n%s", pub.stdout, pub.stderr)
			}
			bare := strings.TrimPrefix(g.e.fake.CloneURL("octo", "app"), "file://")
			if sig := run(t, "", realTool(t, "git"), "--git-dir", bare, "cat-file", "commit", fixed); !strings.Contains(sig, "\ngpgsig ") {
				t.Errorf("the fix commit carries no signature:\n%s", sig)
			}
		})
	}
}
