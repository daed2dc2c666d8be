package state

import (
	"reflect"
	"testing"
	"time"
)

// TestRule_CV4_ConvergenceFieldsRoundTripAndOlderStatesDecode: the fix
// commits, fix-induced findings, revert memory and held findings survive
// the status comment; a version 1 state written before they existed
// decodes with none.
func TestRule_CV4_ConvergenceFieldsRoundTripAndOlderStatesDecode(t *testing.T) {
	st := New()
	st.Status = StatusActive
	st.FixCommits = []FixCommit{{SHA: "abc", Parent: "def", Round: 1, Pushed: true, At: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Files: []ChangedFile{{Path: "a.go", Ranges: []LineRange{{Start: 3, End: 5}}}}, Fixed: []FixedRef{{ID: "bugbot-1", Path: "a.go", Line: 3}}}}
	st.Induced = []Induced{{FindingID: "bugbot-2", Commit: "abc", Round: 1, Fixed: []string{"bugbot-1"}, Seen: 1, Same: true}}
	st.AutofixOff = &AutofixOff{Reason: "reverted", Commit: "abc", By: "alice", At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	st.Held = []Held{{FindingID: "x", Rule: "CV6", Why: "generated"}}
	st.EngineFixed, st.ProseRounds = []string{"bugbot-3"}, 2
	body, err := Encode("status", st)
	if err != nil {
		t.Fatal(err)
	}
	got, found, err := Decode(body)
	if err != nil || !found {
		t.Fatalf("decode: %v %v", found, err)
	}
	if !reflect.DeepEqual(got.FixCommits, st.FixCommits) || !reflect.DeepEqual(got.Induced, st.Induced) || !reflect.DeepEqual(got.AutofixOff, st.AutofixOff) ||
		!reflect.DeepEqual(got.Held, st.Held) || !reflect.DeepEqual(got.EngineFixed, st.EngineFixed) || got.ProseRounds != 2 {
		t.Fatalf("round trip lost convergence fields: %+v", got)
	}
	c := st.Clone()
	c.FixCommits[0].Files[0].Ranges[0].Start = 99
	c.Induced[0].Fixed[0] = "changed"
	c.AutofixOff.Reason = "changed"
	if st.FixCommits[0].Files[0].Ranges[0].Start != 3 || st.Induced[0].Fixed[0] != "bugbot-1" || st.AutofixOff.Reason != "reverted" {
		t.Fatal("Clone shares the convergence fields")
	}
	old, err := DecodeJSON([]byte(`{"version":1,"status":"active","iteration":2,"commits":1,"active_seconds":0,"idle_polls":0,"totals":{"fixed":1,"reverted":0,"escalated":0,"outdated":0,"disagreed":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	if old.FixCommits != nil || old.AutofixOff != nil || old.Iteration != 2 {
		t.Fatalf("older state decoded as %+v", old)
	}
}
