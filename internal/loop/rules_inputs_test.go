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

func TestRule_T1_AnEngineWeCannotTriggerIsNoticedEveryCycle(t *testing.T) {
	t.Parallel()
	const why = "no trigger token was given: relying on its automatic review of every push"
	untriggerable := func(v EngineView) EngineView {
		v.TriggerAvailable, v.TriggerNote = false, why
		return v
	}
	for _, tt := range []struct {
		name string
		at   time.Duration
		view EngineView
		want Action
	}{
		{"while it is waited for", time.Minute, untriggerable(running("bugbot")), ActionWait},
		{"and at a clean hand-back", time.Minute, untriggerable(done("bugbot", sha1, 10)), ActionHandBack},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := Decide(active(sha1, "bugbot"), obs(sha1, tt.at, tt.view), DefaultConfig())
			if p.Action != tt.want {
				t.Fatalf("action %s (%s)", p.Action, p.Why)
			}
			if !slices.ContainsFunc(p.Notices, func(n string) bool { return strings.Contains(n, "bugbot") && strings.Contains(n, why) }) {
				t.Errorf("notices %q", p.Notices)
			}
		})
	}
	t.Run("not for an engine that can be triggered", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(active(sha1, "bugbot"), obs(sha1, time.Minute, done("bugbot", sha1, 10)), DefaultConfig())
		if len(p.Notices) != 0 {
			t.Errorf("notices %q", p.Notices)
		}
	})
}
