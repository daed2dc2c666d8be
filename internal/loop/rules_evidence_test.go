package loop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

func TestRule_IN2_DefaultSetIsTheEnginesTheRepositoryShowsEvidenceOf(t *testing.T) {
	t.Parallel()
	known := []string{"bugbot", "claude", "coderabbit", "copilot", "gemini"}
	evidence := map[string]string{"bugbot": "a review on PR #3", "claude": ".github/workflows/claude.yml"}
	got, installed := SelectEngines(known, nil, evidence)
	if !slices.Equal(got, []string{"bugbot", "claude"}) {
		t.Errorf("default set %v, want the engines with evidence [bugbot claude]", got)
	}
	for _, e := range known {
		if installed[e] != (evidence[e] != "") {
			t.Errorf("installed[%s] = %v with evidence %q", e, installed[e], evidence[e])
		}
	}
	got, installed = SelectEngines(known, []string{"gemini", "bugbot"}, evidence)
	if _, recorded := installed["claude"]; !slices.Equal(got, []string{"bugbot", "gemini"}) || installed["gemini"] || !installed["bugbot"] || recorded {
		t.Errorf("named: set %v installed %v, want [bugbot gemini] with gemini not seen and only the named recorded", got, installed)
	}
	if got, _ := SelectEngines(known, nil, nil); len(got) != 0 {
		t.Errorf("no evidence at all: %v, want none (the caller says so)", got)
	}
}

// unseenLoop is an active loop on sha1 that asked bugbot (seen on the
// repository) and gemini (named, never seen) at t0.
func unseenLoop() state.State {
	st := active(sha1, "bugbot", "gemini")
	es := st.EngineStates["gemini"]
	es.FirstReviewSeen = false
	st.EngineStates["gemini"] = es
	return RecordInstalled(st, map[string]bool{"bugbot": true, "gemini": false})
}

func TestRule_IN2_NamedButNeverSeenEngineIsAskedOnceThenNotInstalled(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	lat := cfg.Latency("gemini")
	t.Run("while it is awaited the status says it was never seen", func(t *testing.T) {
		t.Parallel()
		p, _ := Decide(unseenLoop(), obs(sha1, time.Minute, done("bugbot", sha1, 10), none("gemini")), cfg)
		wantAction(t, p, ActionWait, "")
		if n := report(t, p, "gemini").Note; !strings.Contains(n, "never seen on this repository") {
			t.Errorf("gemini note %q", n)
		}
	})
	t.Run("silent past its normal latency it is handed back as not installed, with its guide", func(t *testing.T) {
		t.Parallel()
		p, st := Decide(unseenLoop(), obs(sha1, lat+time.Minute, done("bugbot", sha1, 10), none("gemini")), cfg)
		wantAction(t, p, ActionHandBack, EndBound)
		r := report(t, p, "gemini")
		if r.Verdict != VerdictHung || !strings.Contains(r.Note, "not installed?") || !strings.Contains(r.Note, "docs/engines/gemini.md") {
			t.Errorf("gemini %s %q, want HUNG saying not installed? with the guide", r.Verdict, r.Note)
		}
		if lat+time.Minute >= time.Duration(cfg.StallFactor)*lat {
			t.Fatal("the test must end before T4's stall limit")
		}
		// Asked once: on a new head it is not asked again.
		if trig := RetriggerAfterPushAt(st, []EngineView{done("bugbot", sha1, 10), none("gemini")}, sha2, cfg, t0.Add(lat+2*time.Minute)); slices.ContainsFunc(trig, func(r TriggerRequest) bool { return r.Engine == "gemini" }) {
			t.Errorf("gemini retriggered on the new head: %v", trig)
		}
		st.LastObservedSHA = sha2
		p2, _ := Decide(st, obs(sha2, lat+3*time.Minute, done("bugbot", sha2, 11), none("gemini")), cfg)
		if r := report(t, p2, "gemini"); r.Verdict != VerdictHung || slices.Contains(triggered(p2), "gemini") {
			t.Errorf("on a new head gemini is %s, triggered %v; want it still out, not asked again", r.Verdict, triggered(p2))
		}
	})
	t.Run("an engine seen on the repository still gets T4's stall limit", func(t *testing.T) {
		t.Parallel()
		st := unseenLoop()
		st.Installed["gemini"] = true
		p, _ := Decide(st, obs(sha1, lat+time.Minute, done("bugbot", sha1, 10), none("gemini")), cfg)
		wantAction(t, p, ActionWait, "")
	})
	t.Run("once it reviews, it counts as seen", func(t *testing.T) {
		t.Parallel()
		_, st := Decide(unseenLoop(), obs(sha1, time.Minute, done("bugbot", sha1, 10), done("gemini", sha1, 20)), cfg)
		if !st.Installed["gemini"] {
			t.Errorf("installed %v after gemini's review, want gemini seen", st.Installed)
		}
	})
}
