package loop

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// EQ1: each finding counts once, in its latest fate; a finding triaged
// again moves from its earlier fate to the new one.
func TestRule_EQ1_ScorecardCountsEachFindingsLatestFate(t *testing.T) {
	st := active(sha1, "bugbot", "copilot")
	st.Iteration = 1
	rows := []state.TriageRow{
		{FindingID: "b-1", Engine: "bugbot", CommentID: 1, Outcome: OutcomeFixed},
		{FindingID: "b-2", Engine: "bugbot", CommentID: 2, Outcome: OutcomeEscalated},
		{FindingID: "c-3", Engine: "copilot", CommentID: 3, Outcome: OutcomeDisagreed},
		{FindingID: "c-4", Engine: "copilot", CommentID: 4, Outcome: OutcomeOutdated},
		{FindingID: "c-5", Engine: "copilot", CommentID: 5, Outcome: OutcomeSkipped},
		{FindingID: "c-6", Engine: "copilot", CommentID: 6, Outcome: OutcomeDuplicate},
	}
	st = RecordFixCycle(st, FixResult{Rows: rows}, t0)
	st.Iteration = 2
	// b-2 escalated, then fixed once approved; b-1's fix reverted.
	st = RecordFixCycle(st, FixResult{Rows: []state.TriageRow{
		{FindingID: "b-2", Engine: "bugbot", CommentID: 2, Outcome: OutcomeFixed},
		{FindingID: "b-1", Engine: "bugbot", CommentID: 1, Outcome: OutcomeReverted},
	}}, t0.Add(time.Minute))
	b, c := st.Scores["bugbot"], st.Scores["copilot"]
	if b.Raised != 2 || b.Fixed != 1 || b.Reverted != 1 || b.Escalated != 0 {
		t.Fatalf("bugbot score = %+v, want raised 2, fixed 1, reverted 1, escalated 0", b)
	}
	if c.Raised != 3 || c.Declined != 1 || c.Stale != 1 || c.WontFix != 1 || c.Fixed != 0 {
		t.Fatalf("copilot score = %+v, want raised 3 (the duplicate is no finding of its own), declined 1, stale 1, won't-fix 1", c)
	}
	if err := st.Validate(nil); err != nil {
		t.Fatal(err)
	}
}

// EQ1: the time to review runs from the trigger (or the push the loop
// began waiting on) to the review; a quota notice is a quota hit.
func TestRule_EQ1_ScorecardKeepsTimeToReviewAndQuotaHits(t *testing.T) {
	cfg := DefaultConfig()
	st := active(sha1, "bugbot", "copilot")
	es := st.EngineStates["copilot"]
	es.TriggeredAt = t0.Add(-4 * time.Minute)
	st.EngineStates["copilot"] = es
	cop := done("copilot", sha1, 30)
	cop.Reviews[0].At = t0.Add(3 * time.Minute)
	_, st2 := Decide(st, obs(sha1, 6*time.Minute, quotaView(t0.Add(5*time.Minute), 0), cop), cfg)
	if got := st2.Scores["copilot"].ReviewSecs; len(got) != 1 || got[0] != 7*60 {
		t.Fatalf("copilot review times = %v, want [420] (7 minutes from trigger to review)", got)
	}
	if q := st2.Scores["bugbot"].Quota; q != 1 {
		t.Fatalf("bugbot quota hits = %d, want 1", q)
	}
	// The same notice seen again is no new hit; the same review no new time.
	_, st3 := Decide(st2, obs(sha1, 7*time.Minute, quotaView(t0.Add(5*time.Minute), 0), cop), cfg)
	if st3.Scores["bugbot"].Quota != 1 || len(st3.Scores["copilot"].ReviewSecs) != 1 {
		t.Fatalf("counted twice: %+v", st3.Scores)
	}
}

// EQ1 within R1: however many reviews, the scorecard keeps a fixed size.
func TestRule_EQ1_ScorecardIsAFixedSizePerEngine(t *testing.T) {
	s := state.New()
	for i := range 1000 {
		scoreReviewTime(&s, "bugbot", t0, t0.Add(time.Duration(i)*time.Second))
	}
	got := s.Scores["bugbot"].ReviewSecs
	if len(got) != state.MaxReviewTimes || got[len(got)-1] != 999 {
		t.Fatalf("review times = %v, want the latest %d", got, state.MaxReviewTimes)
	}
}

