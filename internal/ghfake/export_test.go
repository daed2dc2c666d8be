package ghfake

import (
	"strings"
	"sync/atomic"
)

// GitRuns is how many git processes the fake has started in the bare
// repository of owner/repo.
func GitRuns(f *Fake, owner, repo string) int64 {
	n, ok := gitRuns.Load(strings.TrimPrefix(f.CloneURL(owner, repo), "file://"))
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}
