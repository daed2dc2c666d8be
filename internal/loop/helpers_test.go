package loop

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const (
	sha1 = "1111111111111111111111111111111111111111"
	sha2 = "2222222222222222222222222222222222222222"
	sha3 = "3333333333333333333333333333333333333333"
)

// done is a structured, single-verdict engine that finished its review
// latest on sha with the given findings.
func done(engine string, sha string, review int64, findings ...Finding) EngineView {
	for i := range findings {
		findings[i].Engine = engine
		if findings[i].ReviewID == 0 {
			findings[i].ReviewID = review
		}
		if findings[i].ReviewSHA == "" {
			findings[i].ReviewSHA = sha
		}
	}
	return EngineView{
		Engine: engine, Installed: true, TriggerAvailable: true,
		Signal: SignalDone, Material: MaterialOK,
		LatestReviewID: review, LatestSHA: sha,
		Reviews:  []ReviewRef{{ID: review, SHA: sha, Substantive: true, At: t0}},
		Findings: findings,
		Proof:    &Proof{Kind: "review", SHA: sha, ID: review},
	}
}

func running(engine string) EngineView {
	return EngineView{Engine: engine, Installed: true, TriggerAvailable: true, Signal: SignalRunning, Material: MaterialPending}
}

func none(engine string) EngineView {
	return EngineView{Engine: engine, Installed: true, TriggerAvailable: true, Signal: SignalNone, Material: MaterialPending}
}

func f(id int64) Finding {
	return Finding{ID: "f-" + itoa(id), CommentID: id, Category: "cat-" + itoa(id), Path: "a.go", Line: int(id % 100)}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// active is an active loop that already observed head and triggered the
// engines for it.
func active(head string, engines ...string) state.State {
	st := state.New()
	st.Status = state.StatusActive
	st.StartedAt = t0
	st.LastObservedSHA = head
	st.Engines = engines
	st.EngineStates = map[string]state.EngineState{}
	for _, e := range engines {
		st.EngineStates[e] = state.EngineState{TriggeredSHA: head, TriggeredAt: t0, FirstReviewSeen: true}
	}
	return st
}

func obs(head string, at time.Duration, views ...EngineView) Observation {
	return Observation{Now: t0.Add(at), PR: 7, HeadSHA: head, PRState: "OPEN", Engines: views}
}

func triggered(p Plan) []string {
	var out []string
	for _, t := range p.Triggers {
		out = append(out, t.Engine)
	}
	return out
}

func triageIDs(p Plan) []int64 {
	var out []int64
	for _, f := range p.Triage {
		out = append(out, f.CommentID)
	}
	return out
}

func report(t *testing.T, p Plan, engine string) EngineReport {
	t.Helper()
	i := slices.IndexFunc(p.Engines, func(r EngineReport) bool { return r.Engine == engine })
	if i < 0 {
		t.Fatalf("no report for %s in %+v", engine, p.Engines)
	}
	return p.Engines[i]
}

func eventNames(evs []state.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

func wantAction(t *testing.T, p Plan, a Action, r EndReason) {
	t.Helper()
	if p.Action != a || p.EndReason != r {
		t.Fatalf("plan = %s/%q (%s), want %s/%q", p.Action, p.EndReason, p.Why, a, r)
	}
}
