package loop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// notInstalledNotices are the plan's IN2 notices.
func notInstalledNotices(p Plan) []string {
	var out []string
	for _, n := range p.Notices {
		if strings.Contains(n, "not installed") {
			out = append(out, n)
		}
	}
	return out
}

func TestRule_IN2_NotInstalledEngineDropsOutWithANoticeEveryCycle(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	installed := map[string]bool{"bugbot": true, "claude": false, "copilot": true}
	t.Run("the loop's first cycle names the engine that dropped out", func(t *testing.T) {
		t.Parallel()
		st := RecordInstalled(state.New(), installed)
		st.Engines = []string{"bugbot", "copilot"}
		p, st := Decide(st, obs(sha1, 0, none("bugbot"), none("copilot")), cfg)
		if got := notInstalledNotices(p); len(got) != 1 || !strings.Contains(got[0], "engine claude") {
			t.Fatalf("notices %q", p.Notices)
		}
		if !slices.Equal(st.Engines, []string{"bugbot", "copilot"}) || st.Installed["claude"] {
			t.Errorf("engines %v installed %v", st.Engines, st.Installed)
		}
	})
	t.Run("a later cycle and the hand-back still carry it", func(t *testing.T) {
		t.Parallel()
		st := active(sha1, "bugbot")
		st = RecordInstalled(st, installed)
		p, _ := Decide(st, obs(sha1, time.Minute, done("bugbot", sha1, 10)), cfg)
		wantAction(t, p, ActionHandBack, EndClean)
		if got := notInstalledNotices(p); len(got) != 1 || !strings.Contains(got[0], "engine claude") {
			t.Fatalf("notices %q", p.Notices)
		}
	})
	t.Run("an engine named explicitly is attempted, and no drop-out notice is given", func(t *testing.T) {
		t.Parallel()
		st := RecordInstalled(active(sha1, "bugbot", "claude"), installed)
		p, _ := Decide(st, obs(sha1, time.Minute, done("bugbot", sha1, 10), none("claude")), cfg)
		if got := notInstalledNotices(p); len(got) != 0 {
			t.Fatalf("notices %q", got)
		}
	})
}
