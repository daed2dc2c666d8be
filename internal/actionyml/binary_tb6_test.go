package actionyml

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// resolveWorld runs action.yml's "resolve" step in a sandbox: no Go on
// PATH (so it cannot build), a fake curl that logs its argv and serves a
// chosen release asset, an action checkout holding checksums.txt, and a
// tool cache.
type resolveWorld struct {
	t                             *testing.T
	dir, action, bin, cache, temp string
	curlLog                       string
	script                        string
}

const tb6Token = "ghs_tb6SecretTokenValue0123456789"

func newResolveWorld(t *testing.T) *resolveWorld {
	t.Helper()
	step := loadAction(t).Step("resolve")
	if step == nil {
		t.Fatal("action.yml has no step with id resolve")
	}
	dir := t.TempDir()
	w := &resolveWorld{t: t, dir: dir, action: filepath.Join(dir, "action"), bin: filepath.Join(dir, "bin"),
		cache: filepath.Join(dir, "toolcache"), temp: filepath.Join(dir, "tmp"), curlLog: filepath.Join(dir, "curl.log"), script: step.Run}
	for _, d := range []string{w.action, w.bin, w.cache, w.temp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The tools the script may use, and no go.
	for _, tool := range []string{"bash", "awk", "sha256sum", "mkdir", "mktemp", "install", "cp", "cat", "sed", "sort", "head", "chmod", "rm", "tr", "cut", "jq", "dirname", "basename", "grep", "touch", "ls", "env"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			continue
		}
		if err := os.Symlink(p, filepath.Join(w.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	// A curl that records its argv and writes the asset it is asked for.
	curl := `#!/bin/bash
printf '%s\n' "$*" >> "` + w.curlLog + `"
out=""; url=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift 2 ;; -H|--retry|--config|-K) shift 2 ;; -*) shift ;; *) url="$1"; shift ;; esac
done
name="${url##*/}"
src="` + filepath.Join(dir, "serve") + `/$name"
[ -f "$src" ] || exit 22
if [ -n "$out" ]; then cp "$src" "$out"; else cat "$src"; fi
`
	if err := os.WriteFile(filepath.Join(w.bin, "curl"), []byte(curl), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// binary writes a fake review-loop that reports version v (and whose
// bytes differ by tag), returning its path and SHA-256.
func (w *resolveWorld) binary(path, v, tag string) string {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	body := fmt.Sprintf("#!/bin/bash\n# %s\necho \"review-loop %s\"\n", tag, v)
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		w.t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// pin writes the action's committed checksums.txt for release tag.
func (w *resolveWorld) pin(tag, sum string) {
	w.t.Helper()
	body := fmt.Sprintf("# tag %s\n%s  review-loop_linux_amd64\n%s  review-loop_darwin_arm64\n", tag, sum, strings.Repeat("0", 64))
	if err := os.WriteFile(filepath.Join(w.action, "checksums.txt"), []byte(body), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// serve makes the fake release download return a file of these bytes.
func (w *resolveWorld) serve(name, fromPath string) {
	w.t.Helper()
	b, err := os.ReadFile(fromPath)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.dir, "serve"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "serve", name), b, 0o755); err != nil {
		w.t.Fatal(err)
	}
}

// run runs the step with version want; it returns the chosen binary ("" =
// build from source), whether the step succeeded, and its output.
func (w *resolveWorld) run(want string) (string, bool, string) {
	w.t.Helper()
	out := filepath.Join(w.dir, "github_output")
	_ = os.Remove(out)
	cmd := exec.Command(filepath.Join(w.bin, "bash"), "-c", w.script)
	cmd.Env = []string{
		"PATH=" + w.bin, "HOME=" + w.dir, "RUNNER_TEMP=" + w.temp, "RUNNER_TOOL_CACHE=" + w.cache,
		"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "GITHUB_OUTPUT=" + out, "GITHUB_API_URL=https://api.github.com",
		"WANT_VERSION=" + want, "ACTION_REF=" + want, "ACTION_REPOSITORY=review-loop/review-loop", "ACTION_PATH=" + w.action,
		"BINARY_PATH=", "GH_TOKEN=" + tb6Token, "GITHUB_TOKEN=" + tb6Token, "INPUT_GITHUB-TOKEN=" + tb6Token,
	}
	b, err := cmd.CombinedOutput()
	o, _ := os.ReadFile(out)
	m := regexp.MustCompile(`(?m)^binary=(.*)$`).FindStringSubmatch(string(o))
	got := ""
	if m != nil {
		got = m[1]
	}
	return got, err == nil, string(b)
}

func (w *resolveWorld) argv() string {
	b, _ := os.ReadFile(w.curlLog)
	return string(b)
}

// TestRule_TB6_neverRunsAnUnpinnedBinary: a review-loop on PATH or in the
// tool cache that reports the wanted version but does not match the
// checksums committed in the action's source is never run; a download is
// checked against those same pinned checksums, not the release's own.
func TestRule_TB6_neverRunsAnUnpinnedBinary(t *testing.T) {
	t.Parallel()
	const tag = "v1.2.3"

	t.Run("a PATH binary reporting the wanted version but not pinned is not run", func(t *testing.T) {
		t.Parallel()
		w := newResolveWorld(t)
		good := w.binary(filepath.Join(w.dir, "release", "review-loop_linux_amd64"), tag, "release")
		w.pin(tag, good)
		w.binary(filepath.Join(w.bin, "review-loop"), tag, "planted")
		got, _, out := w.run(tag)
		if got == filepath.Join(w.bin, "review-loop") {
			t.Fatalf("ran the unpinned PATH binary\n%s", out)
		}
	})
	t.Run("a tampered tool-cache binary is not run", func(t *testing.T) {
		t.Parallel()
		w := newResolveWorld(t)
		good := w.binary(filepath.Join(w.dir, "release", "review-loop_linux_amd64"), tag, "release")
		w.pin(tag, good)
		cached := filepath.Join(w.cache, "review-loop", "1.2.3", "amd64", "review-loop")
		w.binary(cached, tag, "tampered")
		got, _, out := w.run(tag)
		if got == cached {
			t.Fatalf("ran the tampered cached binary\n%s", out)
		}
	})
	t.Run("a pinned tool-cache binary is run", func(t *testing.T) {
		t.Parallel()
		w := newResolveWorld(t)
		cached := filepath.Join(w.cache, "review-loop", "1.2.3", "amd64", "review-loop")
		w.pin(tag, w.binary(cached, tag, "release"))
		got, ok, out := w.run(tag)
		if !ok || got != cached {
			t.Fatalf("binary %q, ok %v; want the pinned cached one\n%s", got, ok, out)
		}
	})
	t.Run("a download matching the release's own checksums but not the pinned ones is refused", func(t *testing.T) {
		t.Parallel()
		w := newResolveWorld(t)
		good := w.binary(filepath.Join(w.dir, "release", "good"), tag, "release")
		w.pin(tag, good)
		evilSum := w.binary(filepath.Join(w.dir, "release", "evil"), tag, "evil")
		w.serve("review-loop_linux_amd64", filepath.Join(w.dir, "release", "evil"))
		if err := os.WriteFile(filepath.Join(w.dir, "serve", "checksums.txt"), []byte(evilSum+"  review-loop_linux_amd64\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok, out := w.run(tag)
		if ok && got != "" {
			t.Fatalf("ran the downloaded binary %q that the pinned checksums do not list\n%s", got, out)
		}
	})
	t.Run("a download matching the pinned checksums is run, for a moving tag too", func(t *testing.T) {
		t.Parallel()
		w := newResolveWorld(t)
		w.pin(tag, w.binary(filepath.Join(w.dir, "release", "good"), tag, "release"))
		w.serve("review-loop_linux_amd64", filepath.Join(w.dir, "release", "good"))
		got, ok, out := w.run("v1")
		if !ok || got == "" {
			t.Fatalf("binary %q, ok %v; want the verified download\n%s", got, ok, out)
		}
		if b, _ := os.ReadFile(got); !strings.Contains(string(b), "# release") {
			t.Fatalf("ran %q, not the release binary", got)
		}
	})
}

// TestRule_TB6_noTokenInCurlArgv: the token never appears on a command
// line, where any process on the runner can read it (/proc/<pid>/cmdline).
func TestRule_TB6_noTokenInCurlArgv(t *testing.T) {
	t.Parallel()
	w := newResolveWorld(t)
	// No pinned checksums and a moving tag: the step looks for a release.
	w.binary(filepath.Join(w.dir, "release", "good"), "v1.2.3", "release")
	w.serve("review-loop_linux_amd64", filepath.Join(w.dir, "release", "good"))
	if err := os.WriteFile(filepath.Join(w.dir, "serve", "releases?per_page=100"), []byte(`[{"tag_name":"v1.2.3","draft":false,"prerelease":false}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	w.run("v1")
	if strings.Contains(w.argv(), tb6Token) {
		t.Fatalf("a token is in curl's argv:\n%s", w.argv())
	}
	for _, s := range loadAction(t).Runs.Steps {
		for i, line := range strings.Split(s.Run, "\n") {
			if strings.Contains(line, "curl") && regexp.MustCompile(`\$\{?[A-Z_]*TOKEN`).MatchString(line) {
				t.Errorf("step %q line %d passes a token to curl on its command line: %s", s.Name, i+1, strings.TrimSpace(line))
			}
		}
	}
}
