package ghfake

import (
	"strings"
	"testing"
)

// Only a read-only query whose every revision is a full SHA, with options
// that bring no ref, note, signature or clock into its answer, is kept:
// a branch name, HEAD, an abbreviated SHA, a ref-walking option or a
// decorated format runs every time.
func TestGitMemo_onlyQueriesNamingFullSHAsAreKept(t *testing.T) {
	t.Parallel()
	const a, b = "0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		args string
		kept bool
	}{
		{"merge-base " + a + " " + b, true},
		{"diff --name-only " + a + "..." + b, true},
		{"diff --no-color --no-renames " + a + " " + b + " -- x..y", true},
		{"rev-list --count " + a + ".." + b, true},
		{"ls-tree -r -t -z --full-tree " + a, true},
		{"cat-file -e " + a + "^{commit}", true},
		{"cat-file -p " + a + ":.github/workflows/x.yml", true},
		{"cat-file blob " + a, true},
		{"show -s --format=%an%x00%ae%x00%P%x00%B " + a, true},
		{"rev-parse --verify -q " + a + "^", true},
		{"diff --name-only main " + b, false},
		{"rev-list --count main.." + b, false},
		{"merge-base HEAD " + b, false},
		{"ls-tree " + a[:12], false},
		{"rev-parse --verify --quiet main~1:x", false},
		{"rev-parse --verify --quiet " + a + "~1", false},
		{"show -s --format=%d " + a, false},
		{"show -s --format=%N " + a, false},
		{"rev-list --all", false},
		{"rev-list --branches " + a, false},
		{"log " + a, false},
		{"diff --name-only " + a + ".." + b + "@{1}", false},
		{"for-each-ref", false},
		{"cat-file -e", false},
	} {
		if _, kept := pinnedQuery(strings.Fields(c.args)); kept != c.kept {
			t.Errorf("git %s: kept %v, want %v", c.args, kept, c.kept)
		}
	}
}
