package loop

import (
	"slices"
	"testing"

	"github.com/review-loop/review-loop/internal/state"
)

// The decisions of the shell's single writes (writes.go), without a fake.

func TestRule_WF1_AReplyThatKeepsARationaleIsDecidedWithItsLink(t *testing.T) {
	t.Parallel()
	planned := f(7)
	planned.Title = "nil map"
	p := Plan{Triage: []Finding{f(3), planned}}
	r := Reply{FindingID: planned.ID, CommentID: 7, Body: "intended: the map is never nil here", Remember: true}
	d, ok := Decided(p, r, 99, "https://github.com/o/r/pull/1")
	if !ok || d.Finding.Title != "nil map" || d.Reason != r.Body || d.ReplyURL != "https://github.com/o/r/pull/1#discussion_r99" {
		t.Errorf("Decided = %+v, %v; want the planned finding, its rationale and the reply's link", d, ok)
	}
	if d, _ := Decided(p, r, 0, "https://github.com/o/r/pull/1"); d.ReplyURL != "" {
		t.Errorf("a reply that failed links %q, want none", d.ReplyURL)
	}
	if d, _ := Decided(Plan{}, r, 99, ""); d.Finding.ID != planned.ID || d.ReplyURL != "" {
		t.Errorf("unplanned finding with no PR URL: %+v, want the bare id and no link", d)
	}
	r.Remember = false
	if _, ok := Decided(p, r, 99, "u"); ok {
		t.Error("a reply that keeps no rationale was decided")
	}
}

func TestRule_J5_OnlyThePlannedNonBlockingItemsAreFiled(t *testing.T) {
	t.Parallel()
	st := state.New()
	st.NonBlocking = []state.Item{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	got := ItemsToFile(st, []string{"c", "a", "z"})
	if ids := []string{got[0].ID, got[1].ID}; len(got) != 2 || !slices.Equal(ids, []string{"a", "c"}) {
		t.Errorf("ItemsToFile = %+v, want a then c", got)
	}
}

func TestRule_E6_BodyFindingsListedOnceAreRemembered(t *testing.T) {
	t.Parallel()
	st := RecordBodyFindings(state.New(), []BodyFinding{{Finding: f(1)}, {Finding: f(2)}})
	for _, id := range []string{"f-1", "f-2"} {
		if !st.HasNotice(BodyFindingNotice(id)) {
			t.Errorf("body finding %s is not remembered as listed", id)
		}
	}
}

func TestRule_E9_StaleThreadsOfEveryEngineGoInOneRequest(t *testing.T) {
	t.Parallel()
	bugbot := done("bugbot", sha2, 20,
		Finding{CommentID: 1, ReviewID: 10, ReviewSHA: sha1, ThreadID: "T1"}, // older review: stale
		Finding{CommentID: 2, ThreadID: "T2"})                                // latest review: active
	copilot := done("copilot", sha2, 40,
		Finding{CommentID: 3, ReviewID: 30, ReviewSHA: sha1, ThreadID: "T3"}, // older review: stale
		Finding{CommentID: 4, ReviewID: 30, ReviewSHA: sha1, ThreadID: "T4", Resolved: true})
	if got := StaleThreads([]EngineView{bugbot, copilot}, sha2); !slices.Equal(got, []string{"T1", "T3"}) {
		t.Errorf("StaleThreads = %v, want [T1 T3]: the stale threads of both engines, never an active or resolved one", got)
	}
}

func TestRule_TR2_AnApprovalMayNameAnyActiveFindingOfAnyEngine(t *testing.T) {
	t.Parallel()
	got := KnownFindings([]EngineView{done("bugbot", sha1, 10, f(1)), done("copilot", sha1, 20, f(2))}, sha1)
	if len(got) != 2 || got[0].ID != "f-1" || got[1].ID != "f-2" {
		t.Errorf("KnownFindings = %+v, want f-1 and f-2", got)
	}
}

func TestRule_SW2_OnlyAPersonsDispatchTheLabelOrStartAndResetAskForALoop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		wake, command string
		bySelf, want  bool
	}{
		{"dispatch", "", false, true},
		{"dispatch", "", true, false}, // W5 re-entry or the sweep's fan-out
		{"start-label", "", true, true},
		{"command", "start", false, true},
		{"command", "reset", false, true},
		{"command", "status", false, false},
		{"engine-signal", "", false, false},
		{"sweep", "", false, false},
	}
	for _, tt := range tests {
		if got := AskedToStart(tt.wake, tt.command, tt.bySelf); got != tt.want {
			t.Errorf("AskedToStart(%q, %q, bySelf=%v) = %v, want %v", tt.wake, tt.command, tt.bySelf, got, tt.want)
		}
	}
}

func TestRule_TB1_ATreelessRunClonesAForksBaseNeverItsHead(t *testing.T) {
	t.Parallel()
	if b, _ := CheckoutBranch(true, "fork-feature", "main"); b != "main" {
		t.Errorf("fork: clones %q, want the base main", b)
	}
	if b, _ := CheckoutBranch(false, "feature", "main"); b != "feature" {
		t.Errorf("same repository: clones %q, want the head feature", b)
	}
	if b, _ := CheckoutBranch(false, "", "main"); b != "main" {
		t.Errorf("no head ref: clones %q, want the base", b)
	}
	if _, err := CheckoutBranch(false, "", ""); err == nil {
		t.Error("no branch at all: no error")
	}
}

func TestRule_SC4_OnlyANewStatusCommentOfAWorkflowRunIsStampedWithItsOwner(t *testing.T) {
	t.Parallel()
	st := StampOwner(state.New(), false, 42, ".github/workflows/review-loop.yml", "")
	if st.Owner == nil || st.Owner.RunID != 42 || st.Owner.Workflow != ".github/workflows/review-loop.yml" || st.Owner.CommentID != 0 {
		t.Errorf("new comment: owner %+v, want run 42 of the workflow, comment id still unknown", st.Owner)
	}
	for _, tt := range []struct {
		exists   bool
		run      int64
		workflow string
	}{{true, 42, "w"}, {false, 0, "w"}, {false, 42, ""}} {
		if st := StampOwner(state.New(), tt.exists, tt.run, tt.workflow, ""); st.Owner != nil {
			t.Errorf("StampOwner(exists=%v, run=%d, workflow=%q) stamped %+v, want nothing", tt.exists, tt.run, tt.workflow, st.Owner)
		}
	}
}

func TestRule_LW1_WatchsNewStatusCommentSaysWatchWroteIt(t *testing.T) {
	t.Parallel()
	if st := StampOwner(state.New(), false, 0, "", "watch"); st.Owner == nil || st.Owner.Driver != "watch" || st.Owner.RunID != 0 {
		t.Errorf("watch's new comment: owner %+v, want the driver named", st.Owner)
	}
	if st := StampOwner(state.New(), true, 0, "", "watch"); st.Owner != nil {
		t.Errorf("an existing comment (the Action's, adopted): stamped %+v, want nothing", st.Owner)
	}
}
