package loop

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/review-loop/review-loop/internal/state"
)

// The per-engine scorecard (EQ1): each loop keeps, per engine, the fate
// of the findings it raised, its times to review and its quota hits, in
// a fixed size (state.Score); billed reviews come from the cost ledger
// (CL1). Across PRs (EQ2), Rank folds many loops' scorecards into one.

func scoreOf(s *state.State, engine string) *state.Score {
	if s.Scores == nil {
		s.Scores = map[string]state.Score{}
	}
	sc := s.Scores[engine]
	return &sc
}

// fate is the scorecard counter an outcome counts in; nil for outcomes
// that are no fate of a finding (awaiting approval, non-blocking,
// refused, duplicate).
func fate(sc *state.Score, outcome string) *int {
	switch outcome {
	case OutcomeFixed:
		return &sc.Fixed
	case OutcomeDisagreed:
		return &sc.Declined
	case OutcomeSkipped:
		return &sc.WontFix
	case OutcomeReverted:
		return &sc.Reverted
	case OutcomeOutdated:
		return &sc.Stale
	case OutcomeEscalated:
		return &sc.Escalated
	}
	return nil
}

// scoreOutcome counts a triage row's outcome (EQ1): a finding seen for
// the first time is raised; a finding triaged again moves from its
// earlier fate to its new one, so each finding counts once, in its
// latest fate. A duplicate (DD1) is no finding of its own.
func scoreOutcome(s *state.State, r state.TriageRow, prev *state.TriageRow) {
	if r.Outcome == OutcomeDuplicate {
		return
	}
	sc := scoreOf(s, r.Engine)
	if prev == nil || prev.Outcome == OutcomeDuplicate || prev.Engine != r.Engine {
		sc.Raised++
	} else if p := fate(sc, prev.Outcome); p != nil && *p > 0 {
		*p--
	}
	if p := fate(sc, r.Outcome); p != nil {
		*p++
	}
	s.Scores[r.Engine] = *sc
}

// scoreInduced counts a fix-induced finding (CV1) against the engines
// whose findings the fix commit fixed: the fixes their advice led to
// drew a new finding. Each engine counts it once.
func scoreInduced(s *state.State, fc state.FixCommit, in state.Induced) {
	engines := map[string]bool{}
	for _, x := range fc.Fixed {
		if x.Engine != "" && slices.Contains(in.Fixed, x.ID) {
			engines[x.Engine] = true
		}
	}
	for _, e := range slices.Sorted(maps.Keys(engines)) {
		sc := scoreOf(s, e)
		sc.Induced++
		s.Scores[e] = *sc
	}
}

func scoreQuota(s *state.State, engine string) {
	sc := scoreOf(s, engine)
	sc.Quota++
	s.Scores[engine] = *sc
}

// scoreReviewTime keeps an engine's time to review: from since (the push
// or trigger of the head) to at (its review of that head). Only the
// latest state.MaxReviewTimes are kept.
func scoreReviewTime(s *state.State, engine string, since, at time.Time) {
	if since.IsZero() || at.IsZero() || at.Before(since) {
		return
	}
	sc := scoreOf(s, engine)
	sc.ReviewSecs = append(sc.ReviewSecs, int64(at.Sub(since)/time.Second))
	if n := len(sc.ReviewSecs) - state.MaxReviewTimes; n > 0 {
		sc.ReviewSecs = slices.Delete(sc.ReviewSecs, 0, n)
	}
	s.Scores[engine] = *sc
}

// reviewSince is when the loop began waiting on engine's review of sha:
// its trigger of that head, else when it first waited on that head
// (the push it observed).
func reviewSince(es state.EngineState, sha string) time.Time {
	if es.TriggeredSHA == sha && !es.TriggeredAt.IsZero() {
		return es.TriggeredAt
	}
	if es.WaitSHA == sha {
		return es.WaitSince
	}
	return time.Time{}
}

// reviewAt is when the review id of v was submitted; zero when unknown.
func reviewAt(v EngineView, id int64) time.Time {
	for _, r := range v.Reviews {
		if r.ID == id {
			return r.At
		}
	}
	return time.Time{}
}

