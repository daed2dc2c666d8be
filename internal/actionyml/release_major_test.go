package actionyml

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// releaseSteps reads the release job's steps.
func releaseSteps(t *testing.T) []Step {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []Step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	return wf.Jobs["release"].Steps
}

// runStep runs a release step's script in repo, with every push to
// https://github.com/o/r.git sent to the bare repository remote instead.
func runStep(t *testing.T, s Step, repo, remote, tag string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", s.Run)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "TAG="+tag, "GH_TOKEN=t", "REPO=o/r",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=url."+remote+".insteadOf", "GIT_CONFIG_VALUE_0=https://github.com/o/r.git",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("step %q for %s: %v\n%s", s.Name, tag, err, out)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestRelease_MovesTheMajorTagOnlyAfterPublishing runs the release job's
// tag steps against a local remote: the checksum step pushes only the
// version tag, and a step after `gh release create` moves the major tag
// (v1) to it, so a failed publish never leaves v1 on a release whose
// binaries cannot be downloaded; a prerelease moves nothing.
func TestRelease_MovesTheMajorTagOnlyAfterPublishing(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	steps := releaseSteps(t)
	pin, publish, major := -1, -1, -1
	for i, s := range steps {
		switch {
		case strings.Contains(s.Run, "> checksums.txt"):
			pin = i
		case strings.Contains(s.Run, "gh release create"):
			publish = i
		case strings.Contains(s.Run, "${TAG%%.*}"):
			major = i
		}
	}
	if pin < 0 || publish < 0 || major < 0 || !(pin < publish && publish < major) {
		t.Fatalf("steps: pin %d, publish %d, move the major tag %d; want a step after publishing that moves the major tag", pin, publish, major)
	}
	dir := t.TempDir()
	repo, remote := filepath.Join(dir, "repo"), filepath.Join(dir, "remote.git")
	gitOut(t, dir, "init", "-q", "--bare", remote)
	gitOut(t, dir, "init", "-q", repo)
	gitOut(t, repo, "-c", "user.name=m", "-c", "user.email=m@x", "commit", "-q", "--allow-empty", "-m", "base")
	if err := os.MkdirAll(filepath.Join(repo, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	release := func(tag string) {
		if err := os.WriteFile(filepath.Join(repo, "dist", "checksums.txt"), []byte("abc  review-loop_linux_amd64 "+tag+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runStep(t, steps[pin], repo, remote, tag)
		if got := gitOut(t, remote, "tag", "-l", "v1"); tag == "v1.4.0" && got != "" {
			t.Errorf("after the checksum step of %s the remote has v1 already; it must move only after publishing", tag)
		}
		runStep(t, steps[major], repo, remote, tag)
	}
	release("v1.4.0")
	if got, want := gitOut(t, remote, "rev-parse", "v1^{commit}"), gitOut(t, remote, "rev-parse", "v1.4.0^{commit}"); got != want {
		t.Errorf("v1 is at %s, want v1.4.0's commit %s", got, want)
	}
	release("v1.5.0")
	if got, want := gitOut(t, remote, "rev-parse", "v1^{commit}"), gitOut(t, remote, "rev-parse", "v1.5.0^{commit}"); got != want {
		t.Errorf("v1 did not move to v1.5.0: at %s, want %s", got, want)
	}
	release("v2.0.0-rc.1")
	if got := gitOut(t, remote, "tag", "-l", "v2"); got != "" {
		t.Errorf("a prerelease created the major tag %s", got)
	}
}
