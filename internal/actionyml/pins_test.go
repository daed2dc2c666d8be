package actionyml

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// node24Pins are the action commits the project's workflows and the
// examples may use: each is the commit of the release named, read from
// the action's repository, whose action.yml runs on node24 (Node 20 is
// retired on GitHub's runners) or is a composite of node24 actions.
// An allow-list: a new pin is added here once its commit and runtime
// are checked.
var node24Pins = map[string]string{
	"actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1":                "v7.0.1",
	"actions/setup-go@b7ad1dad31e06c5925ef5d2fc7ad053ef454303e":                "v7.0.0",
	"actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f":         "v7.0.0",
	"actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c":       "v8.0.1",
	"actions/attest-build-provenance@a2bbfa25375fe432b6a289bc6b6cd05ecd0c4c32": "v4.1.0",
	"goreleaser/goreleaser-action@f06c13b6b1a9625abc9e6e439d9c05a8f2190e94":    "v7.2.3",
	"actions/create-github-app-token@1b10c78c7865c340bc4f6099eb2f838309f1e8c3": "v3.1.1",
}

var pinnedUses = regexp.MustCompile(`uses:\s*([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)@(\S+)(?:\s+#\s*(\S+))?`)

// TestRelease_WorkflowsPinNode24ActionsByCommit: every action the
// project's workflows, the examples and the docs' workflows call (but
// review-loop itself, named by the ref users can resolve) is pinned by
// full commit SHA, with its version in a comment, to a commit of
// node24Pins.
func TestRelease_WorkflowsPinNode24ActionsByCommit(t *testing.T) {
	t.Parallel()
	files := workflowFiles(t)
	for _, f := range docFiles(t) {
		files = append(files, filepath.Join(root(t), f))
	}
	seen := 0
	for _, f := range files {
		rel, _ := filepath.Rel(root(t), f)
		for _, m := range pinnedUses.FindAllStringSubmatch(read(t, rel), -1) {
			action, ref, comment := m[1], m[2], m[3]
			if action == "review-loop/review-loop" || strings.HasPrefix(action, "./") {
				continue
			}
			seen++
			want, ok := node24Pins[action+"@"+ref]
			switch {
			case !ok:
				t.Errorf("%s: uses %s@%s, which is no verified node24 release commit (a full SHA of node24Pins)", rel, action, ref)
			case comment != want:
				t.Errorf("%s: uses %s@%s with comment %q; want # %s", rel, action, ref, comment, want)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no action pin found: the scan is broken")
	}
}

// TestRelease_PublishesAnImmutableAttestedRelease: the release job
// attests the binaries' build provenance, creates the release as a
// draft, uploads every asset to it, publishes it once, and verifies the
// published release and each asset (gh release verify, verify-asset and
// gh attestation verify), all before the major tag moves.
func TestRelease_PublishesAnImmutableAttestedRelease(t *testing.T) {
	t.Parallel()
	steps := releaseSteps(t)
	at := func(match func(Step) bool) int {
		return slices.IndexFunc(steps, match)
	}
	attest := at(func(s Step) bool { return strings.HasPrefix(s.Uses, "actions/attest-build-provenance@") })
	draft := at(func(s Step) bool {
		return strings.Contains(s.Run, "gh release create") && strings.Contains(s.Run, "--draft")
	})
	upload := at(func(s Step) bool { return strings.Contains(s.Run, "gh release upload") })
	publish := at(func(s Step) bool {
		return strings.Contains(s.Run, "gh release edit") && strings.Contains(s.Run, "--draft=false")
	})
	verify := at(func(s Step) bool {
		return strings.Contains(s.Run, "gh release verify ") && strings.Contains(s.Run, "gh release verify-asset") && strings.Contains(s.Run, "gh attestation verify")
	})
	major := at(func(s Step) bool { return strings.Contains(s.Run, "${TAG%%.*}") })
	order := []int{attest, draft, upload, publish, verify, major}
	if slices.Contains(order, -1) || !slices.IsSorted(order) {
		t.Fatalf("release steps: attest %d, draft %d, upload %d, publish %d, verify %d, move the major tag %d; want them all, in that order", attest, draft, upload, publish, verify, major)
	}
	for _, asset := range []string{"review-loop_linux_amd64", "review-loop_linux_arm64", "review-loop_darwin_amd64", "review-loop_darwin_arm64", "checksums.txt"} {
		if !strings.Contains(steps[upload].Run, "dist/"+asset) || !strings.Contains(steps[attest].With["subject-path"], "dist/"+asset) || !strings.Contains(steps[verify].Run, "dist/"+asset) {
			t.Errorf("asset %s is not uploaded, attested and verified alike", asset)
		}
	}
}
