package state

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRule_SC2_stateWithoutGateOrLedgerReadsAsEmpty: a version 1 state
// written before the merge gate and the cost ledger existed decodes with
// neither (nil: nothing recorded yet), so a loop upgraded mid-way creates
// its gate on the next cycle and starts its ledger at zero; no version bump
// is needed because the fields are additive and optional, and an older
// build reading a newer state ignores them.
func TestRule_SC2_stateWithoutGateOrLedgerReadsAsEmpty(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "state", "v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"gate"`) || strings.Contains(string(b), `"ledger"`) {
		t.Fatal("the v1 sample already has the new fields; it must be the old shape")
	}
	st, err := DecodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Gate != nil || st.Ledger != nil {
		t.Errorf("gate %+v, ledger %+v, want both nil", st.Gate, st.Ledger)
	}
}

// TestRule_CL1_ledgerAndGateSurviveTheCommentAndCloneDeeply round-trips
// the new fields through the hidden comment and checks Clone copies them.
func TestRule_CL1_ledgerAndGateSurviveTheCommentAndCloneDeeply(t *testing.T) {
	t.Parallel()
	st := New()
	st.Status = StatusActive
	st.Gate = &Gate{SHA: "abc", ID: 1 << 33, Status: "in_progress", Digest: "d"}
	st.Ledger = &Ledger{Requested: map[string]int{"copilot": 2}, Automatic: map[string]int{"bugbot": 1},
		AskedSHA: map[string]string{"copilot": "abc"}, AutoSHA: map[string]string{"bugbot": "abc"},
		JobMinutes: 7, Cycles: 6, APIReads: 40, APIWrites: 12}
	body, err := Encode("visible", st)
	if err != nil {
		t.Fatal(err)
	}
	got, found, err := Decode(body)
	if !found || err != nil {
		t.Fatalf("decode: found %v, %v", found, err)
	}
	if !reflect.DeepEqual(got.Gate, st.Gate) || !reflect.DeepEqual(got.Ledger, st.Ledger) {
		t.Errorf("round trip: gate %+v ledger %+v", got.Gate, got.Ledger)
	}
	c := st.Clone()
	c.Gate.ID = 9
	c.Ledger.Requested["copilot"] = 99
	c.Ledger.AutoSHA["bugbot"] = "x"
	if st.Gate.ID == 9 || st.Ledger.Requested["copilot"] == 99 || st.Ledger.AutoSHA["bugbot"] == "x" {
		t.Error("Clone shares the gate or the ledger with the original")
	}
	bad := st.Clone()
	bad.Ledger.JobMinutes = -1
	bad.Ledger.Requested["copilot"] = -2
	err = bad.Validate(nil)
	if err == nil || !strings.Contains(err.Error(), "ledger.job_minutes") || !strings.Contains(err.Error(), "ledger.requested[copilot]") {
		t.Errorf("validate: %v, want both ledger fields named", err)
	}
}