// EngineScore is one engine's scorecard as the reports show it (EQ1,
// EQ2): the loop's counts, its billed reviews and their estimated cost.
type EngineScore struct {
	Engine string
	state.Score
	// Billed are the reviews billed: those the loop asked for and those
	// its pushes made the engine run (CL1).
	Billed int
	// Cost is Billed times the engine's review price; CostKnown says a
	// price is configured.
	Cost      float64
	CostKnown bool
	// Loops counts the loops folded in (1 for one loop).
	Loops int
}

// Scorecard is one loop's per-engine scorecard (EQ1), sorted by engine:
// every engine the loop drove or scored. prices are the review prices
// per engine (nil for none).
func Scorecard(st state.State, prices map[string]float64) []EngineScore {
	names := slices.Clone(st.Engines)
	for e := range st.Scores {
		names = append(names, e)
	}
	if l := st.Ledger; l != nil {
		for e := range l.Requested {
			names = append(names, e)
		}
		for e := range l.Automatic {
			names = append(names, e)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	out := make([]EngineScore, 0, len(names))
	for _, e := range names {
		if e == state.LegacyEngine {
			continue
		}
		es := EngineScore{Engine: e, Score: st.Scores[e], Loops: 1}
		es.ReviewSecs = slices.Clone(es.ReviewSecs)
		if l := st.Ledger; l != nil {
			es.Billed = l.Requested[e] + l.Automatic[e]
		}
		if p, ok := prices[e]; ok {
			es.Cost, es.CostKnown = float64(es.Billed)*p, true
		}
		out = append(out, es)
	}
	return out
}

// EngineRank is one engine's line of the cross-PR scorecard (EQ2).
type EngineRank struct {
	EngineScore
	// Acceptance is Fixed ÷ Raised; InducedRate is Induced ÷ Fixed (the
	// share of its accepted advice whose fix drew a new finding); both 0
	// with nothing to divide.
	Acceptance  float64
	InducedRate float64
	// MedianReview is the median time to review over every kept time;
	// zero with none.
	MedianReview time.Duration
	// CostPerAccepted is Cost ÷ Fixed; meaningful when CostKnown and
	// Fixed > 0.
	CostPerAccepted float64
}

// Rank folds the scorecards of many loops (one []EngineScore per loop)
// into one line per engine (EQ2), best first: by acceptance rate, then
// by the lower fix-induced rate, then by name.
func Rank(loops [][]EngineScore) []EngineRank {
	byName := map[string]*EngineRank{}
	for _, l := range loops {
		for _, s := range l {
			r := byName[s.Engine]
			if r == nil {
				r = &EngineRank{EngineScore: EngineScore{Engine: s.Engine, CostKnown: true}}
				byName[s.Engine] = r
			}
			a := &r.EngineScore
			a.Raised += s.Raised
			a.Fixed += s.Fixed
			a.Declined += s.Declined
			a.WontFix += s.WontFix
			a.Reverted += s.Reverted
			a.Stale += s.Stale
			a.Escalated += s.Escalated
			a.Induced += s.Induced
			a.Quota += s.Quota
			a.ReviewSecs = append(a.ReviewSecs, s.ReviewSecs...)
			a.Billed += s.Billed
			a.Cost += s.Cost
			a.CostKnown = a.CostKnown && s.CostKnown
			a.Loops += s.Loops
		}
	}
	out := make([]EngineRank, 0, len(byName))
	for _, r := range byName {
		if r.Raised > 0 {
			r.Acceptance = float64(r.Fixed) / float64(r.Raised)
		}
		if r.Fixed > 0 {
			r.InducedRate = float64(r.Induced) / float64(r.Fixed)
			r.CostPerAccepted = r.Cost / float64(r.Fixed)
		}
		r.MedianReview = median(r.ReviewSecs)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b EngineRank) int {
		if c := cmp.Compare(b.Acceptance, a.Acceptance); c != 0 {
			return c
		}
		if c := cmp.Compare(a.InducedRate, b.InducedRate); c != 0 {
			return c
		}
		return cmp.Compare(a.Engine, b.Engine)
	})
	return out
}

func median(secs []int64) time.Duration {
	if len(secs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(secs))
	n := len(s)
	m := s[n/2]
	if n%2 == 0 {
		m = (s[n/2-1] + s[n/2]) / 2
	}
	return time.Duration(m) * time.Second
}
