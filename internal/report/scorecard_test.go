package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// EQ1: the hand-back carries one compact scorecard table and the JSON
// report the same figures, with the ledger's billed reviews priced.
func TestRule_EQ1_HandBackAndJSONCarryTheScorecard(t *testing.T) {
	in := cleanHandBack()
	in.State.Scores = map[string]state.Score{
		"bugbot":  {Raised: 4, Fixed: 3, Declined: 1, Induced: 1, Quota: 2, ReviewSecs: []int64{300, 420, 600}},
		"copilot": {Raised: 5, Declined: 4, Stale: 1, ReviewSecs: []int64{90}},
	}
	in.State.Ledger = &state.Ledger{Requested: map[string]int{"bugbot": 2, "copilot": 3}, Automatic: map[string]int{"bugbot": 1}}
	in.Prices = Prices{Review: map[string]float64{"bugbot": 0.4}}
	hb := HandBack(in)
	for _, want := range []string{
		"#### Scorecard",
		"| bugbot | 4 | 3 | 1 | 0 | 0 | 1 | 0 | 7m | 2 | 3 | $1.20 |",
		"| copilot | 5 | 0 | 4 | 0 | 0 | 0 | 1 | 1m | 0 | 3 | — |",
	} {
		if !strings.Contains(hb, want) {
			t.Fatalf("hand-back lacks %q:\n%s", want, hb)
		}
	}
	b, err := JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Scorecard []JSONScore `json:"scorecard"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	// Every engine of the loop has a line, sorted: bugbot, claude, copilot.
	if len(r.Scorecard) != 3 || r.Scorecard[0].Engine != "bugbot" || r.Scorecard[0].Fixed != 3 || r.Scorecard[0].Induced != 1 ||
		r.Scorecard[0].MedianReviewSeconds != 420 || r.Scorecard[0].Billed != 3 || r.Scorecard[0].Cost == nil || *r.Scorecard[0].Cost != 1.2 ||
		r.Scorecard[2].Cost != nil || r.Scorecard[2].Declined != 4 || r.Scorecard[0].QuotaHits != 2 || r.Scorecard[1].Raised != 0 {
		t.Fatalf("JSON scorecard = %+v", r.Scorecard)
	}
}
