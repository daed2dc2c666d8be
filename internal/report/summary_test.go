package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/state"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	withPlan := func(in Input, p loop.Plan) Input { in.Plan = p; return in }
	withStatus := func(in Input, s state.Status, r loop.EndReason) Input {
		in.Plan, in.State.Status, in.State.EndReason = loop.Plan{}, s, string(r)
		return in
	}
	tests := []struct {
		name    string
		in      Input
		phase   Phase
		verdict Verdict
		reason  loop.EndReason
		cycle   int
	}{
		{"a PR with no loop yet is about to trigger", Input{State: state.New()}, PhaseTrigger, VerdictPending, "", 1},
		{"a trigger plan is the trigger phase", withPlan(midLoop(), loop.Plan{Action: loop.ActionTrigger}), PhaseTrigger, VerdictPending, "", 3},
		{"a wait plan is the wait phase", midLoop(), PhaseWait, VerdictPending, "", 3},
		{"a fix plan is the fix phase of the current iteration", withPlan(midLoop(), loop.Plan{Action: loop.ActionFix}), PhaseFix, VerdictPending, "", 2},
		{"a clean hand-back is clean", cleanHandBack(), PhaseHandBack, VerdictClean, loop.EndClean, 2},
		{"a fix cycle that applied no fix is a hand-back (E3)", func() Input {
			in := withPlan(midLoop(), loop.Plan{Action: loop.ActionFix})
			in.State.Status, in.State.EndReason = state.StatusDone, string(loop.EndNoFixes)
			return in
		}(), PhaseHandBack, VerdictStillFinding, loop.EndNoFixes, 2},
		{"a finished loop seen again is done", withPlan(cleanHandBack(), loop.Plan{Action: loop.ActionNone}), PhaseDone, VerdictClean, loop.EndClean, 2},
		{"an active loop read by the status command waits", withStatus(midLoop(), state.StatusActive, ""), PhaseWait, VerdictPending, "", 3},
		{"a done loop read by the status command uses its end reason", withStatus(midLoop(), state.StatusDone, loop.EndNoFixes), PhaseDone, VerdictStillFinding, loop.EndNoFixes, 2},
		{"an error end without engine verdicts is errored", withStatus(midLoop(), state.StatusDone, loop.EndError), PhaseDone, VerdictErrored, loop.EndError, 2},
		{"a timeout without engine verdicts is hung", withStatus(midLoop(), state.StatusDone, loop.EndTimeout), PhaseDone, VerdictHung, loop.EndTimeout, 2},
		{"no comments in Copilot-only mode is clean", withStatus(midLoop(), state.StatusDone, loop.EndNoComments), PhaseDone, VerdictClean, loop.EndNoComments, 2},
		{"a stopped loop with pending engines is pending", withStatus(midLoop(), state.StatusStopped, loop.EndStopped), PhaseStopped, VerdictPending, loop.EndStopped, 2},
		{"a stopped loop whose engines were all clean is clean", func() Input {
			in := cleanHandBack()
			in.State.Status, in.Plan.EndReason = state.StatusStopped, loop.EndStopped
			return in
		}(), PhaseStopped, VerdictClean, loop.EndStopped, 2},
		{"a done loop without a reason and no verdicts is pending", withStatus(midLoop(), state.StatusDone, ""), PhaseDone, VerdictPending, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Summarize(tt.in)
			if s.Phase != tt.phase || s.Verdict != tt.verdict || s.Reason != tt.reason || s.Cycle != tt.cycle {
				t.Errorf("Summarize = phase %s verdict %s reason %q cycle %d, want %s %s %q %d",
					s.Phase, s.Verdict, s.Reason, s.Cycle, tt.phase, tt.verdict, tt.reason, tt.cycle)
			}
			out := Outputs(tt.in)
			if out[OutputPhase] != string(tt.phase) || out[OutputVerdict] != string(tt.verdict) || out[OutputReason] != string(tt.reason) {
				t.Errorf("Outputs disagree with Summarize: %v", out)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"waiting names the engines waited for", midLoop(), "### 🔁 review-loop — cycle 3 · waiting for copilot"},
		{"a trigger cycle names the engines triggered", func() Input {
			in := midLoop()
			in.Plan = loop.Plan{Action: loop.ActionTrigger, Triggers: []loop.TriggerRequest{{Engine: "bugbot"}, {Engine: "copilot"}}}
			return in
		}(), "### 🔁 review-loop — cycle 3 · triggering bugbot, copilot"},
		{"a first cycle with no trigger yet is starting", Input{State: state.New(), Plan: loop.Plan{Action: loop.ActionTrigger}}, "### 🔁 review-loop — cycle 1 · starting"},
		{"a wait with nobody running just waits", Input{State: state.New(), Plan: loop.Plan{Action: loop.ActionWait}}, "### 🔁 review-loop — cycle 1 · waiting"},
		{"a fix cycle counts its findings", func() Input {
			in := midLoop()
			in.Plan = loop.Plan{Action: loop.ActionFix, Triage: []loop.Finding{{ID: "a"}, {ID: "b"}}}
			return in
		}(), "### 🔧 review-loop — cycle 2 · fixing 2 findings"},
		{"clean after fix commits", cleanHandBack(), "### ✅ review-loop — clean after 2 fix commits"},
		{"clean after one fix commit", func() Input { in := cleanHandBack(); in.State.Commits = 1; return in }(), "### ✅ review-loop — clean after 1 fix commit"},
		{"clean on the first pass", func() Input { in := cleanHandBack(); in.State.Commits = 0; return in }(), "### ✅ review-loop — clean with no fix commits"},
		{"a hand-back names its reason", noProgress(), "### ✋ review-loop — handed back: no-progress"},
		{"a stopped loop says who stopped it", func() Input {
			in := midLoop()
			in.Plan, in.State.Status = loop.Plan{}, state.StatusStopped
			return in
		}(), "### ⏹️ review-loop — stopped by a maintainer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, _, _ := strings.Cut(StatusComment(tt.in), "\n"); got != tt.want {
				t.Errorf("header = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOutputs(t *testing.T) {
	t.Parallel()
	t.Run("mid-loop outputs count commits and active findings", func(t *testing.T) {
		t.Parallel()
		want := map[string]string{"verdict": "pending", "reason": "", "phase": "wait", "commits": "2", "active-findings": "1", "cost-json": CostJSON(midLoop())}
		if got := Outputs(midLoop()); !equalMaps(got, want) {
			t.Errorf("Outputs = %v, want %v", got, want)
		}
	})
	t.Run("a no-progress hand-back reports its reason and findings", func(t *testing.T) {
		t.Parallel()
		want := map[string]string{"verdict": "still-finding", "reason": "no-progress", "phase": "hand-back", "commits": "2", "active-findings": "2", "cost-json": CostJSON(noProgress())}
		if got := Outputs(noProgress()); !equalMaps(got, want) {
			t.Errorf("Outputs = %v, want %v", got, want)
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestJSON(t *testing.T) {
	t.Parallel()
	t.Run("the report round-trips through its documented schema", func(t *testing.T) {
		t.Parallel()
		b, err := JSON(noProgress())
		if err != nil {
			t.Fatal(err)
		}
		var r JSONReport
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Schema != SchemaVersion || r.Verdict != VerdictStillFinding || r.Reason != "no-progress" || r.Phase != PhaseHandBack ||
			r.ActiveFindings != 2 || len(r.Engines) != 3 || len(r.Triage) != 3 || r.Events != 6 || r.Commits != 2 {
			t.Errorf("report = %+v", r)
		}
		if got := r.Engines[0].Active; len(got) != 2 || got[0] != 2233029601 {
			t.Errorf("bugbot active = %v", got)
		}
	})
	t.Run("empty lists are empty arrays, not null", func(t *testing.T) {
		t.Parallel()
		b, err := JSON(Input{State: state.New()})
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{`"engines": []`, `"triage": []`, `"non_blocking": []`, `"notices": []`, `"approvals_pending": []`} {
			if !strings.Contains(string(b), key) {
				t.Errorf("missing %s in %s", key, b)
			}
		}
	})
	t.Run("the status command's report leaves unobserved active findings null", func(t *testing.T) {
		t.Parallel()
		for _, e := range Report(statusOnly()).Engines {
			if e.Active != nil {
				t.Errorf("%s: active = %v, want null", e.Name, e.Active)
			}
		}
	})
}

func TestPRURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"an explicit URL wins", Input{PRURL: "https://ghe.example/o/r/pull/1", Repo: "o/r", Number: 7}, "https://ghe.example/o/r/pull/1"},
		{"the URL is built from the server, repository and number", Input{ServerURL: "https://ghe.example/", Repo: "o/r", Number: 7}, "https://ghe.example/o/r/pull/7"},
		{"the server defaults to github.com", Input{Repo: "o/r", Number: 7}, "https://github.com/o/r/pull/7"},
		{"no repository gives no URL", Input{Number: 7}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.in.prURL(); got != tt.want {
				t.Errorf("prURL = %q, want %q", got, tt.want)
			}
		})
	}
}
