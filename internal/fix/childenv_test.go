package fix

import (
	"slices"
	"testing"
)

func TestRule_TB1_ChildEnvKeepsNoTokenAndPutsTheChildPathFirst(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/usr/bin:/bin", "GITHUB_TOKEN=ghs_x", "HOME=/home/runner"}
	got := ChildEnv(env, "/opt/shims")
	if slices.Contains(got, "GITHUB_TOKEN=ghs_x") {
		t.Errorf("the token reached a child: %q", got)
	}
	if !slices.Contains(got, "PATH=/opt/shims:/usr/bin:/bin") {
		t.Errorf("PATH %q, want the child path first", got)
	}
	if got := ChildEnv([]string{"HOME=/h"}, "/opt/shims"); !slices.Contains(got, "PATH=/opt/shims") {
		t.Errorf("no PATH: %q", got)
	}
	if got := ChildEnv(env, ""); !slices.Contains(got, "PATH=/usr/bin:/bin") {
		t.Errorf("no child path: PATH changed: %q", got)
	}
}
