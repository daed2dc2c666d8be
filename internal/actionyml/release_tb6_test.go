package actionyml

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestRule_TB6_releasePinsChecksumsInTheTaggedSource: the release workflow
// builds, commits checksums.txt, tags that commit and only then publishes
// the same files, with build provenance.
func TestRule_TB6_releasePinsChecksumsInTheTaggedSource(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(root(t), ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []Step            `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["release"]
	if !ok {
		t.Fatal("release.yml has no release job")
	}
	for _, p := range []string{"id-token", "attestations", "contents"} {
		if job.Permissions[p] != "write" {
			t.Errorf("release job permission %s = %q, want write", p, job.Permissions[p])
		}
	}
	at := func(pred func(Step) bool) int {
		for i, s := range job.Steps {
			if pred(s) {
				return i
			}
		}
		return -1
	}
	build := at(func(s Step) bool {
		return strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") && strings.Contains(s.With["args"], "--skip=publish")
	})
	pin := at(func(s Step) bool {
		return strings.Contains(s.Run, "> checksums.txt") && strings.Contains(s.Run, "git commit") && strings.Contains(s.Run, "git tag")
	})
	attest := at(func(s Step) bool { return strings.HasPrefix(s.Uses, "actions/attest-build-provenance@") })
	publish := at(func(s Step) bool {
		return strings.Contains(s.Run, "gh release create") && strings.Contains(s.Run, "--verify-tag")
	})
	if build < 0 || pin < 0 || attest < 0 || publish < 0 {
		t.Fatalf("steps: build %d, commit checksums and tag %d, attest %d, publish %d; want all", build, pin, attest, publish)
	}
	if !(build < pin && pin < publish && build < attest) {
		t.Errorf("order: build %d, pin %d, attest %d, publish %d; want build, then pin and tag, then publish", build, pin, attest, publish)
	}
}