// EQ1: a fix-induced finding counts against the engine whose finding the
// fix fixed; the hand-back's figures come from Scorecard with the
// ledger's billed reviews and the prices.
func TestRule_EQ1_FixInducedCountsAgainstTheFixedFindingsEngine(t *testing.T) {
	st := afterFix(t)
	cfg := DefaultConfig()
	cfg.DivergenceStop = false
	_, st = Decide(st, obs(sha2, 10*time.Minute, done("bugbot", sha2, 20, errIgnored, elsewhere)), cfg)
	if got := st.Scores["bugbot"].Induced; got != 1 {
		t.Fatalf("bugbot induced = %d, want 1 (its finding's fix drew bugbot-2)", got)
	}
	st.Ledger = &state.Ledger{Requested: map[string]int{"bugbot": 3}, Automatic: map[string]int{"bugbot": 1}}
	sc := Scorecard(st, map[string]float64{"bugbot": 0.5})
	if len(sc) != 1 || sc[0].Billed != 4 || sc[0].Cost != 2 || !sc[0].CostKnown || sc[0].Induced != 1 {
		t.Fatalf("scorecard = %+v, want bugbot billed 4, cost 2, induced 1", sc)
	}
}

// EQ1 with B5: a fix refused at the push was never applied: it no longer
// counts as fixed.
func TestRule_EQ1_RefusedFixIsNoLongerFixed(t *testing.T) {
	st := active(sha1, "bugbot")
	st.Iteration = 1
	st = RecordFixCycle(st, FixResult{Rows: []state.TriageRow{{FindingID: "b-1", Engine: "bugbot", CommentID: 1, Outcome: OutcomeFixed}}}, t0)
	_, st = RecordRefusal(st, Plan{}, "branch is protected", t0)
	if sc := st.Scores["bugbot"]; sc.Raised != 1 || sc.Fixed != 0 {
		t.Fatalf("bugbot score = %+v, want raised 1, fixed 0", sc)
	}
}

// EQ1: a trigger refused for a quota (T8) is a quota hit too, once per
// cooldown.
func TestRule_EQ1_TriggerRefusedForAQuotaIsAQuotaHit(t *testing.T) {
	st := active(sha1, "copilot")
	q := &QuotaNotice{At: t0, Text: "Copilot has reached its review limit"}
	st = RecordTriggers(st, []TriggerResult{{Engine: "copilot", SHA: sha1, Quota: q}}, t0)
	st = RecordTriggers(st, []TriggerResult{{Engine: "copilot", SHA: sha1, Quota: q}}, t0.Add(time.Minute))
	if got := st.Scores["copilot"].Quota; got != 1 {
		t.Fatalf("copilot quota hits = %d, want 1", got)
	}
}

// EQ1 within R1: ten thousand findings over a loop's life leave the
// scorecard the size of a few counters per engine.
func TestRule_EQ1_TenThousandFindingsKeepTheScorecardSmall(t *testing.T) {
	st := active(sha1, "bugbot", "copilot")
	for i := range 10000 {
		e := []string{"bugbot", "copilot"}[i%2]
		st.Iteration = i/100 + 1
		st = RecordFixCycle(st, FixResult{Rows: []state.TriageRow{{FindingID: e + "-" + itoa(int64(i)), Engine: e, CommentID: int64(i + 1), Outcome: OutcomeFixed}}}, t0)
		st.Triage, st.Events = nil, nil // bounded elsewhere (R1); the scorecard depends on neither
	}
	b, err := json.Marshal(st.Scores)
	if err != nil {
		t.Fatal(err)
	}
	if st.Scores["bugbot"].Raised != 5000 || st.Scores["copilot"].Fixed != 5000 || len(b) > 200 {
		t.Fatalf("scores = %s (%d bytes), want 5000 each in a couple of hundred bytes", b, len(b))
	}
}
