package prepared

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRule_TB10_LoadFindsOnlyThisPRsArtifact(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	sha := strings.Repeat("ab", 20)
	d, patch, err := Load(filepath.Join(root, "pr-7"), "octo/app", 7)
	if d != nil || patch != nil || err != nil {
		t.Fatalf("no artifact: %v, %q, %v; want none and no error", d, patch, err)
	}
	dir := filepath.Join(root, "pr-7")
	if err := Write(dir, Decisions{Repo: "octo/app", PR: 8, HeadSHA: sha, Action: "wait"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir, "octo/app", 7); err == nil || !strings.Contains(err.Error(), "it is for octo/app#8, not octo/app#7") {
		t.Errorf("another PR's artifact: %v", err)
	}
	if _, _, err := Load(dir, "other/app", 8); err == nil || !strings.Contains(err.Error(), "refusing the prepared artifact") {
		t.Errorf("another repository's artifact: %v", err)
	}
	d, _, err = Load(dir, "octo/app", 8)
	if err != nil || d == nil || d.HeadSHA != sha {
		t.Fatalf("this PR's artifact: %+v, %v", d, err)
	}
	if err := os.WriteFile(filepath.Join(dir, DecisionsFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir, "octo/app", 8); err == nil || !strings.Contains(err.Error(), "refusing the prepared artifact for PR #8") {
		t.Errorf("a broken artifact: %v", err)
	}
}

func TestRule_TB10_ThePublishJobActsOnlyOnWhatItsOwnPlanMatches(t *testing.T) {
	t.Parallel()
	d := Decisions{HeadSHA: "abcdef1234", Action: "fix", Effects: []string{"claim", "fix", "save"}}
	if err := d.Match("abcdef1234", "fix", []string{"claim", "fix", "save"}); err != nil {
		t.Errorf("the same plan: %v", err)
	}
	for _, tc := range []struct {
		name, head, action string
		effects            []string
		want               string
	}{
		{"the head moved", "9999999999", "fix", []string{"claim", "fix", "save"}, "prepared for head abcdef1, the PR head is 9999999"},
		{"another action", "abcdef1234", "wait", []string{"claim", "fix", "save"}, "prepared a fix, this run decides wait"},
		{"other effects", "abcdef1234", "fix", []string{"claim", "fix", "file-issues", "save"}, "this run plans claim, fix, file-issues, save"},
	} {
		err := d.Match(tc.head, tc.action, tc.effects)
		if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// An artifact of a version that wrote no effects is matched on the
	// head and the action.
	d.Effects = nil
	if err := d.Match("abcdef1234", "fix", []string{"claim", "fix", "save"}); err != nil {
		t.Errorf("no effects written: %v", err)
	}
}
