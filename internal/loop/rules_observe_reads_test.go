package loop

import (
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// The decisions behind the reads a cycle makes before it decides: which
// of the loop's fix commits a later push may have undone (CV4), and when
// the diff's size in characters is read at all or taken from the state
// (CV6).

func TestRule_CV4_OnlyThePushedLastFixCommitWhoseFilesWereTouchedIsSuspected(t *testing.T) {
	t.Parallel()
	st := afterFix(t) // sha2 pushed, wrote calc.go
	if fc := UndoSuspect(st, "ahead", []string{"README.md", "calc.go"}); fc == nil || fc.SHA != sha2 {
		t.Fatalf("a push since that touched calc.go: suspect %+v, want the fix commit %s", fc, sha2)
	}
	if fc := UndoSuspect(st, "ahead", []string{"README.md"}); fc != nil {
		t.Errorf("a push since that touched none of its files: suspect %s, want none (no compare spent)", fc.SHA)
	}
	for _, status := range []string{"diverged", "behind", "identical"} {
		if fc := UndoSuspect(st, status, []string{"calc.go"}); fc != nil {
			t.Errorf("compare status %s (the fix commit is no longer behind the head): suspect %s, want none", status, fc.SHA)
		}
	}
	unpushed := st.Clone()
	unpushed.FixCommits[0].Pushed = false
	if fc := UndoSuspect(unpushed, "ahead", []string{"calc.go"}); fc != nil {
		t.Errorf("a fix commit never pushed is suspected: %s", fc.SHA)
	}
	other := st.Clone()
	other.LastPushSHA = sha3
	if fc := UndoSuspect(other, "ahead", []string{"calc.go"}); fc != nil {
		t.Errorf("a fix commit that is not the last push is suspected: %s", fc.SHA)
	}
	noLines := st.Clone()
	noLines.FixCommits[0].Files = nil
	if fc := UndoSuspect(noLines, "ahead", []string{"calc.go"}); fc != nil {
		t.Errorf("a fix commit recorded without its lines is suspected: %s", fc.SHA)
	}
}

func TestRule_CV4_AFixCommitIsUndoneWhenNoneOfItsFilesDifferFromItsParent(t *testing.T) {
	t.Parallel()
	fc := afterFix(t).FixCommits[0] // wrote calc.go
	if !Undone(fc, []string{"README.md"}) {
		t.Error("the head differs from the fix commit's parent only in other files: want undone")
	}
	if !Undone(fc, nil) {
		t.Error("the head is its parent again: want undone")
	}
	if Undone(fc, []string{"README.md", "calc.go"}) {
		t.Error("calc.go still differs from the fix commit's parent: want not undone")
	}
}

func TestRule_CV6_TheCharacterCountIsReusedOnlyForTheSameBaseAndHead(t *testing.T) {
	t.Parallel()
	st := RecordDiffChars(state.State{}, "base1", sha1, 4_000_000)
	if n, ok := SavedDiffChars(st, "base1", sha1); !ok || n != 4_000_000 {
		t.Fatalf("same base and head: %d, %v; want the saved 4000000", n, ok)
	}
	for _, c := range []struct{ base, head string }{{"base1", sha2}, {"base2", sha1}, {"base1", ""}} {
		if n, ok := SavedDiffChars(st, c.base, c.head); ok {
			t.Errorf("base %q head %q: saved %d reused, want a new read", c.base, c.head, n)
		}
	}
	if got := RecordDiffChars(st, "base1", sha2, 0); got.DiffChars == nil || got.DiffChars.Head != sha1 {
		t.Errorf("an unknown count (0) replaced the saved one: %+v", got.DiffChars)
	}
	if got := RecordDiffChars(state.State{}, "base1", "", 5); got.DiffChars != nil {
		t.Errorf("a count with no head is saved: %+v", got.DiffChars)
	}
	if st2 := RecordDiffChars(st, "base1", sha2, 7); st.DiffChars.Chars != 4_000_000 || st2.DiffChars.Chars != 7 {
		t.Errorf("RecordDiffChars changed its input or lost the new count: %+v, %+v", st.DiffChars, st2.DiffChars)
	}
}

func TestRule_CV6_TheCharactersAreReadOnlyForAnEngineWhoseLineLimitDoesNotSettleIt(t *testing.T) {
	t.Parallel()
	limits := map[string]DiffLimit{"bugbot": {Lines: 100, Chars: 3_000}, "chars-only": {Chars: 10}}
	bugbot := EngineView{Engine: "bugbot", Installed: true}
	cases := []struct {
		name  string
		views []EngineView
		lines int
		want  bool
	}{
		{"under the line limit", []EngineView{bugbot}, 50, true},
		{"over the line limit already", []EngineView{bugbot}, 101, false},
		{"not installed", []EngineView{{Engine: "bugbot"}}, 50, false},
		{"no character limit", []EngineView{{Engine: "copilot", Installed: true}}, 50, false},
		{"a character limit with no line limit", []EngineView{{Engine: "chars-only", Installed: true}}, 1_000_000, true},
		{"one engine of two needs it", []EngineView{{Engine: "copilot", Installed: true}, bugbot}, 50, true},
	}
	for _, c := range cases {
		if got := NeedsDiffChars(c.views, limits, c.lines); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
